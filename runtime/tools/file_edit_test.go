package tools

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

func TestFileEdit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		content  string // of f.txt before the call
		args     map[string]any
		want     providers.ToolResult
		fileWant string
	}{
		{"unique", "a\nb\nc\n", map[string]any{"old_string": "b", "new_string": "B"},
			providers.ToolResult{Content: "Edited f.txt: replaced 1 occurrence"}, "a\nB\nc\n"},
		{"delete", "a\nb\nc\n", map[string]any{"old_string": "b\n", "new_string": ""},
			providers.ToolResult{Content: "Edited f.txt: replaced 1 occurrence"}, "a\nc\n"},
		{"multi-line", "func f() {\n\treturn 1\n}\n", map[string]any{"old_string": "\treturn 1\n}", "new_string": "\treturn 2\n}"},
			providers.ToolResult{Content: "Edited f.txt: replaced 1 occurrence"}, "func f() {\n\treturn 2\n}\n"},
		{"not found", "a\n", map[string]any{"old_string": "z", "new_string": "y"},
			providers.ToolResult{Content: "old_string not found in f.txt", IsError: true}, "a\n"},
		{"ambiguous", "x x x\n", map[string]any{"old_string": "x", "new_string": "y"},
			providers.ToolResult{Content: "old_string occurs 3 times in f.txt; add context to make it unique or set replace_all", IsError: true}, "x x x\n"},
		{"replace all", "x x x\n", map[string]any{"old_string": "x", "new_string": "y", "replace_all": true},
			providers.ToolResult{Content: "Edited f.txt: replaced 3 occurrences"}, "y y y\n"},
		{"replace all single", "x\n", map[string]any{"old_string": "x", "new_string": "y", "replace_all": true},
			providers.ToolResult{Content: "Edited f.txt: replaced 1 occurrence"}, "y\n"},
		{"empty old_string", "a\n", map[string]any{"old_string": "", "new_string": "y"},
			providers.ToolResult{Content: "old_string must not be empty; use file_write to create or overwrite a file.", IsError: true}, "a\n"},
		{"identical", "a\n", map[string]any{"old_string": "a", "new_string": "a"},
			providers.ToolResult{Content: "old_string and new_string are identical; nothing to change.", IsError: true}, "a\n"},
		{"crlf file", "one\r\ntwo\r\n", map[string]any{"old_string": "one\ntwo", "new_string": "1\n2"},
			providers.ToolResult{Content: "Edited f.txt: replaced 1 occurrence"}, "1\r\n2\r\n"},
		{"missing new_string", "a\n", map[string]any{"old_string": "a"},
			providers.ToolResult{Content: `Invalid arguments for file_edit: missing required property "new_string"`, IsError: true}, "a\n"},
		{"replace_all wrong type", "a\n", map[string]any{"old_string": "a", "new_string": "b", "replace_all": "yes"},
			providers.ToolResult{Content: `Invalid arguments for file_edit: property "replace_all": got string, want boolean`, IsError: true}, "a\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			p := e.write(t, "f.txt", tt.content)
			args := map[string]any{"path": "f.txt"}
			for k, v := range tt.args {
				args[k] = v
			}
			if diff := cmp.Diff(tt.want, call(t, e.tool(t, "file_edit", CoreOptions{}), args)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got := readFile(t, p); got != tt.fileWant {
				t.Errorf("file = %q, want %q", got, tt.fileWant)
			}
			// ApplyEdit, which approval diffs use, edits as the tool does.
			oldS, _ := tt.args["old_string"].(string)
			newS, okNew := tt.args["new_string"].(string)
			all, okAll := tt.args["replace_all"].(bool)
			if _, isBool := tt.args["replace_all"]; okNew && (okAll || !isBool) {
				edited, ok := ApplyEdit(tt.content, oldS, newS, all)
				if ok == tt.want.IsError || ok && edited != tt.fileWant {
					t.Errorf("ApplyEdit = %q, %v; the tool wrote %q (error %v)", edited, ok, tt.fileWant, tt.want.IsError)
				}
			}
		})
	}
}

func TestFileEditRefusals(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	symlink(t, filepath.Join(e.outside, "secret.txt"), filepath.Join(e.ws, "escape"))
	e.write(t, "bin.dat", "a\x00b")
	e.write(t, "keys/k", "secret")
	e.sb.Forbidden = []string{"keys"}
	tests := []struct {
		path string
		want string
	}{
		{"missing.txt", "File missing.txt does not exist."},
		{"escape", "Path escape resolves to " + filepath.Join(e.outside, "secret.txt") + ", which is outside the workspace (" + e.ws + ")."},
		{"../outside/secret.txt", "Path ../outside/secret.txt is outside the workspace (" + e.ws + ")."},
		{"bin.dat", "File bin.dat looks binary (it contains NUL bytes); only text files can be read."},
		{"keys/k", "Path keys/k is forbidden by [autonomy].forbidden_paths."},
	}
	tl := e.tool(t, "file_edit", CoreOptions{})
	for _, tt := range tests {
		got := call(t, tl, map[string]any{"path": tt.path, "old_string": "secret", "new_string": "x"})
		if diff := cmp.Diff(providers.ToolResult{Content: tt.want, IsError: true}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.path, diff)
		}
	}
	if got := readFile(t, filepath.Join(e.outside, "secret.txt")); got != "top secret\n" {
		t.Errorf("outside file changed: %q", got)
	}
}
