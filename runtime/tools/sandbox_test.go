package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSandboxResolve(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ws, out := e.ws, e.outside
	e.write(t, "a.txt", "a")
	e.write(t, "dir/b.txt", "b")
	e.write(t, "secret/key.pem", "k")
	e.write(t, ".env", "X=1")
	skills := filepath.Join(filepath.Dir(ws), "skills")
	writeFile(t, filepath.Join(skills, "demo", "SKILL.md"), "---\nname: demo\n---\n")
	symlink(t, filepath.Join(out, "secret.txt"), filepath.Join(ws, "link-file"))   // file link out
	symlink(t, out, filepath.Join(ws, "link-dir"))                                 // dir link out
	symlink(t, filepath.Join(out, "missing.txt"), filepath.Join(ws, "dangling"))   // dangling link out
	symlink(t, "a.txt", filepath.Join(ws, "inner-link"))                           // link inside
	symlink(t, filepath.Join(ws, "secret"), filepath.Join(ws, "dir", "to-secret")) // link to a forbidden dir
	symlink(t, "loop2", filepath.Join(ws, "loop1"))                                // loop
	symlink(t, "loop1", filepath.Join(ws, "loop2"))
	e.sb.ReadRoots = []string{skills}
	e.sb.Forbidden = []string{"/etc", "secret", "~/ws/.env", ""}

	outsideMsg := "is outside the workspace (" + ws + ")."
	tests := []struct {
		name    string
		path    string
		write   bool
		want    string // resolved path on success
		wantErr string // substring of the error
	}{
		{name: "relative", path: "a.txt", want: filepath.Join(ws, "a.txt")},
		{name: "relative missing", path: "new/file.txt", write: true, want: filepath.Join(ws, "new/file.txt")},
		{name: "absolute inside", path: filepath.Join(ws, "dir/b.txt"), want: filepath.Join(ws, "dir/b.txt")},
		{name: "dot", path: ".", want: ws},
		{name: "inner dotdot", path: "dir/../a.txt", want: filepath.Join(ws, "a.txt")},
		{name: "dotdot escape", path: "../x", wantErr: "Path ../x " + outsideMsg},
		{name: "dotdot escape deep", path: "dir/../../outside/secret.txt", wantErr: outsideMsg},
		{name: "absolute outside", path: filepath.Join(out, "secret.txt"), wantErr: outsideMsg},
		{name: "tilde outside", path: "~/outside/secret.txt", wantErr: outsideMsg},
		{name: "empty", path: "", wantErr: "Path must not be empty."},
		{name: "nul", path: "a\x00b", wantErr: "NUL"},
		{name: "link to outside file", path: "link-file", wantErr: "resolves to " + filepath.Join(out, "secret.txt") + ", which is outside the workspace"},
		{name: "read through linked dir", path: "link-dir/secret.txt", wantErr: "outside the workspace"},
		{name: "write through linked dir", path: "link-dir/new.txt", write: true, wantErr: "resolves to " + filepath.Join(out, "new.txt")},
		{name: "write new dir through linked dir", path: "link-dir/a/b/c.txt", write: true, wantErr: "outside the workspace"},
		{name: "write dangling link", path: "dangling", write: true, wantErr: "resolves to " + filepath.Join(out, "missing.txt")},
		{name: "link inside", path: "inner-link", want: filepath.Join(ws, "a.txt")},
		{name: "link loop", path: "loop1", wantErr: "Cannot resolve path loop1"},
		{name: "forbidden outside", path: "/etc/passwd", wantErr: "Path /etc/passwd is forbidden by [autonomy].forbidden_paths."},
		{name: "forbidden inside", path: "secret/key.pem", wantErr: "forbidden"},
		{name: "forbidden dir itself", path: "secret", wantErr: "forbidden"},
		{name: "forbidden write", path: "secret/new.pem", write: true, wantErr: "forbidden"},
		{name: "forbidden with tilde", path: ".env", wantErr: "forbidden"},
		{name: "forbidden via symlink", path: "dir/to-secret/key.pem", wantErr: "forbidden"},
		{name: "forbidden prefix is per component", path: "secretive.txt", write: true, want: filepath.Join(ws, "secretive.txt")},
		{name: "read root readable", path: filepath.Join(skills, "demo/SKILL.md"), want: filepath.Join(skills, "demo/SKILL.md")},
		{name: "read root not writable", path: filepath.Join(skills, "demo/SKILL.md"), write: true, wantErr: "can be read but not written"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resolve := e.sb.ResolveRead
			if tt.write {
				resolve = e.sb.ResolveWrite
			}
			got, err := resolve(tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("resolve(%q) = %q, %v; want error containing %q", tt.path, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("resolve(%q): %v", tt.path, err)
			}
			if got != tt.want {
				t.Errorf("resolve(%q) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}

// A forbidden entry containing a whole root (here the home directory holding
// the workspace and a skill root) does not disable that root, but still
// applies elsewhere.
func TestSandboxForbiddenAncestor(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	ws := filepath.Join(home, "proj")
	skills := filepath.Join(home, ".claude", "skills")
	writeFile(t, filepath.Join(ws, "a.txt"), "a")
	writeFile(t, filepath.Join(ws, ".ssh", "id"), "k")
	writeFile(t, filepath.Join(skills, "s", "SKILL.md"), "s")
	sb := &Sandbox{Workspace: ws, ReadRoots: []string{"~/.claude/skills"}, Home: home, Forbidden: []string{"~", "~/proj/.ssh"}}
	for _, p := range []string{"a.txt", "~/.claude/skills/s/SKILL.md"} {
		if _, err := sb.ResolveRead(p); err != nil {
			t.Errorf("ResolveRead(%q): %v", p, err)
		}
	}
	for _, p := range []string{".ssh/id", "~/other.txt"} {
		if _, err := sb.ResolveRead(p); err == nil || !strings.Contains(err.Error(), "forbidden") {
			t.Errorf("ResolveRead(%q) = %v, want forbidden", p, err)
		}
	}
}

func TestSandboxNoWorkspace(t *testing.T) {
	t.Parallel()
	for _, sb := range []*Sandbox{nil, {}} {
		if _, err := sb.ResolveRead("a.txt"); err == nil || err.Error() != "No workspace is configured." {
			t.Errorf("ResolveRead with %+v: %v", sb, err)
		}
	}
}

// A workspace reached through a symlinked path (as on macOS, where /tmp is a
// link) still works when given unresolved.
func TestSandboxWorkspaceBehindLink(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "a.txt", "a")
	link := filepath.Join(filepath.Dir(e.ws), "ws-link")
	symlink(t, e.ws, link)
	sb := &Sandbox{Workspace: link}
	for _, p := range []string{"a.txt", filepath.Join(link, "a.txt"), filepath.Join(e.ws, "a.txt")} {
		got, err := sb.ResolveWrite(p)
		if err != nil || got != filepath.Join(e.ws, "a.txt") {
			t.Errorf("ResolveWrite(%q) = %q, %v", p, got, err)
		}
	}
}

func TestRealPathDanglingChain(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// a -> b (dangling, relative) ; writing a/x.txt would create b/x.txt.
	symlink(t, "b", filepath.Join(dir, "a"))
	got, err := realPath(filepath.Join(dir, "a", "x.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(filepath.Join(dir, "b", "x.txt"), got); diff != "" {
		t.Error(diff)
	}
}

func TestWriteFileAtomicKeepsMode(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	p := e.write(t, "run.sh", "old")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := e.sb.writeFileAtomic(t.Context(), p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o755 || readFile(t, p) != "new" {
		t.Errorf("mode %v content %q", fi.Mode().Perm(), readFile(t, p))
	}
	entries, _ := os.ReadDir(e.ws)
	if len(entries) != 1 {
		t.Errorf("temporary file left behind: %v", entries)
	}
	if err := e.sb.writeFileAtomic(t.Context(), filepath.Join(e.outside, "x"), nil); err == nil {
		t.Error("writeFileAtomic outside the workspace succeeded")
	}
}

// TestReadRootInsideWorkspaceIsReadOnly: a read root stays read-only where
// it lies inside the workspace (a memory folder under the project).
func TestReadRootInsideWorkspaceIsReadOnly(t *testing.T) {
	ws := t.TempDir()
	mem := filepath.Join(ws, "home", "memory")
	if err := os.MkdirAll(filepath.Join(mem, "user"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mem, "user", "MEMORY.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb := &Sandbox{Workspace: ws, ReadRoots: []string{mem}}
	if _, err := sb.ResolveRead(filepath.Join(mem, "user", "MEMORY.md")); err != nil {
		t.Fatalf("read: %v", err)
	}
	for _, p := range []string{filepath.Join(mem, "user", "MEMORY.md"), "home/memory/user/new.md", "home/memory/../memory/x.md"} {
		if _, err := sb.ResolveWrite(p); err == nil || !strings.Contains(err.Error(), "read-only folder") {
			t.Errorf("write %s: err = %v, want a read-only refusal", p, err)
		}
	}
	if _, err := sb.ResolveWrite("home/other.md"); err != nil {
		t.Errorf("write beside the read root: %v", err)
	}
}
