package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

// TestAddDirs: a folder added to the workspace (--add-dir, issue 30) is read
// and written as the workspace is, a link out of it is still refused, a
// read root stays read-only, and a forbidden entry still applies inside it.
func TestAddDirs(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	base := filepath.Dir(e.ws)
	added := filepath.Join(base, "added")
	writeFile(t, filepath.Join(added, "data.txt"), "ADDED\n")
	writeFile(t, filepath.Join(added, "private", "key"), "k")
	symlink(t, e.outside, filepath.Join(added, "out"))
	memory := filepath.Join(base, "memory")
	writeFile(t, filepath.Join(memory, "m.md"), "m")
	e.sb.AddDirs = []string{added}
	e.sb.ReadRoots = []string{memory}
	e.sb.Forbidden = []string{filepath.Join(added, "private")}

	read, write := e.tool(t, "file_read", CoreOptions{}), e.tool(t, "file_write", CoreOptions{})
	tests := []struct {
		name string
		tool Tool
		args map[string]any
		want providers.ToolResult
	}{
		{"read", read, map[string]any{"path": "../added/data.txt"}, providers.ToolResult{Content: "     1\tADDED"}},
		{"write", write, map[string]any{"path": filepath.Join(added, "sub", "new.txt"), "content": "new"},
			providers.ToolResult{Content: "Wrote 3 bytes to " + filepath.Join(added, "sub", "new.txt")}},
		{"link out of it", write, map[string]any{"path": filepath.Join(added, "out", "x.txt"), "content": "x"},
			providers.ToolResult{IsError: true, Content: "Path " + filepath.Join(added, "out", "x.txt") + " resolves to " + filepath.Join(e.outside, "x.txt") + ", which is outside the workspace (" + e.ws + ")."}},
		{"forbidden inside it", read, map[string]any{"path": filepath.Join(added, "private", "key")},
			providers.ToolResult{IsError: true, Content: "Path " + filepath.Join(added, "private", "key") + " is forbidden by [autonomy].forbidden_paths."}},
		{"read root stays read-only", write, map[string]any{"path": filepath.Join(memory, "m.md"), "content": "x"},
			providers.ToolResult{IsError: true, Content: "Path " + filepath.Join(memory, "m.md") + " is outside the workspace (" + e.ws + "); files there can be read but not written."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, call(t, tt.tool, tt.args)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if got := readFile(t, filepath.Join(added, "sub", "new.txt")); got != "new" {
		t.Errorf("new.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.outside, "x.txt")); err == nil {
		t.Error("a write left the added folder through a link")
	}
}

// TestAddDirsReadOnlyTargets: an added folder's .git is a repository like
// the workspace's: commands keep only its hooks and config read-only, so
// git can still commit there.
func TestAddDirsReadOnlyTargets(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws, added := filepath.Join(base, "ws"), filepath.Join(base, "added")
	cp := NewControlPaths(ControlConfig{Workspace: ws, AddDirs: []string{added}})
	got := map[string]bool{}
	for _, p := range cp.ReadOnlyTargets() {
		got[p] = true
	}
	for _, dir := range []string{ws, added} {
		git := filepath.Join(dir, ".git")
		if got[git] || !got[filepath.Join(git, "hooks")] || !got[filepath.Join(git, "config")] {
			t.Errorf("%s: whole %v, hooks %v, config %v", git, got[git], got[filepath.Join(git, "hooks")], got[filepath.Join(git, "config")])
		}
		if !got[filepath.Join(dir, ".claude")] || !got[filepath.Join(dir, ".mcp.json")] {
			t.Errorf("%s: .claude or .mcp.json not read-only", dir)
		}
	}
}
