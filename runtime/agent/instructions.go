package agent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/clawseed/clawseed/providers"
)

// Project instructions (CLAUDE.md, AGENTS.md, their imports and rules) are
// read by the caller (runtime/instructions, wired by the app). The agent
// holds the rendered `## Project instructions` section in
// [PromptConfig.Instructions], fixed for the session like the memory
// index and re-read after a compaction ([Options.RefreshInstructions]);
// and it attaches the instruction files of a subfolder to the conversation
// the first time a tool reads or writes a file there
// ([Options.NestedInstructions]), as a user-side block after that call's
// result: never in the system prompt, whose cached prefix stays as it was.

// A NestedInstruction is the instruction file of a subfolder of the
// workspace (or a file it imports) that applies to a file a tool read or
// wrote.
type NestedInstruction struct {
	// Path is the file, relative to the workspace ("api/CLAUDE.md"). A
	// file is attached once per session under this name, and again after
	// a compaction only if the history kept no block of it.
	Path string
	// Dir is the folder its instructions apply to ("api/").
	Dir string
	// Via is the file that imports it, "" for a folder's own file.
	Via string
	// Text is what to attach (already cut to its cap, with a note).
	Text string
}

// NestedInstructions returns the instruction files of the subfolders on
// the way to path (as the tool was given it: relative to the workspace, or
// absolute), outermost first, without those of the system prompt.
type NestedInstructions func(ctx context.Context, path string) []NestedInstruction

// A fileToucher names the files a call reads or writes as files
// (file_read, file_write, file_edit; not a search, whose results are
// listings): the instruction files of their folders are attached after
// the call succeeded.
type fileToucher interface {
	Touches(args json.RawMessage) []string
}

// nestedLead opens every nested block; what follows it up to the end of
// the line is the file's path, which is how a block is found in the
// history again (attachedIn).
const nestedLead = "<system-reminder>\nProject instructions: "

// nestedBlocks returns the blocks of the instruction files that the
// successful calls of a response newly reach, in call order, each file
// once per session.
// The skill folders on the way to the paths the calls touched or
// searched are looked for here too (nestedskills.go): one place where a
// call's paths become user-side blocks.
func (a *Agent) nestedBlocks(ctx context.Context, calls []providers.ToolCall, results []providers.ToolResult) []string {
	if a.opts.NestedInstructions == nil && a.opts.NestedSkills == nil {
		return nil
	}
	var blocks []string
	for i, c := range calls {
		if i >= len(results) || results[i].IsError {
			continue
		}
		var touched, searched []string
		if t, ok := a.tools[c.Name].(fileToucher); ok {
			touched = t.Touches(callArgs(c.Args))
		}
		if t, ok := a.tools[c.Name].(pathSearcher); ok {
			searched = t.Searches(callArgs(c.Args))
		}
		for _, p := range touched {
			if a.opts.NestedInstructions == nil {
				break
			}
			for _, n := range a.opts.NestedInstructions(ctx, p) {
				if a.attached()[n.Path] {
					continue
				}
				a.nested[n.Path] = true
				blocks = append(blocks, nestedBlock(n))
			}
		}
		for _, p := range append(touched, searched...) {
			blocks = append(blocks, a.nestedSkillBlocks(ctx, p)...)
		}
	}
	return blocks
}

// attached returns the nested files the history holds a block of, found
// again after the history was replaced (a compaction, a resume, /clear).
func (a *Agent) attached() map[string]bool {
	if a.nested == nil {
		a.nested = attachedIn(a.history)
	}
	return a.nested
}

// attachedIn finds the nested blocks of a history's user messages.
func attachedIn(history []providers.Message) map[string]bool {
	found := map[string]bool{}
	for _, path := range namedAfter(history, nestedLead) {
		found[path] = true
	}
	return found
}

// nestedBlock renders one nested file as the model receives it.
func nestedBlock(n NestedInstruction) string {
	var b strings.Builder
	b.WriteString(nestedLead + n.Path + "\n")
	if n.Via != "" {
		b.WriteString("(imported by " + n.Via + ") ")
	}
	b.WriteString("These instructions apply to the files under " + n.Dir + ", one of which a tool just read or wrote. Follow them when you work there.\n\n")
	b.WriteString(strings.ReplaceAll(strings.TrimSpace(n.Text), "</system-reminder>", `<\/system-reminder>`))
	b.WriteString("\n</system-reminder>")
	return b.String()
}

// withBlocks appends blocks to the message answering a response's calls:
// text parts after the tool results (both wires accept a user message of
// results followed by text), or more text after the text protocol's
// results.
func withBlocks(msg providers.Message, blocks []string) providers.Message {
	if len(blocks) == 0 {
		return msg
	}
	text := strings.Join(blocks, "\n\n")
	if len(msg.ToolResults()) == 0 && len(msg.Parts) == 1 && msg.Parts[0].Type == providers.PartText {
		msg.Parts = []providers.Part{{Type: providers.PartText, Text: msg.Parts[0].Text + "\n\n" + text}}
		return msg
	}
	msg.Parts = append(msg.Parts, providers.Part{Type: providers.PartText, Text: text})
	return msg
}

// refreshInstructions re-reads the project instructions section: at a
// compaction (the cached prefix is lost with the history anyway) and at
// /clear, never in the middle of a session.
func (a *Agent) refreshInstructions(ctx context.Context) {
	if a.opts.RefreshInstructions == nil {
		return
	}
	a.opts.Prompt.Instructions = a.opts.RefreshInstructions(ctx)
	a.buildBase()
}
