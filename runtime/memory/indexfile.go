package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
)

// renderIndex is the MEMORY.md text of a folder's memories (already sorted
// by name): the folder's title, then "- [name](file.md) — description" per
// memory. Names are escaped so a "]" cannot break the link, and file names
// are URL-escaped so a hand-made "my notes.md" still links.
func renderIndex(title string, ms []Memory) string {
	if len(ms) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(title)
	esc := strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`)
	for _, m := range ms {
		file := (&url.URL{Path: filepath.Base(m.Path)}).EscapedPath()
		fmt.Fprintf(&b, "- [%s](%s) — %s\n", esc.Replace(m.Name), file, m.Description)
	}
	return b.String()
}

// regenerate rewrites the MEMORY.md of scope from its files (the caller
// holds the lock). A folder without memories has no MEMORY.md, so an empty
// index adds nothing to the prompt.
func (s *Store) regenerate(scope string) error {
	folder := s.folder(scope)
	if folder == "" {
		return nil
	}
	ms, _, err := s.readFolder(scope)
	if err != nil {
		return err
	}
	a, _ := s.area(scope)
	return writeIndex(folder, renderIndex(a.title, ms))
}

func writeIndex(folder, text string) error {
	path := filepath.Join(folder, indexFile)
	if text == "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("memory: remove %s: %w", path, err)
		}
		return nil
	}
	old, _, err := confine.ReadInfo(path, confine.Options{Roots: []string{folder}, Max: maxFileBytes})
	if err == nil && string(old) == text {
		return nil
	}
	return writeAtomic(path, []byte(text))
}

// syncIndexFile regenerates MEMORY.md of scope when it differs from the
// files (a hand edit). The check runs without the lock, the repair under it.
func (s *Store) syncIndexFile(ctx context.Context, scope string) error {
	folder := s.folder(scope)
	if folder == "" {
		return nil
	}
	if ok, err := s.indexCurrent(scope); err != nil || ok {
		return err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return s.regenerate(scope)
}

func (s *Store) indexCurrent(scope string) (bool, error) {
	ms, _, err := s.readFolder(scope)
	if err != nil {
		return false, err
	}
	a, _ := s.area(scope)
	want := renderIndex(a.title, ms)
	got, _, err := s.readFile(filepath.Join(s.folder(scope), indexFile))
	if errors.Is(err, fs.ErrNotExist) {
		return want == "", nil
	}
	if err != nil && confine.IsRefusal(err) {
		return false, nil // replaced by the regeneration
	}
	if err != nil {
		return false, fmt.Errorf("memory: read %s: %w", filepath.Join(s.folder(scope), indexFile), err)
	}
	return string(got) == want, nil
}
