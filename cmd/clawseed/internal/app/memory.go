package app

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/memory"
	"github.com/clawseed/clawseed/runtime/tools"
)

// Automatic recall (§8): at most this many memories, each cut to this many
// characters, are prefixed to a user message.
const (
	autoRecallHits  = 3
	autoRecallChars = 700
)

// recallStore is what automatic recall needs of a memory store: Recall
// for full-text recall, Manifest and ReadEntry for model-based recall.
type recallStore interface {
	Recall(ctx context.Context, q memory.RecallQuery) ([]memory.Hit, error)
	Manifest(ctx context.Context, exclude []string, limit int) ([]memory.ManifestEntry, error)
	ReadEntry(file string) (memory.Memory, error)
	Dir() string
}

// recallReach returns the memory the automatic recall of a message
// searches. Both recall modes ask it, so that they reach the same stores:
// the session's memory and the own memories of the subagents the message
// names ([subagentMemories.reach]).
type recallReach func(text string) recallStore

// memoryRecaller returns the agent's [agent.Recaller] for full-text
// recall: the best matches above [memory.DefaultMinScore] in the memory
// the message reaches, not recalled before in the session, each with its
// file (relative to the memory folder) and the date it was last updated.
// A failing index recalls nothing: recall is a help, never a reason for a
// turn to fail.
func memoryRecaller(reach recallReach) agent.Recaller {
	return func(ctx context.Context, text string, exclude []string) (string, []string) {
		store := reach(text)
		hits, err := store.Recall(ctx, memory.RecallQuery{Query: text, Limit: autoRecallHits, MinScore: memory.DefaultMinScore, Exclude: exclude})
		if err != nil || len(hits) == 0 {
			return "", nil
		}
		var b strings.Builder
		var used []string
		b.WriteString("<memory_context>\nMemories that may be relevant (verify before relying on them):\n")
		for _, h := range hits {
			m := h.Memory
			rel, err := filepath.Rel(store.Dir(), m.Path)
			if err != nil {
				rel = filepath.Base(m.Path)
			}
			fmt.Fprintf(&b, "\n[%s, updated %s] %s — %s\n%s\n", recalledFile(filepath.ToSlash(rel), m), m.Updated.Format("2006-01-02"), m.Name, m.Description, clipRunes(strings.TrimSpace(m.Body), autoRecallChars))
			used = append(used, m.Path)
		}
		b.WriteString("</memory_context>\n\n")
		return b.String(), used
	}
}

// recalledFile is how a recalled memory's heading names it, in both recall
// modes: its file, after "subagent NAME: " when it is a subagent's own
// memory (the manifest of model-based recall names it so too).
func recalledFile(file string, m memory.Memory) string {
	if m.Agent != "" {
		return "subagent " + m.Agent + ": " + file
	}
	return file
}

// clipRunes cuts s to n runes, marking the cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// MemoryStore is the long-term memory a session and the memory commands
// use: the Markdown files ([memory.Store]) or a database's rows
// ([memory.RowStore] over runtime/pgstore), as [storage].backend says
// ([OpenMemory]); runtime/memory/memorytest checks that both behave alike.
// The memory tools take their part of it (tools.MemoryStore), the agent
// its MEMORY.md indexes (agent.MemoryIndex).
type MemoryStore interface {
	tools.MemoryStore // Save, Recall, Forget, Export, Purge
	Get(ctx context.Context, name string) (memory.Memory, error)
	List(ctx context.Context) ([]memory.Memory, []memory.Diagnostic, error)
	// Indexes are the user's and the project's MEMORY.md (the prompt's
	// `## Memory` section), AgentIndex a subagent's.
	Indexes() (user, project string)
	AgentIndex() string
	// AgentScope and AgentFolder are a subagent's store's scope and folder
	// ("" for the main memory's): its `## Memory` section names them.
	AgentScope() string
	AgentFolder() string
	// Manifest and ReadEntry are model-based recall's.
	Manifest(ctx context.Context, exclude []string, limit int) ([]memory.ManifestEntry, error)
	ReadEntry(file string) (memory.Memory, error)
	// Dir is the memory dir (the files' folder; the root of the rows'
	// paths), Folders the user and project folders in it.
	Dir() string
	Folders() (user, project string)
	// Location names where the memories are kept, for messages.
	Location() string
	Close() error
}

// OpenMemory opens the memory store of the configuration: [memory].dir,
// with this workspace's project folder, on the files or in the database
// ([OpenMemoryStore]). Opening creates nothing; folders and index.db
// appear on first use. The caller closes it.
func OpenMemory(ctx context.Context, cfg *config.Config, p *Process) (MemoryStore, error) {
	return openMemoryStore(ctx, cfg, p, memory.Options{Dir: cfg.MemoryDir(), Workspace: cfg.Workspace})
}

// sessionMemory opens the session's memory store when [memory].enabled; the
// tools, the prompt's `## Memory` section and automatic recall share it. A
// store that cannot be opened leaves memory off for the session (nil), with
// a warning: memory helps, and its absence must not stop the work.
func sessionMemory(ctx context.Context, cfg *config.Config, p *Process, log *slog.Logger) MemoryStore {
	if !cfg.Memory.Enabled {
		return nil
	}
	s, err := OpenMemory(ctx, cfg, p)
	if err != nil {
		log.Warn("Memory not available", "dir", cfg.MemoryDir(), "error", err)
		return nil
	}
	return s
}

// memoryIndex is the agent's [agent.MemoryIndex], nil (not a typed nil)
// when memory is off.
func memoryIndex(s MemoryStore) agent.MemoryIndex {
	if s == nil {
		return nil
	}
	return s
}

// memoryFiles is s when it keeps its memories in files, for what only the
// files have: the daily logs, the knowledge graph (index.db), the memory
// folders the extractor reads. nil for the database's store, and without
// memory.
func memoryFiles(s MemoryStore) *memory.Store {
	files, _ := s.(*memory.Store)
	return files
}

// autoRecall is the agent's recaller when [memory].auto_recall is on:
// full-text, or model-based with [memory].recall = "model" (rm is the model
// then, and full-text recall its fallback), both over the memory a message
// reaches: the session's, and the own memories of the subagents it names
// (subs).
func autoRecall(cfg *config.Config, s MemoryStore, subs *subagentMemories, rm recallModel) agent.Recaller {
	if s == nil || !cfg.Memory.AutoRecall {
		return nil
	}
	reach := subs.reach(s)
	fts := memoryRecaller(reach)
	if cfg.Memory.Recall != "model" {
		return fts
	}
	return modelRecaller(reach, rm, fts)
}
