package memory

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Memories in a database (issue 26, [storage].backend = "postgres"): the
// same memories as the files, one row each, which every replica of
// `clawseed serve` shares. A database keeps the rows ([Rows],
// runtime/pgstore's Memories); [RowStore] is the memory store over them,
// with the rules of [Store] — the same checks, names, file names, scopes,
// MEMORY.md text and recall score — so that a session's system prompt is
// the same bytes on either backend for the same memories.
//
// A row has the place its file has in the files store: its folder key
// (the folder relative to the memory dir: "user", "projects/<key>", a
// subagent's "user/agents/<agent>"...) and its file name there
// ("<slug>.md", "<slug>-2.md"). A memory's Path is made from them, under
// the configured memory dir, though no such file exists: it names the
// memory in tool results, the <memory_context> block and recall's
// exclusions alike on both backends.
//
// What stays with the files: the daily logs and their distillation, the
// knowledge graph (index.db) and hand edits of memory files.

// A Row is one memory as a database keeps it: Memory's Name, Description,
// Type, Body, Created and Updated (its Path, Scope and Agent are the
// store's to fill), the key of its folder and its file name there.
type Row struct {
	Folder, File string
	Memory
}

// A Search asks a database for the memories that hold some words.
type Search struct {
	// Folders are the folder keys searched.
	Folders []string
	// Terms are the query's words as Recall splits them (lower-case
	// letters and digits, at most 16), each matched as the database's
	// full-text search matches a word, stemmed.
	Terms []string
	// Type, when set, keeps the memories of that type only.
	Type string
	// Limit is how many rows to return: the best.
	Limit int
}

// A Match is a row holding at least one of a Search's terms: Words has bit
// i set when the row holds Terms[i], Head when its name or description
// does; Rank is the database's own relevance (higher is better), which
// breaks ties of the score.
type Match struct {
	Row
	Words, Head uint32
	Rank        float64
}

// Rows is a database of memory rows. In one folder, names are distinct and
// so are files. Every method is safe for concurrent use, by several
// processes too.
type Rows interface {
	// Location names the database in messages.
	Location() string
	// List returns the rows of folders, in any order, with their bodies
	// only when bodies is set.
	List(ctx context.Context, folders []string, bodies bool) ([]Row, error)
	// Get returns the row of folder called name; found is false when
	// there is none.
	Get(ctx context.Context, folder, name string) (r Row, found bool, err error)
	// GetFile returns the row of folder whose file is file.
	GetFile(ctx context.Context, folder, file string) (r Row, found bool, err error)
	// Search returns at most q.Limit rows of q.Folders holding at least
	// one of q.Terms, the best first: by the sum over the terms of 5 for
	// a term in the name or description and 3 for one in the body only
	// (the order of the score Recall gives them), then Rank (descending),
	// then name.
	Search(ctx context.Context, q Search) ([]Match, error)
	// Update runs fn in one transaction holding the write lock of each
	// of folders (other Updates of these folders wait, in every process);
	// fn's error rolls it back.
	Update(ctx context.Context, folders []string, fn func(RowsTx) error) error
}

// RowsTx is the transaction of [Rows.Update].
type RowsTx interface {
	Get(ctx context.Context, folder, name string) (r Row, found bool, err error)
	// Files returns the file names of folder's rows.
	Files(ctx context.Context, folder string) (map[string]bool, error)
	// Put stores r: a new row, or the row of its folder with its name
	// replaced whole.
	Put(ctx context.Context, r Row) error
	// Delete removes the row of folder called name, if any.
	Delete(ctx context.Context, folder, name string) error
	// Clear removes every row of folder and returns how many there were.
	Clear(ctx context.Context, folder string) (int, error)
}

// rowsTimeout bounds what is read without a caller's context: the
// MEMORY.md text of the prompt's `## Memory` section (the agent asks
// for it without one) and the memories model-based recall names.
const rowsTimeout = 30 * time.Second

// A RowStore is the memory store of one workspace (or one subagent) over a
// database's rows: the methods of [Store] that a session and the memory
// commands use, with the same results. It is safe for concurrent use.
type RowStore struct {
	layout
	rows Rows
	now  func() time.Time
}

