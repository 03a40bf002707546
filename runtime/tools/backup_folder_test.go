//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// evilArchive crafts a valid archive that restores a.txt as "from outside"
// and returns its bytes and its .sha256 file.
func evilArchive(t *testing.T) (archive, sidecar []byte) {
	t.Helper()
	e := newTestEnv(t)
	craftArchive(t, e, "evil.tar.gz", []craftEntry{{name: "a.txt", body: "from outside\n"}}, true)
	dir := filepath.Join(e.ws, ".clawseed", "backups")
	return []byte(readFile(t, filepath.Join(dir, "evil.tar.gz"))), []byte(readFile(t, filepath.Join(dir, "evil.tar.gz.sha256")))
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// A repository's .clawseed/backups (or .clawseed) link out of the workspace
// must not move backup writes or the archives restores read out of it
// (issue 20, item 9): every action refuses, at every call.
func TestBackupFolderLinkOut(t *testing.T) {
	t.Parallel()
	archive, sidecar := evilArchive(t)
	layouts := []struct {
		name string
		link func(e *testEnv) (target string) // makes the link; the folder it leads to
	}{
		{"absolute link", func(e *testEnv) string {
			symlink(t, e.outside, filepath.Join(e.ws, ".clawseed", "backups"))
			return e.outside
		}},
		{"relative link", func(e *testEnv) string {
			symlink(t, "../../outside", filepath.Join(e.ws, ".clawseed", "backups"))
			return e.outside
		}},
		{".clawseed link", func(e *testEnv) string {
			symlink(t, e.outside, filepath.Join(e.ws, ".clawseed"))
			return filepath.Join(e.outside, "backups")
		}},
		{"dangling link", func(e *testEnv) string {
			symlink(t, filepath.Join(e.outside, "new"), filepath.Join(e.ws, ".clawseed", "backups"))
			return filepath.Join(e.outside, "new")
		}},
	}
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			e.write(t, "a.txt", "keep\n")
			dir := l.link(e)
			if l.name != "dangling link" {
				writeFile(t, filepath.Join(dir, "evil.tar.gz"), string(archive))
				writeFile(t, filepath.Join(dir, "evil.tar.gz.sha256"), string(sidecar))
			}
			before := dirNames(t, dir)
			tl := newBackupTool(e, BackupOptions{})
			for _, args := range []map[string]any{
				{"action": "create"}, {"action": "list"}, {"action": "verify"}, {"action": "verify", "name": "evil"},
				{"action": "restore", "name": "evil"}, {"action": "restore", "name": "evil", "confirm": true},
			} {
				got := call(t, tl, args)
				if !got.IsError || !strings.Contains(got.Content, "outside the workspace: a link there would move backups out of it") {
					t.Errorf("%v: %+v; want a refusal", args, got)
				}
			}
			if got := readFile(t, filepath.Join(e.ws, "a.txt")); got != "keep\n" {
				t.Errorf("a.txt = %q: restored from an archive outside the workspace", got)
			}
			if after := dirNames(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
				t.Errorf("the folder outside changed: %v -> %v", before, after)
			}
		})
	}
}

// A link that stays inside the workspace is a backup folder like any other,
// and create leaves it out of the archive.
func TestBackupFolderLinkInside(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "a.txt", "alpha\n")
	symlink(t, "../bk", filepath.Join(e.ws, ".clawseed", "backups"))
	tl := newBackupTool(e, BackupOptions{})
	if got := call(t, tl, map[string]any{"action": "create"}); got.IsError || !strings.HasPrefix(got.Content, "Created bk/20261123T083000Z.tar.gz: 1 file, 1 link, 1 directory;") {
		t.Fatalf("create: %+v", got)
	}
	if got := call(t, tl, map[string]any{"action": "verify"}); got.IsError {
		t.Errorf("verify: %+v", got)
	}
}

// An archive that is a link out of the folder is not listed nor read; a
// .sha256 file that is a FIFO does not block verify.
func TestBackupArchiveNotRegular(t *testing.T) {
	t.Parallel()
	archive, sidecar := evilArchive(t)
	e := newTestEnv(t)
	e.write(t, "a.txt", "keep\n")
	writeFile(t, filepath.Join(e.outside, "evil.tar.gz"), string(archive))
	symlink(t, filepath.Join(e.outside, "evil.tar.gz"), filepath.Join(e.ws, ".clawseed", "backups", "linked.tar.gz"))
	tl := newBackupTool(e, BackupOptions{})
	if got := call(t, tl, map[string]any{"action": "list"}); got.Content != "No backups in .clawseed/backups." {
		t.Errorf("list: %+v", got)
	}
	for _, confirm := range []bool{false, true} {
		if got := call(t, tl, map[string]any{"action": "restore", "name": "linked", "confirm": confirm}); !got.IsError || strings.Contains(got.Content, "Restored") {
			t.Errorf("restore of a linked archive: %+v", got)
		}
	}
	if got := readFile(t, filepath.Join(e.ws, "a.txt")); got != "keep\n" {
		t.Errorf("a.txt = %q", got)
	}

	dir := filepath.Join(e.ws, ".clawseed", "backups")
	writeFile(t, filepath.Join(dir, "fifo.tar.gz"), string(archive))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.tar.gz.sha256"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = sidecar
	done := make(chan string, 1)
	go func() { done <- call(t, tl, map[string]any{"action": "verify", "name": "fifo"}).Content }()
	select {
	case got := <-done:
		if !strings.Contains(got, "not a regular file") {
			t.Errorf("verify with a FIFO checksum file: %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("verify blocked on a FIFO")
	}
}
