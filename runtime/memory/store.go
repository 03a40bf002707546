package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clawseed/clawseed/internal/atomicfile"
	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/flock"
)

const indexFile = "MEMORY.md"

// Save writes m as a file. A memory with the same name (in either scope) is
// updated in place and keeps its Created time; when its type moves it to the
// other scope the old file is removed, so a name is never stored twice. The
// affected folders' MEMORY.md are regenerated before Save returns.
func (s *Store) Save(ctx context.Context, m Memory) (saved Memory, created bool, err error) {
	m, err = check(m)
	if err != nil {
		return Memory{}, false, err
	}
	m.Scope, m.Agent = s.scopeFor(m.Type), s.agent
	folder := s.folder(m.Scope)
	if folder == "" {
		return Memory{}, false, needsWorkspace(m)
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return Memory{}, false, err
	}
	defer unlock()

	now := s.now().UTC().Truncate(time.Second)
	m.Created, m.Updated = now, now
	path := ""
	var moved []Memory // same name in the other scope
	for _, scope := range s.scopes() {
		old, err := s.findLocked(scope, m.Name)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return Memory{}, false, err
		}
		if !old.Created.IsZero() {
			m.Created = old.Created
		}
		if scope == m.Scope {
			path = old.Path
		} else {
			moved = append(moved, old)
		}
	}
	created = path == "" && len(moved) == 0
	if err := s.keepLocal(); err != nil {
		return Memory{}, false, err
	}
	if path == "" {
		if path, err = freePath(folder, Slug(m.Name)); err != nil {
			return Memory{}, false, err
		}
	}
	m.Path = path
	data, err := render(m)
	if err != nil {
		return Memory{}, false, err
	}
	if err := writeAtomic(path, data); err != nil {
		return Memory{}, false, err
	}
	for _, old := range moved {
		if err := os.Remove(old.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Memory{}, false, fmt.Errorf("memory: remove %s: %w", old.Path, err)
		}
		if err := s.regenerate(old.Scope); err != nil {
			return Memory{}, false, err
		}
	}
	return m, created, s.regenerate(m.Scope)
}

// Forget deletes every memory called name (project scope first; normally
// there is only one) and returns the first.
func (s *Store) Forget(ctx context.Context, name string) (Memory, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return Memory{}, err
	}
	defer unlock()
	var first *Memory
	for _, scope := range s.scopes() {
		m, err := s.findLocked(scope, strings.TrimSpace(name))
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return Memory{}, err
		}
		if err := os.Remove(m.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Memory{}, fmt.Errorf("memory: remove %s: %w", m.Path, err)
		}
		if err := s.regenerate(scope); err != nil {
			return Memory{}, err
		}
		if first == nil {
			first = &m
		}
	}
	if first == nil {
		return Memory{}, fmt.Errorf("memory %q: %w", name, ErrNotFound)
	}
	return *first, nil
}

// Get returns the memory called name, looking in the project scope first.
func (s *Store) Get(ctx context.Context, name string) (Memory, error) {
	for _, scope := range s.scopes() {
		m, err := s.findLocked(scope, strings.TrimSpace(name))
		if !errors.Is(err, ErrNotFound) {
			return m, err
		}
	}
	return Memory{}, fmt.Errorf("memory %q: %w", name, ErrNotFound)
}

// List returns the memories of both scopes sorted by scope (project, then
// user) and name, and a diagnostic for each file that could not be parsed.
func (s *Store) List(ctx context.Context) ([]Memory, []Diagnostic, error) {
	var all []Memory
	var diags []Diagnostic
	for _, scope := range s.scopes() {
		ms, ds, err := s.readFolder(scope)
		if err != nil {
			return nil, nil, err
		}
		all = append(all, ms...)
		diags = append(diags, ds...)
	}
	return all, diags, nil
}

