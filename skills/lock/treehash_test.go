package lock

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// write makes the files of a tree: path -> content; a path ending in "*"
// is executable.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, "*") {
			p, mode = strings.TrimSuffix(p, "*"), 0o755
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			t.Fatal(err)
		}
	}
}

func hexSum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestTreeHashFormat computes the documented byte format by hand.
func TestTreeHashFormat(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"SKILL.md": "# x\n", "scripts/run.sh*": "#!/bin/sh\n", "a b.txt": ""})
	// Byte order: "SKILL.md" < "a b.txt" < "scripts/run.sh".
	want := fmt.Sprintf("100644 %s SKILL.md\x00100644 %s a b.txt\x00100755 %s scripts/run.sh\x00",
		hexSum("# x\n"), hexSum(""), hexSum("#!/bin/sh\n"))
	got, err := TreeHash(dir)
	if err != nil {
		t.Fatal(err)
	}
	if w := "sha256:" + hexSum(want); got != w {
		t.Fatalf("TreeHash = %s, want %s", got, w)
	}
}

func TestTreeHashChanges(t *testing.T) {
	base := map[string]string{"SKILL.md": "# x\n", "scripts/run.sh*": "#!/bin/sh\n"}
	hashOf := func(t *testing.T, files map[string]string, edit func(dir string)) string {
		dir := t.TempDir()
		write(t, dir, files)
		if edit != nil {
			edit(dir)
		}
		h, err := TreeHash(dir)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	ref := hashOf(t, base, nil)
	tests := []struct {
		name string
		edit func(dir string)
		same bool
	}{
		{"content", func(d string) { os.WriteFile(filepath.Join(d, "SKILL.md"), []byte("# y\n"), 0o644) }, false},
		{"exec bit", func(d string) { os.Chmod(filepath.Join(d, "scripts/run.sh"), 0o644) }, false},
		{"other exec bit", func(d string) { os.Chmod(filepath.Join(d, "scripts/run.sh"), 0o711) }, true},
		{"added file", func(d string) { os.WriteFile(filepath.Join(d, "new"), nil, 0o644) }, false},
		{"removed file", func(d string) { os.Remove(filepath.Join(d, "scripts/run.sh")) }, false},
		{"renamed file", func(d string) {
			os.Rename(filepath.Join(d, "scripts/run.sh"), filepath.Join(d, "scripts/run2.sh"))
		}, false},
		{"empty folder", func(d string) { os.Mkdir(filepath.Join(d, "empty"), 0o755) }, true},
		{".git folder", func(d string) { write(t, d, map[string]string{".git/config": "x", "sub/.git": "gitdir: x"}) }, true},
		{"read-only file", func(d string) { os.Chmod(filepath.Join(d, "SKILL.md"), 0o444) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := hashOf(t, base, tt.edit)
			if (got == ref) != tt.same {
				t.Errorf("hash same = %v, want %v", got == ref, tt.same)
			}
		})
	}
}

func TestTreeHashRefuses(t *testing.T) {
	tests := []struct {
		name string
		make func(dir string) error
		want string
	}{
		{"symlink to file", func(d string) error { return os.Symlink("/etc/passwd", filepath.Join(d, "link")) }, "symbolic link"},
		{"symlink to folder", func(d string) error { return os.Symlink("/", filepath.Join(d, "sub", "root")) }, "symbolic link"},
		{"fifo", func(d string) error { return mkfifo(filepath.Join(d, "fifo")) }, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, map[string]string{"SKILL.md": "x", "sub/a": "a"})
			if err := tt.make(dir); err != nil {
				t.Skip(err)
			}
			_, err := TreeHash(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("TreeHash error = %v, want %q", err, tt.want)
			}
		})
	}
	t.Run("dir is a link", func(t *testing.T) {
		real := t.TempDir()
		link := filepath.Join(t.TempDir(), "l")
		os.Symlink(real, link)
		if _, err := TreeHash(link); err == nil {
			t.Fatal("a link as the folder was followed")
		}
	})
}

func TestChanges(t *testing.T) {
	dir1, dir2 := t.TempDir(), t.TempDir()
	write(t, dir1, map[string]string{"SKILL.md": "a", "old": "o", "same": "s", "x*": "x"})
	write(t, dir2, map[string]string{"SKILL.md": "b", "new": "n", "same": "s", "x": "x"})
	h1, err := FileHashes(dir1)
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := FileHashes(dir2)
	a, r, c := Changes(h1, h2)
	if fmt.Sprint(a, r, c) != "[new] [old] [SKILL.md x]" {
		t.Fatalf("Changes = %v %v %v", a, r, c)
	}
}

func TestHashCache(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"SKILL.md": "# x\n", "a/b": "b"})
	c := NewHashCache()
	later := time.Now().Add(time.Hour)
	c.now = func() time.Time { return later }
	check := func(step string) {
		t.Helper()
		want, err := TreeHash(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.TreeHash(dir)
		if err != nil || got != want {
			t.Fatalf("%s: cached %s %v, want %s", step, got, err, want)
		}
	}
	check("first")
	check("again")
	// Same size, mtime put back: the change time still tells.
	p := filepath.Join(dir, "a/b")
	info, _ := os.Stat(p)
	os.WriteFile(p, []byte("c"), 0o644)
	os.Chtimes(p, info.ModTime(), info.ModTime())
	check("content")
	os.Chmod(p, 0o755)
	check("mode")
	os.Remove(p)
	check("removed")
	os.Symlink("/etc/passwd", p)
	if _, err := c.TreeHash(dir); err == nil {
		t.Fatal("a link was hashed through the cache")
	}
	// Racy: a folder changed just now is not remembered.
	c.now = time.Now
	os.Remove(p)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("# y\n"), 0o644)
	check("racy")
	if len(c.m) != 0 {
		t.Fatalf("a racy folder was cached: %v", c.m)
	}
	var nilCache *HashCache
	if h, err := nilCache.TreeHash(dir); err != nil || !strings.HasPrefix(h, "sha256:") {
		t.Fatal(h, err)
	}
}

func TestTreeHashCaps(t *testing.T) {
	dir := t.TempDir()
	for i := range MaxFiles + 1 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d", i)), nil, 0o644)
	}
	if _, err := TreeHash(dir); err == nil || !strings.Contains(err.Error(), "too large for a skill") {
		t.Fatalf("TreeHash of %d files = %v", MaxFiles+1, err)
	}
	big := t.TempDir()
	f, _ := os.Create(filepath.Join(big, "big"))
	f.Truncate(MaxBytes + 1)
	f.Close()
	if _, err := TreeHash(big); err == nil {
		t.Fatal("TreeHash of a folder over MaxBytes")
	}
}
