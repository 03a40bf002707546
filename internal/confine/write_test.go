//go:build unix

package confine

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// writeRoot is a real (link-free) temporary folder.
func writeRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	root := writeRoot(t)
	var checked []string
	check := func(p string) error { checked = append(checked, p); return nil }

	// Missing folders are made; check sees the file's path as opened.
	if err := WriteFile(root, "a/b/c.txt", []byte("one"), check); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, filepath.Join(root, "a/b/c.txt")); got != "one" {
		t.Errorf("content %q", got)
	}
	if want := filepath.Join(root, "a/b/c.txt"); len(checked) != 1 || checked[0] != want {
		t.Errorf("checked %q, want [%s]", checked, want)
	}
	// An existing file keeps its permissions.
	p := filepath.Join(root, "run.sh")
	write(t, p, "old")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(root, "run.sh", []byte("new"), check); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o750 || readString(t, p) != "new" {
		t.Errorf("mode %v content %q", fi.Mode().Perm(), readString(t, p))
	}
	// A link at the file's own name is replaced, not written through.
	outside := writeRoot(t)
	write(t, filepath.Join(outside, "target"), "keep")
	if err := os.Symlink(filepath.Join(outside, "target"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(root, "link", []byte("x"), check); err != nil {
		t.Fatal(err)
	}
	if readString(t, filepath.Join(outside, "target")) != "keep" || readString(t, filepath.Join(root, "link")) != "x" {
		t.Error("the write went through the link at the file's name")
	}
	// check's error refuses the write, as it is.
	refused := errors.New("no")
	if err := WriteFile(root, "a/refused", []byte("x"), func(string) error { return refused }); !errors.Is(err, refused) {
		t.Errorf("refused write: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(root, "a/refused")); !os.IsNotExist(err) {
		t.Error("a refused write wrote the file")
	}
	// A directory is not replaced; bad paths are refused.
	for _, rel := range []string{"a", "../x", "/etc/x", "."} {
		if err := WriteFile(root, rel, []byte("x"), check); err == nil {
			t.Errorf("WriteFile(%q) succeeded", rel)
		}
	}
	noTemp(t, root)
	noTemp(t, filepath.Join(root, "a"))
}

// TestWriteFileRefusesLinks: a link in any folder of the path is refused,
// to inside the root as to outside it, by openat2 and by the walk alike,
// and check is never called.
func TestWriteFileRefusesLinks(t *testing.T) {
	t.Parallel()
	root := writeRoot(t)
	outside := writeRoot(t)
	if err := os.MkdirAll(filepath.Join(root, "real/sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"real", "in"}, {outside, "out"}, {"real", "real/sub/up"}} {
		if err := os.Symlink(l[0], filepath.Join(root, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	check := func(p string) error { t.Errorf("check called for %s", p); return nil }
	for _, rel := range []string{"in/x", "in/sub/x", "out/x", "out/new/x", "real/sub/up/x"} {
		if err := WriteFile(root, rel, []byte("x"), check); !errors.Is(err, ErrLink) {
			t.Errorf("WriteFile(%s): %v, want ErrLink", rel, err)
		}
	}
	// The walk alone (no openat2) refuses them as well.
	rootFD, err := openDirFD(unix.AT_FDCWD, root)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(rootFD)
	// openat2 opens a folder without links, and refuses a link itself,
	// where it exists.
	if fd, err := openat2Beneath(rootFD, "real/sub"); err == nil {
		unix.Close(fd)
	} else if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM) {
		t.Errorf("openat2Beneath: %v", err)
	}
	if fd, err := openat2Beneath(rootFD, "in/sub"); !errors.Is(err, unix.ELOOP) && !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM) {
		t.Errorf("openat2Beneath through a link: fd %d, %v", fd, err)
	}
	for _, dir := range []string{"in", "in/sub", "out/new", "real/sub/up"} {
		if fd, err := walkBelow(rootFD, dir); !errors.Is(err, ErrLink) {
			t.Errorf("walkBelow(%s): %v, want ErrLink", dir, err)
			if err == nil {
				unix.Close(fd)
			}
		}
	}
	fd, err := walkBelow(rootFD, "real/sub/made")
	if err != nil {
		t.Fatalf("walkBelow making a folder: %v", err)
	}
	unix.Close(fd)
	if fi, err := os.Lstat(filepath.Join(root, "real/sub/made")); err != nil || !fi.IsDir() {
		t.Errorf("the walk did not make the folder: %v", err)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Errorf("written outside: %v", entries)
	}
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func noTemp(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left in %s: %s", dir, e.Name())
		}
	}
}

// TestWriteEntry: a file with a mode and time, a link replacing what was
// at its name, a folder made with its mode; each checked where it lands.
func TestWriteEntry(t *testing.T) {
	t.Parallel()
	root := writeRoot(t)
	var checked []string
	check := func(p string) error { checked = append(checked, p); return nil }
	when := time.Date(2026, 11, 23, 8, 30, 0, 0, time.UTC)
	if err := WriteEntry(root, "d/f.sh", Entry{Content: strings.NewReader("x"), Mode: 0o700, ModTime: when}, check); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, "d/f.sh")); err != nil || fi.Mode().Perm() != 0o700 || !fi.ModTime().Equal(when) {
		t.Errorf("file: %v %v", fi, err)
	}
	write(t, filepath.Join(root, "d/old"), "old")
	if err := WriteEntry(root, "d/old", Entry{Link: "f.sh"}, check); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(filepath.Join(root, "d/old")); err != nil || target != "f.sh" {
		t.Errorf("link: %q %v", target, err)
	}
	if err := WriteEntry(root, "d/sub", Entry{Dir: true, Mode: 0o750}, check); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(root, "d/sub")); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o750 {
		t.Errorf("folder: %v %v", fi, err)
	}
	// A folder entry at a link is refused, not followed.
	if err := WriteEntry(root, "d/old", Entry{Dir: true}, check); !errors.Is(err, ErrLink) {
		t.Errorf("folder at a link: %v", err)
	}
	want := []string{filepath.Join(root, "d/f.sh"), filepath.Join(root, "d/old"), filepath.Join(root, "d/sub"), filepath.Join(root, "d/old")}
	if !slices.Equal(checked, want) {
		t.Errorf("checked %q, want %q", checked, want)
	}
	noTemp(t, filepath.Join(root, "d"))
}