// OpenRows returns the store of opts (Dir is the memory dir the rows'
// paths are made under; nothing is read or written there) over rows.
func OpenRows(opts Options, rows Rows) (*RowStore, error) {
	l, err := newLayout(opts)
	if err != nil {
		return nil, err
	}
	s := &RowStore{layout: l, rows: rows, now: opts.Now}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Location names where the memories are kept, for messages: the database,
// and a subagent's folder key.
func (s *RowStore) Location() string {
	if s.agent != "" {
		return s.rows.Location() + " (" + s.areas[0].key + ")"
	}
	return s.rows.Location()
}

// Close does nothing: the database is its opener's.
func (s *RowStore) Close() error { return nil }

// memory fills the Path, Scope and Agent of a row's memory.
func (s *RowStore) memory(r Row) Memory {
	m := r.Memory
	m.Path = s.path(r.Folder, r.File)
	m.Scope, m.Agent = s.scopeOfKey(r.Folder), s.agent
	return m
}

// scopeOfKey returns the scope of the folder key.
func (s *RowStore) scopeOfKey(key string) string {
	for _, a := range s.areas {
		if a.key == key {
			return a.scope
		}
	}
	return ""
}

// Save stores m as [Store.Save] does: checked the same way, a memory with
// the same name (in either scope) updated in place with its Created time
// kept, moved when its type moves it to the other scope, a new one given
// the file name the files store would give it.
func (s *RowStore) Save(ctx context.Context, m Memory) (saved Memory, created bool, err error) {
	m, err = check(m)
	if err != nil {
		return Memory{}, false, err
	}
	a, ok := s.area(s.scopeFor(m.Type))
	if !ok {
		return Memory{}, false, needsWorkspace(m)
	}
	now := s.now().UTC().Truncate(time.Second)
	err = s.rows.Update(ctx, s.keys(), func(tx RowsTx) error {
		m.Created, m.Updated = now, now
		file := ""
		created = true
		for _, other := range s.areas {
			old, found, err := tx.Get(ctx, other.key, m.Name)
			if err != nil {
				return err
			}
			if !found {
				continue
			}
			created = false
			if !old.Created.IsZero() {
				m.Created = old.Created
			}
			if other.key == a.key {
				file = old.File
			} else if err := tx.Delete(ctx, other.key, m.Name); err != nil {
				return err
			}
		}
		if file == "" {
			taken, err := tx.Files(ctx, a.key)
			if err != nil {
				return err
			}
			if file, err = freeFile(Slug(m.Name), func(f string) bool { return taken[f] }); err != nil {
				return err
			}
		}
		r := Row{Folder: a.key, File: file, Memory: m}
		saved = s.memory(r)
		return tx.Put(ctx, r)
	})
	if err != nil {
		return Memory{}, false, fmtRows("save", m.Name, err)
	}
	return saved, created, nil
}

// Forget deletes every memory called name (project scope first) and
// returns the first, as [Store.Forget] does.
func (s *RowStore) Forget(ctx context.Context, name string) (Memory, error) {
	name = strings.TrimSpace(name)
	var first *Memory
	err := s.rows.Update(ctx, s.keys(), func(tx RowsTx) error {
		first = nil // a retried transaction starts over
		for _, a := range s.areas {
			r, found, err := tx.Get(ctx, a.key, name)
			if err != nil {
				return err
			}
			if !found {
				continue
			}
			if err := tx.Delete(ctx, a.key, name); err != nil {
				return err
			}
			if first == nil {
				m := s.memory(r)
				first = &m
			}
		}
		return nil
	})
	if err != nil {
		return Memory{}, fmtRows("forget", name, err)
	}
	if first == nil {
		return Memory{}, notFound(name)
	}
	return *first, nil
}

// Get returns the memory called name, looking in the project scope first.
func (s *RowStore) Get(ctx context.Context, name string) (Memory, error) {
	name = strings.TrimSpace(name)
	for _, a := range s.areas {
		r, found, err := s.rows.Get(ctx, a.key, name)
		if err != nil {
			return Memory{}, fmtRows("get", name, err)
		}
		if found {
			return s.memory(r), nil
		}
	}
	return Memory{}, notFound(name)
}

// List returns the memories of both scopes sorted by scope (project, then
// user) and name, as [Store.List] does; a database has no malformed file
// to report.
func (s *RowStore) List(ctx context.Context) ([]Memory, []Diagnostic, error) {
	byArea, err := s.byArea(ctx, true)
	if err != nil {
		return nil, nil, err
	}
	var all []Memory
	for _, a := range s.areas {
		all = append(all, byArea[a.key]...)
	}
	return all, nil, nil
}

// byArea reads the memories of the store's folders, each folder's sorted
// as the files store sorts it.
func (s *RowStore) byArea(ctx context.Context, bodies bool) (map[string][]Memory, error) {
	rows, err := s.rows.List(ctx, s.keys(), bodies)
	if err != nil {
		return nil, fmtRows("list", "", err)
	}
	out := map[string][]Memory{}
	for _, r := range rows {
		out[r.Folder] = append(out[r.Folder], s.memory(r))
	}
	for _, ms := range out {
		sortFolder(ms)
	}
	return out, nil
}

// Purge deletes every memory of scope ("project", "user" or "all").
func (s *RowStore) Purge(ctx context.Context, scope string) (int, error) {
	scopes, err := s.purgeScopes(scope)
	if err != nil {
		return 0, err
	}
	n := 0
	err = s.rows.Update(ctx, s.keys(), func(tx RowsTx) error {
		n = 0
		for _, sc := range scopes {
			a, ok := s.area(sc)
			if !ok {
				continue
			}
			c, err := tx.Clear(ctx, a.key)
			if err != nil {
				return err
			}
			n += c
		}
		return nil
	})
	if err != nil {
		return 0, fmtRows("purge", "", err)
	}
	return n, nil
}

// Indexes returns the user and project MEMORY.md as the files store would
// have them, first 200 lines each, "" for a folder without memories (and
// when the database cannot be read: the prompt then shows the memory
// empty, as with an unreadable MEMORY.md).
func (s *RowStore) Indexes() (user, project string) {
	if s.agent != "" {
		return "", "" // a subagent's index is AgentIndex
	}
	idx := s.indexes()
	for _, a := range s.areas {
		switch a.scope {
		case ScopeUser:
			user = idx[a.key]
		case ScopeProject:
			project = idx[a.key]
		}
	}
	return user, project
}

// AgentIndex returns a subagent's MEMORY.md, "" for the main memory's
// store or when it has no memories.
func (s *RowStore) AgentIndex() string {
	if s.agent == "" {
		return ""
	}
	return s.indexes()[s.areas[0].key]
}

// indexes renders the MEMORY.md of each folder, by key.
func (s *RowStore) indexes() map[string]string {
	ctx, cancel := context.WithTimeout(context.Background(), rowsTimeout)
	defer cancel()
	byArea, err := s.byArea(ctx, false)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, a := range s.areas {
		out[a.key] = firstLines(renderIndex(a.title, byArea[a.key]), indexLines)
	}
	return out
}

// Export renders all memories as one document, as [Store.Export] does.
func (s *RowStore) Export(ctx context.Context, format string) (string, error) {
	ms, _, err := s.List(ctx)
	if err != nil {
		return "", err
	}
	return exportDocument(ms, format)
}

// needsWorkspace is the error of saving a memory of the project scope in a
// store without one.
func needsWorkspace(m Memory) error {
	return fmt.Errorf("memory %q: %w: type %s needs a workspace", m.Name, ErrInvalid, m.Type)
}

// notFound is the error of a name no memory has.
func notFound(name string) error {
	return fmt.Errorf("memory %q: %w", name, ErrNotFound)
}

// fmtRows wraps an error of the database with what was done.
func fmtRows(op, name string, err error) error {
	if name != "" {
		return fmt.Errorf("memory %q: %s: %w", name, op, err)
	}
	return fmt.Errorf("memory: %s: %w", op, err)
}
