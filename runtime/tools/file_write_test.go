package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

func TestFileWrite(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "existing.txt", "old")
	e.write(t, "dir/keep.txt", "k")
	symlink(t, e.outside, filepath.Join(e.ws, "linked"))
	symlink(t, filepath.Join(e.outside, "new.txt"), filepath.Join(e.ws, "dangling"))
	skills := filepath.Join(filepath.Dir(e.ws), "skills")
	writeFile(t, filepath.Join(skills, "s", "SKILL.md"), "x")
	e.sb.ReadRoots = []string{skills}
	e.sb.Forbidden = []string{"private"}

	tests := []struct {
		name     string
		args     any
		want     providers.ToolResult
		file     string // checked when set: relative to the workspace
		fileWant string
	}{
		{"create with parents", map[string]any{"path": "a/b/c.txt", "content": "héllo\n"},
			providers.ToolResult{Content: "Wrote 7 bytes to a/b/c.txt"}, "a/b/c.txt", "héllo\n"},
		{"overwrite", map[string]any{"path": "existing.txt", "content": "new"},
			providers.ToolResult{Content: "Wrote 3 bytes to existing.txt"}, "existing.txt", "new"},
		{"empty content", map[string]any{"path": "empty.txt", "content": ""},
			providers.ToolResult{Content: "Wrote 0 bytes to empty.txt"}, "empty.txt", ""},
		{"absolute inside", map[string]any{"path": filepath.Join(e.ws, "abs.txt"), "content": "x"},
			providers.ToolResult{Content: "Wrote 1 bytes to " + filepath.Join(e.ws, "abs.txt")}, "abs.txt", "x"},
		{"directory", map[string]any{"path": "dir", "content": "x"},
			providers.ToolResult{Content: "Path dir is a directory; give a file path.", IsError: true}, "dir/keep.txt", "k"},
		{"dotdot", map[string]any{"path": "../outside/x.txt", "content": "x"},
			providers.ToolResult{Content: "Path ../outside/x.txt is outside the workspace (" + e.ws + ").", IsError: true}, "", ""},
		{"through linked parent", map[string]any{"path": "linked/x.txt", "content": "x"},
			providers.ToolResult{Content: "Path linked/x.txt resolves to " + filepath.Join(e.outside, "x.txt") +
				", which is outside the workspace (" + e.ws + ").", IsError: true}, "", ""},
		{"through dangling link", map[string]any{"path": "dangling", "content": "x"},
			providers.ToolResult{Content: "Path dangling resolves to " + filepath.Join(e.outside, "new.txt") +
				", which is outside the workspace (" + e.ws + ").", IsError: true}, "", ""},
		{"read root", map[string]any{"path": filepath.Join(skills, "s", "SKILL.md"), "content": "x"},
			providers.ToolResult{Content: "Path " + filepath.Join(skills, "s", "SKILL.md") + " is outside the workspace (" + e.ws +
				"); files there can be read but not written.", IsError: true}, "", ""},
		{"forbidden", map[string]any{"path": "private/x", "content": "x"},
			providers.ToolResult{Content: "Path private/x is forbidden by [autonomy].forbidden_paths.", IsError: true}, "", ""},
		{"missing content", map[string]any{"path": "x.txt"},
			providers.ToolResult{Content: `Invalid arguments for file_write: missing required property "content"`, IsError: true}, "", ""},
		{"content not a string", map[string]any{"path": "x.txt", "content": 5},
			providers.ToolResult{Content: `Invalid arguments for file_write: property "content": got integer, want string`, IsError: true}, "", ""},
	}
	tl := e.tool(t, "file_write", CoreOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, call(t, tl, tt.args)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tt.file != "" {
				if got := readFile(t, filepath.Join(e.ws, tt.file)); got != tt.fileWant {
					t.Errorf("%s = %q, want %q", tt.file, got, tt.fileWant)
				}
			}
		})
	}
	// Nothing leaked outside, and the read root is untouched.
	entries, err := os.ReadDir(e.outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("outside directory now holds %d entries", len(entries))
	}
	if got := readFile(t, filepath.Join(skills, "s", "SKILL.md")); got != "x" {
		t.Errorf("read root file changed: %q", got)
	}
}
