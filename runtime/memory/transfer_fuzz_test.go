package memory

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCheckRow: a row's folder key and file name become a path when the
// rows are written as files, and a model names a file for ReadEntry: what
// CheckRow accepts is a memory file directly in a folder a store makes,
// inside the memory dir, and what entryArea accepts is in one of the
// store's own folders.
func FuzzCheckRow(f *testing.F) {
	for _, s := range [][2]string{
		{"user", "editor.md"}, {"user/agents/rev", "a.md"}, {"projects/p-1234/agents-local/x.1a2b", "b.md"},
		{"../etc", "x.md"}, {"user/../..", "x.md"}, {"user", "../x.md"}, {"user", "MEMORY.md"}, {"user", ".x.md"},
		{"projects", "x.md"}, {"user/agents", "x.md"}, {"projects/p/agents/../../x", "x.md"}, {`user\..`, "x.md"},
		{"user", `a\b.md`}, {"/user", "x.md"}, {"user/", "x.md"}, {"", "x.md"},
	} {
		f.Add(s[0], s[1])
	}
	dir := filepath.FromSlash("/m/memory")
	l, err := newLayout(Options{Dir: dir, Workspace: "/w"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, folder, file string) {
		r := Row{Folder: folder, File: file, Memory: Memory{Name: "n", Description: "d", Type: TypeUser}}
		if CheckRow(r) == nil {
			p := filepath.Join(dir, filepath.FromSlash(folder), file)
			rel, err := filepath.Rel(dir, p)
			if err != nil || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
				t.Fatalf("accepted %q %q leaves the memory dir: %s", folder, file, p)
			}
			if filepath.Dir(rel) != filepath.FromSlash(folder) || filepath.Base(p) != file || file == indexFile {
				t.Fatalf("accepted %q %q is not a file directly in its folder: %s", folder, file, rel)
			}
		}
		entry := folder + "/" + file
		if a, base, err := l.entryArea(entry); err == nil {
			if a.key != folder || base != file || !isMemoryFile(base) || strings.ContainsAny(base, `/\`) {
				t.Fatalf("entry %q: area %q, file %q", entry, a.key, base)
			}
		}
	})
}
