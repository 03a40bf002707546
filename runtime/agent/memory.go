package agent

import (
	"context"
	"fmt"
	"strings"
)

// A MemoryIndex gives the two MEMORY.md indexes (§8): who the user is,
// shared by every project, and this workspace's. runtime/memory's Store
// implements it.
type MemoryIndex interface {
	Indexes() (user, project string)
}

// A Recaller finds the memories relevant to a user message for automatic
// recall (§8): it returns the `<memory_context>` block to prefix to the
// message ("" for none) and the files it used, which are passed back in
// exclude on later calls so a memory is recalled once per session.
type Recaller func(ctx context.Context, text string, exclude []string) (block string, used []string)

// maxMemoryIndexLines bounds each index in the prompt, as Claude Code does.
const maxMemoryIndexLines = 200

// memoryRules is the `## Memory` section's fixed part (§8).
const memoryRules = `## Memory

You have a long-term memory that persists across sessions, kept as Markdown files. Save with memory_store, find with memory_recall, delete with memory_forget.

` + memoryGuidance + `

Memories relevant to a message may be given to you above it in a <memory_context> block.`

// memoryGuidance says what to save and how to keep memories: the main
// agent's section and a subagent's own share it.
const memoryGuidance = `Save only what cannot be derived from the code or the conversation's tools:
- the user's role, preferences and way of working (type user);
- corrections and approaches the user confirmed (type feedback);
- project context, with absolute dates rather than "yesterday" (type project);
- pointers to external systems: dashboards, tickets, documents (type reference).
Do not save code structure, git history, fix recipes or the state of the current task.

Update an existing memory (memory_store with the same name) instead of adding a duplicate. When the user asks you to forget something, delete it with memory_forget. A memory may be stale: before relying on a remembered file, function or flag, check that it still exists. If the user says to ignore memory, act as if it were empty.`

// A SubagentMemory is a subagent's own memory (issue 24): a folder of the
// memory dir for its definition's `memory` scope, whose MEMORY.md is in
// its `## Memory` section and which its memory tools read and write. The
// main agent's memories are neither in its prompt nor in reach of its
// tools. The session makes it ([Options.SubagentMemory]).
type SubagentMemory struct {
	// Scope is the definition's: user, project or local.
	Scope string
	// Folder is the absolute folder, named in its section and in approval
	// questions.
	Folder string
	// Index returns its MEMORY.md, read when a run starts; nil for none.
	Index func() string
	// Tools are the memory tools bound to Folder. Each replaces the
	// session's tool of its name; the session's memory tools it has no
	// replacement for (knowledge) are not given.
	Tools []Tool
}

// subagentMemorySection renders a subagent's `## Memory` section from its
// own memory: the main section's guidance over its own folder and index.
// It is read when the run starts, as the main section is at session start.
func subagentMemorySection(name string, mem *SubagentMemory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Memory\n\nYou have a long-term memory of your own, as the %s subagent, that persists across sessions, kept as Markdown files in %s (%s scope). Save with memory_store, find with memory_recall, delete with memory_forget: they work on this memory only, which holds none of the main agent's memories.\n\n", name, mem.Folder, mem.Scope)
	b.WriteString(memoryGuidance)
	text := ""
	if mem.Index != nil {
		text = firstLines(strings.TrimSpace(mem.Index()), maxMemoryIndexLines)
	}
	if text == "" {
		text = "(empty)"
	}
	b.WriteString("\n\n### Your memory (MEMORY.md)\n\n" + text)
	return b.String()
}

// memoryLogRules is memoryRules of [memory].mode = "daily_log": the model
// notes facts in the day's log, which `clawseed memory distill` turns into
// topic files between sessions. It names no date: the system prompt stays
// the same bytes all session long, across midnight too.
const memoryLogRules = `## Memory

You have a long-term memory that persists across sessions, kept as Markdown files. You do not write its topic files yourself: memory_store appends one short, timestamped note to today's log (logs/YYYY-MM-DD.md in the memory folder), and between sessions the logs are distilled into topic memories and the MEMORY.md indexes below. Find memories with memory_recall (it searches the topic memories, not the logs), delete one with memory_forget.

Note only what cannot be derived from the code or the conversation's tools, one fact per call, in a sentence that stands on its own (say who or what it is about; absolute dates rather than "yesterday"):
- the user's role, preferences and way of working;
- corrections and approaches the user confirmed;
- project context and decisions;
- pointers to external systems: dashboards, tickets, documents.
Do not note code structure, git history, fix recipes or the state of the current task. The log is append-only: to correct a note, note the correction. When the user asks you to forget something, delete the memory with memory_forget and note that it is to be forgotten. A memory may be stale: before relying on a remembered file, function or flag, check that it still exists. If the user says to ignore memory, act as if it were empty.

Memories relevant to a message may be given to you above it in a <memory_context> block.`

// memorySection renders the `## Memory` section from the indexes, "" when
// memory is off; dailyLog picks the rules of [memory].mode = "daily_log".
func memorySection(idx MemoryIndex, dailyLog bool) string {
	if idx == nil {
		return ""
	}
	user, project := idx.Indexes()
	var b strings.Builder
	if dailyLog {
		b.WriteString(memoryLogRules)
	} else {
		b.WriteString(memoryRules)
	}
	for _, part := range []struct{ title, text string }{
		{"### User memory (MEMORY.md)", user},
		{"### Project memory (MEMORY.md)", project},
	} {
		text := firstLines(strings.TrimSpace(part.text), maxMemoryIndexLines)
		if text == "" {
			text = "(empty)"
		}
		b.WriteString("\n\n" + part.title + "\n\n" + text)
	}
	return b.String()
}

// firstLines returns at most n lines of s.
func firstLines(s string, n int) string {
	i := 0
	for off := range len(s) {
		if s[off] == '\n' {
			if i++; i == n {
				return s[:off]
			}
		}
	}
	return s
}

// refreshMemory re-renders the `## Memory` section from the files. It runs
// at session start and after a compaction only: a memory written mid-session
// must not change the cached prompt (the write's result tells the model what
// was saved).
func (a *Agent) refreshMemory() {
	if a.opts.Memory == nil {
		return
	}
	a.opts.Prompt.Memory = memorySection(a.opts.Memory, a.opts.MemoryDailyLog)
	a.buildBase()
}

// recall prefixes the memories relevant to text, once per session each:
// the recalled set is recorded in the session file, and Resume brings it
// back.
func (a *Agent) recall(ctx context.Context, text string) string {
	if a.opts.Recall == nil {
		return ""
	}
	block, used := a.opts.Recall(ctx, text, a.recalled)
	if len(used) > 0 {
		a.recalled = append(a.recalled, used...)
		if a.opts.Recorder != nil {
			a.recorded(a.opts.Recorder.RecordRecall(used))
		}
	}
	return block
}
