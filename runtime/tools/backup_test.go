//go:build unix

package tools

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

var backupNow = time.Date(2026, 11, 23, 8, 30, 0, 0, time.UTC)

func newBackupTool(e *testEnv, opts BackupOptions) Tool {
	if opts.Now == nil {
		opts.Now = func() time.Time { return backupNow }
	}
	if opts.Environ == nil {
		opts.Environ = gitEnvFor(filepath.Dir(e.ws))
	}
	return NewBackup(e.sb, opts)
}

// A workspace with files, a link inside and one outside, node_modules, a
// forbidden folder and, when git is installed, a work tree ignoring *.log.
func backupWorkspace(t *testing.T) (*testEnv, bool) {
	t.Helper()
	e := newTestEnv(t)
	e.write(t, "a.txt", "alpha\n")
	e.write(t, "src/main.go", "package main\n")
	e.write(t, "node_modules/dep/index.js", "x\n")
	e.write(t, "secret/key.txt", "k\n")
	e.write(t, "debug.log", "noise\n")
	symlink(t, "src/main.go", filepath.Join(e.ws, "main-link"))
	symlink(t, e.outside, filepath.Join(e.ws, "out-link"))
	e.sb.Forbidden = []string{"secret"}
	_, err := exec.LookPath("git")
	hasGit := err == nil
	if hasGit {
		gitRun(t, e.ws, "init", "-q")
		e.write(t, ".gitignore", "*.log\n")
	}
	return e, hasGit
}

// create, list, verify, change files, restore: the result texts as the
// model reads them, and the files restored.
func TestBackupRoundTrip(t *testing.T) {
	t.Parallel()
	e, hasGit := backupWorkspace(t)
	tl := newBackupTool(e, BackupOptions{})
	got := call(t, tl, map[string]any{"action": "create"})
	want := regexp.MustCompile(`^Created \.clawseed/backups/20261123T083000Z\.tar\.gz: 3 files, 1 link, 2 directories; 25 B of files, [0-9.]+ [KB ]+ compressed\. ` +
		`Skipped: 1 \.git, 1 node_modules, 1 ignored by \.gitignore, 1 forbidden by \[autonomy\]\.forbidden_paths, 1 link leading out of the workspace\.$`)
	if !hasGit {
		want = regexp.MustCompile(`^Created \.clawseed/backups/20261123T083000Z\.tar\.gz: 3 files`)
	}
	if got.IsError || !want.MatchString(got.Content) {
		t.Fatalf("create: %+v", got)
	}
	if got := call(t, tl, map[string]any{"action": "create"}); !strings.Contains(got.Content, "20261123T083000Z-2.tar.gz") {
		t.Errorf("second create in the same second: %+v", got)
	}
	got = call(t, tl, map[string]any{"action": "list"})
	if !regexp.MustCompile(`^2 backups in \.clawseed/backups \(newest last\):\n20261123T083000Z-2\.tar\.gz  [0-9.]+ [KB]+\n20261123T083000Z\.tar\.gz`).MatchString(got.Content) {
		t.Errorf("list: %+v", got)
	}
	got = call(t, tl, map[string]any{"action": "verify", "name": "20261123T083000Z"})
	if got.IsError || got.Content != "Backup 20261123T083000Z.tar.gz is intact: 3 files match the manifest's SHA-256 checksums (1 link, 2 directories); its archive checksum matches 20261123T083000Z.tar.gz.sha256." {
		t.Errorf("verify: %+v", got)
	}
	// the archive holds what was promised
	names := archiveNames(t, filepath.Join(e.ws, ".clawseed/backups/20261123T083000Z.tar.gz"))
	wantNames := ".clawseed/ a.txt main-link src/ src/main.go .clawseed-backup-manifest.sha256"
	if hasGit {
		wantNames = ".clawseed/ .gitignore " + wantNames[len(".clawseed/ "):]
	}
	if names != wantNames {
		t.Errorf("archive entries = %q, want %q", names, wantNames)
	}

	e.write(t, "a.txt", "changed\n")
	if err := os.Remove(filepath.Join(e.ws, "src/main.go")); err != nil {
		t.Fatal(err)
	}
	e.write(t, "new.txt", "added later\n")
	got = call(t, tl, map[string]any{"action": "restore", "name": "20261123T083000Z.tar.gz"})
	if !got.IsError || !strings.Contains(got.Content, "would overwrite what is there now: ") || !strings.Contains(got.Content, "confirm: true") {
		t.Errorf("restore without confirm: %+v", got)
	}
	if readFile(t, filepath.Join(e.ws, "a.txt")) != "changed\n" {
		t.Errorf("restore without confirm wrote a.txt")
	}
	got = call(t, tl, map[string]any{"action": "restore", "name": "20261123T083000Z", "confirm": true})
	if got.IsError || !strings.Contains(got.Content, "1 file created, ") || !strings.Contains(got.Content, "overwritten (") ||
		!strings.Contains(got.Content, "a.txt") || !strings.HasSuffix(got.Content, "Files added since the backup were left in place.") {
		t.Errorf("restore: %+v", got)
	}
	if readFile(t, filepath.Join(e.ws, "a.txt")) != "alpha\n" || readFile(t, filepath.Join(e.ws, "src/main.go")) != "package main\n" ||
		readFile(t, filepath.Join(e.ws, "new.txt")) != "added later\n" {
		t.Errorf("files after restore are wrong")
	}
	if target, err := os.Readlink(filepath.Join(e.ws, "main-link")); err != nil || target != "src/main.go" {
		t.Errorf("main-link = %q, %v", target, err)
	}
}

