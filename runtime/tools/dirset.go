package tools

import (
	"path/filepath"
	"sync"
	"sync/atomic"
)

// A ReadDir is a directory the file tools may read although it lies outside
// the workspace: a discovered skill directory, as reached from its root and
// with its links resolved.
type ReadDir struct {
	Path string // absolute, as reached
	Real string // absolute, symlink-free
}

// A DirSet holds the skill directories the file tools may read. Only the
// directories discovery found as skills are readable, never a whole skill
// root: a root may be a link to anywhere, and a readable root would make
// everything under it readable.
//
// Replace swaps the whole set at once, so a catalog rebuilt mid-session (by
// skill_create) applies from the next tool call; a DirSet is safe for
// concurrent use.
type DirSet struct {
	p atomic.Pointer[dirIndex]
}

// dirIndex maps a directory, by its path as reached and by its real path, to
// the directory it belongs to. The maps are built at the first lookup:
// Replace runs before a session's first request, with one directory per
// skill (10,000 of them cost milliseconds), and a file tool may never ask.
type dirIndex struct {
	dirs          func() []ReadDir
	once          sync.Once
	lexical, real map[string]sandboxRoot
}

// Replace makes dirs the readable directories; it keeps dirs.
func (s *DirSet) Replace(dirs []ReadDir) {
	s.ReplaceFunc(func() []ReadDir { return dirs })
}

// ReplaceFunc makes the directories dirs returns the readable ones. It is
// called once, by the first lookup, if there is one: listing 10,000 skill
// directories costs a pass over 10,000 skills at the start of a session
// whose file tools may never read one.
func (s *DirSet) ReplaceFunc(dirs func() []ReadDir) {
	s.p.Store(&dirIndex{dirs: dirs})
}

// build makes the maps, once.
func (idx *dirIndex) build() {
	idx.once.Do(func() {
		dirs := idx.dirs()
		idx.lexical = make(map[string]sandboxRoot, len(dirs))
		idx.real = make(map[string]sandboxRoot, len(dirs))
		for _, d := range dirs {
			if d.Path == "" || d.Real == "" {
				continue
			}
			r := sandboxRoot{lexical: filepath.Clean(d.Path), real: filepath.Clean(d.Real)}
			idx.lexical[r.lexical] = r
			idx.real[r.real] = r
		}
		idx.dirs = nil
	})
}

func (s *DirSet) index() *dirIndex {
	if s == nil {
		return nil
	}
	return s.p.Load()
}

// lookup returns the directory of the set that contains p (an absolute,
// clean path), comparing with the directories' real paths or their paths as
// reached. It walks p's ancestors, so its cost does not grow with the number
// of skills.
func (idx *dirIndex) lookup(p string, real bool) (sandboxRoot, bool) {
	if idx == nil {
		return sandboxRoot{}, false
	}
	idx.build()
	m := idx.lexical
	if real {
		m = idx.real
	}
	if len(m) == 0 {
		return sandboxRoot{}, false
	}
	for {
		if r, ok := m[p]; ok {
			return r, true
		}
		parent := filepath.Dir(p)
		if parent == p {
			return sandboxRoot{}, false
		}
		p = parent
	}
}