// Purge deletes every memory file of scope ("project", "user" or "all") and
// the folder's MEMORY.md. Malformed .md files are deleted too: the user asked
// for the scope to be empty.
func (s *Store) Purge(ctx context.Context, scope string) (int, error) {
	scopes, err := s.purgeScopes(scope)
	if err != nil {
		return 0, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return 0, err
	}
	defer unlock()
	n := 0
	for _, sc := range scopes {
		folder := s.folder(sc)
		if folder == "" {
			continue
		}
		names, err := memoryFiles(folder)
		if err != nil {
			return n, err
		}
		for _, name := range names {
			if err := os.Remove(filepath.Join(folder, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return n, fmt.Errorf("memory: purge %s: %w", filepath.Join(folder, name), err)
			}
			n++
		}
		if err := s.regenerate(sc); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Indexes returns the user and project MEMORY.md as on disk, first 200 lines
// each, "" when absent. A folder whose MEMORY.md no longer matches its files
// (a memory added, edited or deleted by hand) is regenerated first, which is
// how a hand edit reaches the next session's prompt; that repair is best
// effort, and on failure the text on disk is returned.
func (s *Store) Indexes() (user, project string) {
	if s.agent != "" {
		return "", "" // a subagent's index is AgentIndex
	}
	return s.index(ScopeUser), s.index(ScopeProject)
}

// index returns the MEMORY.md of scope, repaired first: see [Store.Indexes].
func (s *Store) index(scope string) string {
	folder := s.folder(scope)
	if folder == "" {
		return ""
	}
	_ = s.syncIndexFile(context.Background(), scope)
	data, _, err := s.readFile(filepath.Join(folder, indexFile))
	if err != nil {
		return ""
	}
	return firstLines(string(data), indexLines)
}

// Export renders all memories as one document: "markdown" (each file's text
// under a heading naming it) or "json" (an array of objects).
func (s *Store) Export(ctx context.Context, format string) (string, error) {
	ms, _, err := s.List(ctx)
	if err != nil {
		return "", err
	}
	return exportDocument(ms, format)
}

// lock takes the in-process mutex and the file lock on <dir>/.lock, which
// excludes other processes (and other Stores of this one), waiting for
// either until ctx ends. A subagent's store checks its folder again before
// each write ([Store.checkAgentFolder]).
func (s *Store) lock(ctx context.Context) (func(), error) {
	if err := s.checkAgentFolder(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	unlockDir, err := lockDir(ctx, s.dir)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	return func() { unlockDir(); s.mu.Unlock() }, nil
}

// lockDir creates dir if needed and takes its file lock, <dir>/.lock.
func lockDir(ctx context.Context, dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("memory: create %s: %w", dir, err)
	}
	unlock, err = flock.LockContext(ctx, filepath.Join(dir, ".lock"))
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	return unlock, nil
}

// findLocked finds the memory called name in scope: the slug's file first
// (the usual case, one read), then every file, for hand-made files whose
// name does not match their file name.
func (s *Store) findLocked(scope, name string) (Memory, error) {
	folder := s.folder(scope)
	if folder == "" {
		return Memory{}, fmt.Errorf("memory %q: %w", name, ErrNotFound)
	}
	if m, err := s.readMemory(filepath.Join(folder, Slug(name)+".md"), scope); err == nil && m.Name == name {
		return m, nil
	}
	ms, _, err := s.readFolder(scope)
	if err != nil {
		return Memory{}, err
	}
	for _, m := range ms {
		if m.Name == name {
			return m, nil
		}
	}
	return Memory{}, fmt.Errorf("memory %q: %w", name, ErrNotFound)
}

// readFolder parses every memory file of scope, sorted by name then path.
func (s *Store) readFolder(scope string) ([]Memory, []Diagnostic, error) {
	folder := s.folder(scope)
	if folder == "" {
		return nil, nil, nil
	}
	names, err := memoryFiles(folder)
	if err != nil {
		return nil, nil, err
	}
	var ms []Memory
	var diags []Diagnostic
	for _, name := range names {
		path := filepath.Join(folder, name)
		m, err := s.readMemory(path, scope)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted since the directory was read
		}
		if err != nil {
			diags = append(diags, Diagnostic{Path: path, Message: err.Error()})
			continue
		}
		ms = append(ms, m)
	}
	sortFolder(ms)
	return ms, diags, nil
}

// sortFolder sorts the memories of one folder as List and MEMORY.md list
// them: by name, then path.
func sortFolder(ms []Memory) {
	slices.SortStableFunc(ms, func(a, b Memory) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
}

// memoryFiles lists the memory file names of folder, sorted: *.md files
// except MEMORY.md and hidden files (editor swap and our temp files).
func memoryFiles(folder string) ([]string, error) {
	ents, err := os.ReadDir(folder)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("memory: read %s: %w", folder, err)
	}
	var names []string
	for _, e := range ents {
		if isMemoryFile(e.Name()) && !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

func isMemoryFile(name string) bool {
	return strings.HasSuffix(name, ".md") && name != indexFile && !strings.HasPrefix(name, ".")
}

// readMemory reads and parses one file, filling times from the file's mtime
// when the frontmatter has none (a hand-made file).
func (s *Store) readMemory(path, scope string) (Memory, error) {
	data, fi, err := s.readFile(path)
	if err != nil {
		return Memory{}, err
	}
	m, err := ParseFile(path, data)
	if err != nil {
		return Memory{}, err
	}
	fillDefaults(&m, scope, fi.ModTime())
	m.Agent = s.agent
	return m, nil
}

// readFile reads a file of the memory folder through [confine.Read]: a
// regular file (a FIFO there would block every session's start) of at most
// maxFileBytes whose real path is inside the memory folder — the folder may
// be a [memory].dir in a workspace, and a memory file that links elsewhere
// would be recalled into the prompt; a subagent's store, inside its own
// folder, so that a link cannot show it the main memories. A missing file
// is fs.ErrNotExist; other errors name path.
func (s *Store) readFile(path string) ([]byte, fs.FileInfo, error) {
	root := s.dir
	if s.agent != "" {
		root = s.folder(s.areas[0].scope)
	}
	data, fi, err := confine.ReadInfo(path, confine.Options{Roots: []string{root}, Max: maxFileBytes})
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return data, fi, err
	}
	return nil, nil, &fileError{path: path, err: err}
}

// A fileError is a memory file [Store.readFile] could not or would not read.
type fileError struct {
	path string
	err  error
}

func (e *fileError) Error() string {
	if r, ok := errors.AsType[*confine.Refusal](e.err); ok && r.Reason == confine.TooLarge && r.Size >= 0 {
		return fmt.Sprintf("%s: file is larger than %d bytes", e.path, maxFileBytes)
	}
	return e.path + ": " + confine.Why(e.err)
}

func (e *fileError) Unwrap() error { return e.err }

func fillDefaults(m *Memory, scope string, mtime time.Time) {
	m.Scope = scope
	if m.Updated.IsZero() {
		m.Updated = mtime.UTC().Truncate(time.Second)
	}
	if m.Created.IsZero() {
		m.Created = m.Updated
	}
}

// freePath returns folder/<slug>.md, or slug-2, slug-3, … when another
// memory whose name has the same slug holds it.
func freePath(folder, slug string) (string, error) {
	name, err := freeFile(slug, func(file string) bool {
		_, err := os.Lstat(filepath.Join(folder, file))
		return !errors.Is(err, fs.ErrNotExist)
	})
	if err != nil {
		return "", fmt.Errorf("%w in %s", err, folder)
	}
	return filepath.Join(folder, name), nil
}

// freeFile returns the file name of a new memory whose name has slug:
// <slug>.md, or <slug>-2.md, <slug>-3.md, … when taken says another
// memory holds it. Every store names files by this rule.
func freeFile(slug string, taken func(file string) bool) (string, error) {
	for i := 1; i < 1000; i++ {
		name := slug
		if i > 1 {
			name = fmt.Sprintf("%s-%d", slug, i)
		}
		if !taken(name + ".md") {
			return name + ".md", nil
		}
	}
	return "", fmt.Errorf("memory: no free file name for %q", slug)
}

// writeAtomic writes data to path through a temp file in the same folder and
// a rename, so readers (and a crash) see the old file or the new one, never
// a torn one.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("memory: create %s: %w", dir, err)
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	return nil
}

func firstLines(s string, n int) string {
	off := 0
	for i := 0; i < n; i++ {
		j := strings.IndexByte(s[off:], '\n')
		if j < 0 {
			return s
		}
		off += j + 1
	}
	return s[:off]
}

// Location names where the memories are kept, for messages: the memory
// dir, or a subagent's folder.
func (s *Store) Location() string {
	if f := s.AgentFolder(); f != "" {
		return f
	}
	return s.dir
}