func archiveNames(t *testing.T, file string) string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		names = append(names, h.Name)
	}
	return strings.Join(names, " ")
}

// craftEntry is one entry of a hand-made archive.
type craftEntry struct {
	name, body, link string
	typ              byte
}

// craftArchive writes an archive into the backup folder, with a correct
// manifest (unless manifest is false) and checksum file.
func craftArchive(t *testing.T, e *testEnv, name string, entries []craftEntry, manifest bool) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	var m strings.Builder
	for _, en := range entries {
		typ := en.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: en.name, Typeflag: typ, Mode: 0o644, Linkname: en.link, Size: int64(len(en.body)), ModTime: backupNow}
		if typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			tw.Write([]byte(en.body))
			fmt.Fprintf(&m, "%x  %s\n", sha256.Sum256([]byte(en.body)), en.name)
		}
	}
	if manifest {
		tw.WriteHeader(&tar.Header{Name: backupManifest, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(m.Len())})
		tw.Write([]byte(m.String()))
	}
	tw.Close()
	gz.Close()
	dir := filepath.Join(e.ws, ".clawseed", "backups")
	writeFile(t, filepath.Join(dir, name), buf.String())
	writeFile(t, filepath.Join(dir, name+".sha256"), fmt.Sprintf("%x  %s\n", sha256.Sum256(buf.Bytes()), name))
}

// Archives that would write outside the workspace, create devices, or that
// do not match their checksums are refused whole, before anything is
// written.
func TestBackupRestoreRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		entries  []craftEntry
		manifest bool
		want     string
	}{
		{[]craftEntry{{name: "../escape.txt", body: "x"}}, true, `entry "../escape.txt" leaves the workspace or is not a clean path`},
		{[]craftEntry{{name: "a/../../escape.txt", body: "x"}}, true, "leaves the workspace"},
		{[]craftEntry{{name: "/tmp/abs.txt", body: "x"}}, true, `entry "/tmp/abs.txt" has an absolute name`},
		{[]craftEntry{{name: "./a.txt", body: "x"}}, true, "is not a clean path"},
		{[]craftEntry{{name: "l", link: "../../etc", typ: tar.TypeSymlink}}, true, "link l points outside the workspace (../../etc)"},
		{[]craftEntry{{name: "l", link: "/etc/passwd", typ: tar.TypeSymlink}}, true, "link l points outside the workspace (/etc/passwd)"},
		{[]craftEntry{{name: "h", link: "a.txt", typ: tar.TypeLink}}, true, "entry h is a hard link"},
		{[]craftEntry{{name: "dev", typ: tar.TypeChar}}, true, "entry dev is a device file"},
		{[]craftEntry{{name: "blk", typ: tar.TypeBlock}}, true, "entry blk is a device file"},
		{[]craftEntry{{name: "fifo", typ: tar.TypeFifo}}, true, "entry fifo is a named pipe"},
		{[]craftEntry{{name: ".git/hooks/pre-commit", body: "#!/bin/sh\n"}}, true, "is inside .git"},
		{[]craftEntry{{name: "a.txt", body: "x"}}, false, "the archive has no manifest"},
	}
	for i, tt := range tests {
		e := newTestEnv(t)
		e.write(t, "a.txt", "keep\n")
		tl := newBackupTool(e, BackupOptions{})
		name := fmt.Sprintf("crafted%d.tar.gz", i)
		craftArchive(t, e, name, tt.entries, tt.manifest)
		for _, action := range []string{"verify", "restore"} {
			got := call(t, tl, map[string]any{"action": action, "name": name, "confirm": true})
			if !got.IsError || !strings.Contains(got.Content, tt.want) {
				t.Errorf("%s %v:\n got %+v\nwant an error containing %q", action, tt.entries, got, tt.want)
			}
		}
		if readFile(t, filepath.Join(e.ws, "a.txt")) != "keep\n" {
			t.Errorf("%v: a refused restore wrote a.txt", tt.entries)
		}
		if _, err := os.Lstat(filepath.Join(filepath.Dir(e.ws), "escape.txt")); err == nil {
			t.Errorf("%v: a file was written outside the workspace", tt.entries)
		}
	}
}

