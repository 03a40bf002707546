package app

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/memory"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/subagents"
)

// Subagent memory (issue 24, part 3): a definition with `memory: user |
// project | local` has a folder of its own in the session's memory dir
// (runtime/memory's AgentFolder makes the path from the scope and the
// name, so a definition, a repository's included, chooses neither the
// memory dir, which an untrusted project file cannot set, nor a path
// outside it). Its MEMORY.md is in its `## Memory` section and its memory
// tools are bound to that folder, in place of the session's; automatic
// recall searches it too when the user's message names the subagent.

// OpenSubagentMemory opens the own memory of def, which has a `memory`
// scope, in cfg's memory dir (or its folder's rows in the database): for
// `memory --agent` and the session. Opening creates nothing. The caller
// closes it.
func OpenSubagentMemory(ctx context.Context, cfg *config.Config, p *Process, def *subagents.Definition) (MemoryStore, error) {
	if def.Memory == "" {
		return nil, errors.New("subagent " + def.Name + " has no memory (its definition sets no `memory` scope)")
	}
	return openMemoryStore(ctx, cfg, p, subagentMemoryOptions(cfg, def))
}

func subagentMemoryOptions(cfg *config.Config, def *subagents.Definition) memory.Options {
	return memory.Options{Dir: cfg.MemoryDir(), Workspace: cfg.Workspace, Agent: def.Name, AgentScope: def.Memory}
}

// SubagentMemoryFolder says where def's own memory is kept in cfg, for
// `agents list` and /agents: its folder (with the postgres backend, the
// folder key its rows have in the database, which is not opened for it),
// or "" and why it has none (no `memory` scope: ""; memory off, no
// workspace for a project scope, a folder refused).
func SubagentMemoryFolder(cfg *config.Config, def *subagents.Definition) (folder, why string) {
	switch {
	case def.Memory == "":
		return "", ""
	case !cfg.Memory.Enabled:
		return "", "memory is off ([memory].enabled = false)"
	}
	if cfg.Storage.Backend == config.StoragePostgres {
		key, err := memory.AgentFolderKey(subagentMemoryOptions(cfg, def))
		if err != nil {
			return "", err.Error()
		}
		return "database: " + key, ""
	}
	s, err := OpenSubagentMemory(context.Background(), cfg, nil, def)
	if err != nil {
		return "", err.Error()
	}
	defer s.Close()
	return s.AgentFolder(), ""
}

// subagentMemories are the own memories of a session's subagents, one
// store per definition, opened when first needed and closed with the
// session. Subagents run at once may ask together.
type subagentMemories struct {
	cfg  *config.Config
	proc *Process
	// defs are the definitions with a `memory` scope, sorted by name.
	defs []*subagents.Definition

	mu     sync.Mutex
	stores map[*subagents.Definition]MemoryStore
}

// newSubagentMemories returns the own memories of cat's subagents, nil when
// the session has no memory (main is nil: [memory] off or unavailable),
// in which case a subagent with `memory` runs as one without.
func newSubagentMemories(cfg *config.Config, p *Process, main MemoryStore, cat *subagents.Catalog) *subagentMemories {
	if main == nil || cat == nil {
		return nil
	}
	m := &subagentMemories{cfg: cfg, proc: p, stores: map[*subagents.Definition]MemoryStore{}}
	for _, d := range cat.Agents { // sorted by name
		if d.Memory != "" {
			m.defs = append(m.defs, d)
		}
	}
	return m
}

// store returns def's store, opening it the first time.
func (m *subagentMemories) store(def *subagents.Definition) (MemoryStore, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.stores[def]; ok {
		return s, nil
	}
	// Opening reads nothing but where the folder's links lead.
	s, err := OpenSubagentMemory(context.Background(), m.cfg, m.proc, def)
	if err != nil {
		return nil, err
	}
	m.stores[def] = s
	return s, nil
}

// forAgent is the agent's [agent.Options.SubagentMemory], nil without
// memory.
func (m *subagentMemories) forAgent() func(*subagents.Definition) (*agent.SubagentMemory, error) {
	if m == nil {
		return nil
	}
	return func(def *subagents.Definition) (*agent.SubagentMemory, error) {
		s, err := m.store(def)
		if err != nil {
			return nil, err
		}
		own := tools.MemoryTools(s)
		ts := make([]agent.Tool, len(own))
		for i, t := range own {
			ts[i] = t
		}
		return &agent.SubagentMemory{Scope: s.AgentScope(), Folder: s.AgentFolder(), Index: s.AgentIndex, Tools: ts}, nil
	}
}

// Close closes the stores opened.
func (m *subagentMemories) Close() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	for _, s := range m.stores {
		errs = append(errs, s.Close())
	}
	clear(m.stores)
	return errors.Join(errs...)
}

// recallStore returns what automatic recall searches: main, plus the own
// memories of the subagents a message names ([subagentRecall]).
func (m *subagentMemories) recallStore(main recallStore) recallStore {
	if m == nil || len(m.defs) == 0 {
		return main
	}
	return subagentRecall{main: main, subs: m}
}

// subagentRecall is the session's memory for automatic recall, plus the
// own memory of each subagent whose name the message holds as a word
// ([namesSubagent]): the user asking about "the reviewer's notes" gets the
// reviewer's memories. The hits of all are ranked together by score; ties
// keep the session's memory first, then the subagents by name, so the
// same files give the same block. A subagent's hits carry its name
// (Memory.Agent), which the block shows. A subagent memory that fails is
// left out, as a failing index is: recall is a help.
type subagentRecall struct {
	main recallStore
	subs *subagentMemories
}

func (r subagentRecall) Dir() string { return r.main.Dir() }

func (r subagentRecall) Recall(ctx context.Context, q memory.RecallQuery) ([]memory.Hit, error) {
	hits, err := r.main.Recall(ctx, q)
	if err != nil {
		return nil, err
	}
	for _, def := range r.subs.defs {
		if !namesSubagent(q.Query, def.Name) {
			continue
		}
		s, err := r.subs.store(def)
		if err != nil {
			continue
		}
		more, err := s.Recall(ctx, q)
		if err != nil {
			continue
		}
		hits = append(hits, more...)
	}
	slices.SortStableFunc(hits, func(a, b memory.Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	if q.Limit > 0 && len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	return hits, nil
}

// namesSubagent reports whether text holds name as a word, in any case:
// not inside a longer name ("reviewer" is not named by "code-reviewer" or
// "reviewers"), a trailing dot being the sentence's ("ask the reviewer.").
func namesSubagent(text, name string) bool {
	if name == "" {
		return false
	}
	lower, n := strings.ToLower(text), strings.ToLower(name)
	for off := 0; ; {
		i := strings.Index(lower[off:], n)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(n)
		if (start == 0 || !nameByte(lower[start-1]) && lower[start-1] != '.' && lower[start-1] != ':') && (end == len(lower) || !nameByte(lower[end]) && !joinsName(lower, end)) {
			return true
		}
		off = start + 1
	}
}

// nameByte reports whether c continues a subagent's name wherever it is:
// letters, digits, '_' and '-' ('.' and ':' only inside, see joinsName).
// Bytes of multi-byte runes count, so "réviewer" does not name "viewer".
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c >= 0x80
}

// joinsName reports whether the byte at i is a '.' or ':' inside a longer
// name ("reviewer.md", "reviewer:fast"), not punctuation after one ("ask
// the reviewer.", "reviewer: look").
func joinsName(s string, i int) bool {
	return (s[i] == '.' || s[i] == ':') && i+1 < len(s) && nameByte(s[i+1])
}
