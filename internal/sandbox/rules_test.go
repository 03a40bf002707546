package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadOnlyMounts: a read-only path is bound only where something is
// writable — inside a writable folder, or holding one —, and only when it
// exists; elsewhere Landlock refuses writes already, and the home folder's
// many control paths would cost a mount each per process.
func TestReadOnlyMounts(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(root, "ws")
	home := filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(ws, ".git", "hooks"), filepath.Join(home, ".claude", "mine"), filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p := Policy{
		Writable: []string{ws, filepath.Join(home, ".claude", "mine")},
		ReadOnly: []string{
			filepath.Join(ws, ".git", "hooks"), // inside the workspace
			filepath.Join(ws, ".mcp.json"),     // absent
			filepath.Join(home, ".claude"),     // holds a writable folder
			filepath.Join(home, ".bashrc"),     // outside: Landlock refuses it
			filepath.Join(home, ".ssh"),        // outside
		},
	}
	got := p.readOnlyMounts()
	want := []string{filepath.Join(ws, ".git", "hooks"), filepath.Join(home, ".claude")}
	if !slices.Equal(got, want) {
		t.Errorf("readOnlyMounts() = %q, want %q", got, want)
	}
	p.Writable = append(p.Writable, home) // [sandbox].writable = ["~"]
	got = p.readOnlyMounts()
	want = []string{filepath.Join(ws, ".git", "hooks"), filepath.Join(home, ".claude"), filepath.Join(home, ".bashrc"), filepath.Join(home, ".ssh")}
	if !slices.Equal(got, want) {
		t.Errorf("with ~ writable: readOnlyMounts() = %q, want %q", got, want)
	}
}