// Damage after creation: a changed checksum file, a changed archive.
func TestBackupVerifyDetectsDamage(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "a.txt", "alpha\n")
	tl := newBackupTool(e, BackupOptions{})
	call(t, tl, map[string]any{"action": "create"})
	dir := filepath.Join(e.ws, ".clawseed", "backups")
	name := "20261123T083000Z.tar.gz"
	writeFile(t, filepath.Join(dir, name+".sha256"), strings.Repeat("0", 64)+"  "+name+"\n")
	got := call(t, tl, map[string]any{"action": "verify"})
	if !got.IsError || !strings.Contains(got.Content, "but "+name+".sha256 says 0000") {
		t.Errorf("verify: %+v", got)
	}
	// a manifest that does not match a file's content
	craftArchive(t, e, "bad.tar.gz", []craftEntry{{name: "a.txt", body: "x"}}, true)
	data := readFile(t, filepath.Join(dir, "bad.tar.gz"))
	_ = data
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "a.txt", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1})
	tw.Write([]byte("y"))
	m := fmt.Sprintf("%x  a.txt\n%x  gone.txt\n", sha256.Sum256([]byte("x")), sha256.Sum256(nil))
	tw.WriteHeader(&tar.Header{Name: backupManifest, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(m))})
	tw.Write([]byte(m))
	tw.Close()
	gz.Close()
	writeFile(t, filepath.Join(dir, "bad.tar.gz"), buf.String())
	os.Remove(filepath.Join(dir, "bad.tar.gz.sha256"))
	got = call(t, tl, map[string]any{"action": "verify", "name": "bad"})
	want := "Backup bad.tar.gz failed verification:\n- a.txt does not match its checksum\n- gone.txt is in the manifest but not in the archive"
	if !got.IsError || got.Content != want {
		t.Errorf("verify:\n got %q\nwant %q", got.Content, want)
	}
}

// Restore never writes through links: not through a directory link that
// leaves the workspace, and a file entry replaces a link at its path
// instead of writing its target.
func TestBackupRestoreLinks(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	symlink(t, e.outside, filepath.Join(e.ws, "out-link"))
	symlink(t, filepath.Join(e.outside, "secret.txt"), filepath.Join(e.ws, "file-link"))
	e.sb.Forbidden = []string{"secret"}
	tl := newBackupTool(e, BackupOptions{})
	craftArchive(t, e, "links.tar.gz", []craftEntry{
		{name: "secret/planted.txt", body: "x"},
		{name: "out-link/planted.txt", body: "x"},
		{name: "file-link", body: "replaced"},
		{name: "d/inner", link: "..", typ: tar.TypeSymlink},
		{name: "chain", link: "d/inner/..", typ: tar.TypeSymlink},
	}, true)
	got := call(t, tl, map[string]any{"action": "restore", "name": "links"})
	if !got.IsError || !strings.Contains(got.Content, "These entries would not be restored:\n- Path secret/planted.txt is forbidden") {
		t.Errorf("restore without confirm: %+v", got)
	}
	got = call(t, tl, map[string]any{"action": "restore", "name": "links", "confirm": true})
	if !got.IsError || !strings.Contains(got.Content, "out-link/planted.txt resolves to") ||
		!strings.Contains(got.Content, "- Path secret/planted.txt is forbidden by [autonomy].forbidden_paths.") ||
		!strings.Contains(got.Content, "link chain was removed: it resolves outside the workspace") {
		t.Errorf("restore: %+v", got)
	}
	if _, err := os.Lstat(filepath.Join(e.ws, "secret")); err == nil {
		t.Errorf("restore wrote into a forbidden path")
	}
	if _, err := os.Stat(filepath.Join(e.outside, "planted.txt")); err == nil {
		t.Errorf("restore wrote through a link out of the workspace")
	}
	if readFile(t, filepath.Join(e.outside, "secret.txt")) != "top secret\n" {
		t.Errorf("restore wrote through a file link")
	}
	if readFile(t, filepath.Join(e.ws, "file-link")) != "replaced" {
		t.Errorf("file-link was not replaced by the file")
	}
	if _, err := os.Lstat(filepath.Join(e.ws, "chain")); err == nil {
		t.Errorf("the escaping chain link was kept")
	}
}

