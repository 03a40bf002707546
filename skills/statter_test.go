package skills

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStatterMatchesOS: the statter's stamps are those dirStamp and
// statSkillFile take through os, for every kind of file, so a warm start
// compares like with like.
func TestStatterMatchesOS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"d/SKILL.md": "x", "f": "y"})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(dir, "sticky"), 0o1755))
	must(os.Chmod(filepath.Join(dir, "sticky"), 0o1755|os.ModeSetgid))
	must(os.Symlink("d", filepath.Join(dir, "linkdir")))
	must(os.Symlink("f", filepath.Join(dir, "linkfile")))
	must(os.Symlink("missing", filepath.Join(dir, "dangling")))
	if err := mkfifo(filepath.Join(dir, "fifo")); err != nil {
		t.Logf("no fifo: %v", err)
	}
	must(os.WriteFile(filepath.Join(dir, "exec"), []byte("z"), 0o4755))
	var s statter
	defer s.close()
	// The statter keeps the folder above a path open between calls
	// (statter_linux.go): the names alternate between folders, and some
	// reach through a link or a file.
	names := []string{"d", "d/SKILL.md", "f", "sticky", "linkdir", "linkdir/SKILL.md", "linkfile", "dangling", "dangling/SKILL.md",
		"fifo", "exec", "missing", "missing/SKILL.md", "f/SKILL.md", "d/", "d\x00x", "d/SKILL.md", "sticky", "d/SKILL.md/x", "/", "."}
	for _, name := range names {
		path := filepath.Join(dir, name)
		switch name {
		case "d/", "d\x00x":
			path = dir + "/" + name
		case "/", ".":
			path = name
		}
		want, wantOK := fileStamp{}, false
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			want, wantOK = dirStamp(fi), true
		}
		if got, ok := s.dir(path); got != want || ok != wantOK {
			t.Errorf("dir(%q) = %+v %v, os gives %+v %v", name, got, ok, want, wantOK)
		}
		base, file := filepath.Dir(path), filepath.Base(path)
		wantF, wantFOK := statSkillFile(base, file)
		if got, ok := s.file(base, file); got != wantF || ok != wantFOK {
			t.Errorf("file(%q) = %+v %v, os gives %+v %v", name, got, ok, wantF, wantFOK)
		}
	}
}
