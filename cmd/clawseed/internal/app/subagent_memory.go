package app

import (
	"cmp"
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

// reach is the session's [recallReach], the one place that decides which
// memory the automatic recall of a message searches, in both recall modes:
// main, plus the own memory of each subagent whose name the message holds
// as a word ([namesSubagent]), so that the user asking about "the
// reviewer's notes" gets the reviewer's memories. A subagent memory that
// cannot be opened is left out, as a failing index is: recall is a help.
func (m *subagentMemories) reach(main recallStore) recallReach {
	return func(text string) recallStore {
		if m == nil {
			return main
		}
		stores := []recallStore{main}
		for _, def := range m.defs { // by name
			if !namesSubagent(text, def.Name) {
				continue
			}
			if s, err := m.store(def); err == nil {
				stores = append(stores, s)
			}
		}
		if len(stores) == 1 {
			return main
		}
		return recallUnion(stores)
	}
}

// recallUnion is the session's memory (first) with the own memories of the
// subagents a message names (by name), searched as one store. Their files
// are all in the same memory dir, each in folders of its own, so a file
// name (relative to the memory dir) belongs to one store only. A
// subagent's memory that fails is left out; only the session's failing
// fails the search (and model recall falls back to full text). Results
// depend on the files only: the same files give the same block.
type recallUnion []recallStore

func (u recallUnion) Dir() string { return u[0].Dir() }

// Recall ranks the hits of all by score; ties keep the session's memory
// first, then the subagents by name. A subagent's hits carry its name
// (Memory.Agent), which the block shows.
func (u recallUnion) Recall(ctx context.Context, q memory.RecallQuery) ([]memory.Hit, error) {
	hits, err := u[0].Recall(ctx, q)
	if err != nil {
		return nil, err
	}
	for _, s := range u[1:] {
		if more, err := s.Recall(ctx, q); err == nil {
			hits = append(hits, more...)
		}
	}
	slices.SortStableFunc(hits, func(a, b memory.Hit) int { return cmp.Compare(b.Score, a.Score) })
	if q.Limit > 0 && len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	return hits, nil
}

// Manifest lists the memories of all in a store's order (newest first, then
// by file), each subagent's entries naming it (ManifestEntry.Agent). Past
// limit, the named subagents' entries are kept before the session's: the
// message named them, and the session's newer memories would otherwise
// push them out of a manifest ordered by age, not by relevance.
func (u recallUnion) Manifest(ctx context.Context, exclude []string, limit int) ([]memory.ManifestEntry, error) {
	main, err := u[0].Manifest(ctx, exclude, limit)
	if err != nil {
		return nil, err
	}
	var own []memory.ManifestEntry
	for _, s := range u[1:] {
		if es, err := s.Manifest(ctx, exclude, limit); err == nil {
			own = append(own, es...)
		}
	}
	sortManifest(own)
	if limit > 0 {
		own = own[:min(len(own), limit)]
		main = main[:min(len(main), limit-len(own))]
	}
	out := append(own, main...)
	sortManifest(out)
	return out, nil
}

// sortManifest sorts entries as a store's Manifest does.
func sortManifest(es []memory.ManifestEntry) {
	slices.SortFunc(es, func(a, b memory.ManifestEntry) int {
		return cmp.Or(b.Updated.Compare(a.Updated), strings.Compare(a.File, b.File))
	})
}

// ReadEntry reads file from the store it belongs to: each store reads only
// files directly in its own folders and refuses any other name
// (memory.ErrNotFound), so at most one of them reads it.
func (u recallUnion) ReadEntry(file string) (memory.Memory, error) {
	var first error
	for _, s := range u {
		m, err := s.ReadEntry(file)
		if err == nil {
			return m, nil
		}
		if first == nil || errors.Is(first, memory.ErrNotFound) && !errors.Is(err, memory.ErrNotFound) {
			first = err // the store's own error over the others' refusals
		}
	}
	return memory.Memory{}, first
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