// Limits and the things create cannot store.
func TestBackupLimitsAndSpecialFiles(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "a.txt", strings.Repeat("a", 100))
	e.write(t, "b.txt", strings.Repeat("b", 100))
	if err := syscall.Mkfifo(filepath.Join(e.ws, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := call(t, newBackupTool(e, BackupOptions{MaxBytes: 150}), map[string]any{"action": "create"})
	if !got.IsError || !strings.Contains(got.Content, "the files to back up exceed 150 B; list the folders that matter in [backup].paths") {
		t.Errorf("create over the byte limit: %+v", got)
	}
	got = call(t, newBackupTool(e, BackupOptions{MaxFiles: 1}), map[string]any{"action": "create"})
	if !got.IsError || !strings.Contains(got.Content, "more than 1 files") {
		t.Errorf("create over the file limit: %+v", got)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(e.ws, ".clawseed/backups/*")); len(leftovers) != 0 {
		t.Errorf("failed creates left %v", leftovers)
	}
	got = call(t, newBackupTool(e, BackupOptions{}), map[string]any{"action": "create"})
	if got.IsError || !strings.Contains(got.Content, "2 files") || !strings.Contains(got.Content, "Skipped: 1 not a file, directory or link.") {
		t.Errorf("create: %+v", got)
	}
	got = call(t, newBackupTool(e, BackupOptions{Paths: []string{"../outside"}}), map[string]any{"action": "create"})
	if !got.IsError || !strings.Contains(got.Content, "[backup].paths: Path ../outside is outside the workspace") {
		t.Errorf("create with a path outside: %+v", got)
	}
}

// Only the configured folders are backed up; names stay relative to the
// workspace, so a restore puts them back in place.
func TestBackupConfiguredPaths(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "docs/a.md", "a\n")
	e.write(t, "other/b.md", "b\n")
	tl := newBackupTool(e, BackupOptions{Paths: []string{"docs"}})
	call(t, tl, map[string]any{"action": "create"})
	if got := archiveNames(t, filepath.Join(e.ws, ".clawseed/backups/20261123T083000Z.tar.gz")); got != "docs/ docs/a.md "+backupManifest {
		t.Errorf("entries = %q", got)
	}
}

func TestBackupClassesAndMissing(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	tl := newBackupTool(e, BackupOptions{})
	cc := tl.(interface {
		CallClass(json.RawMessage) permissions.Class
	})
	for args, want := range map[string]permissions.Class{`{"action":"create"}`: permissions.ClassWrite,
		`{"action":"restore","confirm":true}`: permissions.ClassWrite, `{"action":"restore"}`: permissions.ClassRead,
		`{"action":"list"}`: permissions.ClassRead, `{"action":"verify"}`: permissions.ClassRead, `{"action":1}`: permissions.ClassWrite} {
		if got := cc.CallClass(json.RawMessage(args)); got != want {
			t.Errorf("%s: %v", args, got)
		}
	}
	if got := call(t, tl, map[string]any{"action": "list"}); got != (providers.ToolResult{Content: "No backups in .clawseed/backups."}) {
		t.Errorf("list: %+v", got)
	}
	if got := call(t, tl, map[string]any{"action": "verify"}); !got.IsError || got.Content != "there are no backups in .clawseed/backups yet" {
		t.Errorf("verify: %+v", got)
	}
	if got := call(t, tl, map[string]any{"action": "restore", "name": "../../etc/passwd"}); !got.IsError ||
		got.Content != "there is no backup passwd.tar.gz in .clawseed/backups (action list shows them)" {
		t.Errorf("restore: %+v", got)
	}
}
