package tools

import (
	"archive/tar"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
)

// raceEnv is a workspace with git hooks and its control paths.
func raceEnv(t *testing.T) (*testEnv, string) {
	t.Helper()
	e := newTestEnv(t)
	hooks := filepath.Join(e.ws, ".git", "hooks")
	writeFile(t, filepath.Join(hooks, "post-update"), "#!/bin/sh\nexec git update-server-info\n")
	e.sb.Control = NewControlPaths(ControlConfig{Workspace: e.ws})
	return e, hooks
}

// TestFileToolsControlPathSwappedAfterApproval is the race of security
// finding F3: a call is approved while d does not exist (no control path,
// so auto_approve or accept-edits allow it unasked), then a process the
// model left running makes d a link to .git/hooks before the call runs.
// The write must be refused where it lands, and .git/hooks left alone.
func TestFileToolsControlPathSwappedAfterApproval(t *testing.T) {
	t.Parallel()
	e, hooks := raceEnv(t)
	// The approval: not a control write, so nobody was asked.
	if name, ok := e.sb.Control.Match("d/pre-commit"); ok {
		t.Fatalf("d/pre-commit is a control path (%s) before the link exists", name)
	}
	symlink(t, ".git/hooks", filepath.Join(e.ws, "d")) // the racer

	res := call(t, e.tool(t, "file_write", CoreOptions{}), map[string]any{"path": "d/pre-commit", "content": "#!/bin/sh\necho PWNED\n"})
	if !res.IsError || !strings.Contains(res.Content, "not approved to write there") {
		t.Errorf("file_write through the swapped link: %+v", res)
	}
	if _, err := os.Lstat(filepath.Join(hooks, "pre-commit")); !os.IsNotExist(err) {
		t.Errorf(".git/hooks/pre-commit was written (%v)", err)
	}

	res = call(t, e.tool(t, "file_edit", CoreOptions{}), map[string]any{"path": "d/post-update", "old_string": "exec", "new_string": "echo PWNED; exec"})
	if !res.IsError || !strings.Contains(res.Content, "not approved to write there") {
		t.Errorf("file_edit through the swapped link: %+v", res)
	}
	if got := readFile(t, filepath.Join(hooks, "post-update")); strings.Contains(got, "PWNED") {
		t.Errorf(".git/hooks/post-update was edited: %q", got)
	}
	assertNoTemp(t, hooks)

	// A call the user was asked about and approved for .git/ writes there.
	ctx := permissions.WithApprovedWrites(t.Context(), []string{".git/"})
	res = callCtx(ctx, t, e.tool(t, "file_write", CoreOptions{}), map[string]any{"path": "d/pre-commit", "content": "approved\n"})
	if res.IsError || readFile(t, filepath.Join(hooks, "pre-commit")) != "approved\n" {
		t.Errorf("approved write: %+v", res)
	}
	// Approved for another control path only: refused.
	ctx = permissions.WithApprovedWrites(t.Context(), []string{".clawseed/"})
	res = callCtx(ctx, t, e.tool(t, "file_write", CoreOptions{}), map[string]any{"path": "d/pre-commit", "content": "other\n"})
	if !res.IsError || readFile(t, filepath.Join(hooks, "pre-commit")) != "approved\n" {
		t.Errorf("write approved for .clawseed/ landed in .git/: %+v", res)
	}
}

// TestWriteFileAtomicLinkSwappedAfterResolve: a folder on the resolved path
// replaced by a link between ResolveWrite and the write (the tools' own
// window) is refused, not followed, even to a place inside the workspace.
func TestWriteFileAtomicLinkSwappedAfterResolve(t *testing.T) {
	t.Parallel()
	e, hooks := raceEnv(t)
	e.write(t, "a/b/keep.txt", "k")
	real, err := e.sb.ResolveWrite("a/b/x.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(e.ws, "a"), filepath.Join(e.ws, "a.old")); err != nil {
		t.Fatal(err)
	}
	symlink(t, ".git/hooks", filepath.Join(e.ws, "a"))
	ctx := permissions.WithApprovedWrites(t.Context(), []string{".git/"}) // even so
	if err := e.sb.writeFileAtomic(ctx, real, []byte("x")); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("write through a link swapped in after resolving: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(hooks, "b")); !os.IsNotExist(err) {
		t.Errorf("a folder was made in .git/hooks (%v)", err)
	}

	// Forbidden and read-only places are checked where the write lands too.
	e.sb.Forbidden = []string{"private"}
	if err := os.Mkdir(filepath.Join(e.ws, "private"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := e.sb.writeFileAtomic(t.Context(), filepath.Join(e.ws, "private", "x"), []byte("x")); err == nil {
		t.Error("write into a forbidden folder succeeded")
	}
	assertNoTemp(t, filepath.Join(e.ws, "private"))
}

// assertNoTemp fails when a temporary file is left in dir.
func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, en := range entries {
		if strings.Contains(en.Name(), ".tmp-") {
			t.Errorf("temporary file left in %s: %s", dir, en.Name())
		}
	}
}

// TestRestoreControlPathSwappedAfterApproval: backup's restore writes
// through the same writer, so its files and links land only where they
// were checked; d made a link to .git/hooks after the restore was approved
// leads nothing there.
func TestRestoreControlPathSwappedAfterApproval(t *testing.T) {
	t.Parallel()
	e, hooks := raceEnv(t)
	craftArchive(t, e, "race.tar.gz", []craftEntry{
		{name: "d/pre-commit", body: "#!/bin/sh\necho PWNED\n"},
		{name: "d/post-commit", link: "../evil.sh", typ: tar.TypeSymlink},
		{name: "notes.txt", body: "n\n"},
	}, true)
	tl := newBackupTool(e, BackupOptions{})
	w, ok := tl.(interface {
		Writes(json.RawMessage) []permissions.FileWrite
	})
	if !ok {
		t.Fatal("backup names no writes")
	}
	args := map[string]any{"action": "restore", "name": "race.tar.gz", "confirm": true}
	raw, _ := json.Marshal(args)
	for _, fw := range w.Writes(raw) { // the approval: no control path
		if name, ok := e.sb.Control.Match(fw.Path); ok {
			t.Fatalf("%s is a control path (%s) before the link exists", fw.Path, name)
		}
	}
	symlink(t, ".git/hooks", filepath.Join(e.ws, "d")) // the racer

	res := call(t, tl, args) // restore names what it writes, links unresolved: the link is refused
	if !res.IsError || strings.Count(res.Content, "a folder on its path is a symbolic link") != 2 {
		t.Errorf("restore through the swapped link: %+v", res)
	}
	for _, n := range []string{"pre-commit", "post-commit"} {
		if _, err := os.Lstat(filepath.Join(hooks, n)); !os.IsNotExist(err) {
			t.Errorf(".git/hooks/%s was written (%v)", n, err)
		}
	}
	if readFile(t, filepath.Join(e.ws, "notes.txt")) != "n\n" {
		t.Error("notes.txt was not restored")
	}
	assertNoTemp(t, hooks)
}
