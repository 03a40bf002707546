package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

func TestGlobSearch(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	for _, f := range []string{"main.go", "README.md", "src/a.go", "src/b_test.go", "src/deep/c.go", "src/deep/d.txt",
		".hidden/e.go", ".git/config.go", "node_modules/m/index.go", "src/node_modules/x.go", "keys/k.go"} {
		e.write(t, f, "x")
	}
	writeFile(t, filepath.Join(e.outside, "evil.go"), "x")
	symlink(t, e.outside, filepath.Join(e.ws, "src", "out-dir"))                       // dir link out: not followed
	symlink(t, filepath.Join(e.outside, "evil.go"), filepath.Join(e.ws, "evil.go"))    // file link out: not listed
	symlink(t, filepath.Join(e.ws, "main.go"), filepath.Join(e.ws, "src", "alias.go")) // file link in: listed
	symlink(t, filepath.Join(e.ws, "src"), filepath.Join(e.ws, "src-link"))            // dir link in: not followed either
	e.sb.Forbidden = []string{"keys"}

	tests := []struct {
		name string
		args map[string]any
		want providers.ToolResult
	}{
		{"all go files", map[string]any{"pattern": "**/*.go"},
			providers.ToolResult{Content: ".hidden/e.go\nmain.go\nsrc/a.go\nsrc/alias.go\nsrc/b_test.go\nsrc/deep/c.go"}},
		{"top level only", map[string]any{"pattern": "*.go"}, providers.ToolResult{Content: "main.go"}},
		{"prefix", map[string]any{"pattern": "src/**/*.go"},
			providers.ToolResult{Content: "src/a.go\nsrc/alias.go\nsrc/b_test.go\nsrc/deep/c.go"}},
		{"dot slash", map[string]any{"pattern": "./src/*_test.go"}, providers.ToolResult{Content: "src/b_test.go"}},
		{"alternatives", map[string]any{"pattern": "**/*.{md,txt}"}, providers.ToolResult{Content: "README.md\nsrc/deep/d.txt"}},
		{"in subdirectory", map[string]any{"pattern": "*.go", "path": "src/deep"}, providers.ToolResult{Content: "src/deep/c.go"}},
		{"literal path", map[string]any{"pattern": "src/a.go"}, providers.ToolResult{Content: "src/a.go"}},
		{"files only", map[string]any{"pattern": "src/*"},
			providers.ToolResult{Content: "src/a.go\nsrc/alias.go\nsrc/b_test.go"}},
		{"none", map[string]any{"pattern": "**/*.rs"}, providers.ToolResult{Content: "No files matching pattern '**/*.rs' found."}},
		{"missing prefix dir", map[string]any{"pattern": "nope/**"}, providers.ToolResult{Content: "No files matching pattern 'nope/**' found."}},
		{"forbidden dir skipped", map[string]any{"pattern": "keys/*"}, providers.ToolResult{Content: "Path keys is forbidden by [autonomy].forbidden_paths.", IsError: true}},
		{"through dir link", map[string]any{"pattern": "src/out-dir/*.go"}, providers.ToolResult{Content: "Path src/out-dir resolves to " +
			e.outside + ", which is outside the workspace (" + e.ws + ").", IsError: true}},
		{"dotdot", map[string]any{"pattern": "../outside/*.go"}, providers.ToolResult{Content: "Pattern '../outside/*.go' must be relative to the search directory and must not contain '..'; use path to choose the directory.", IsError: true}},
		{"absolute", map[string]any{"pattern": filepath.Join(e.outside, "*.go")}, providers.ToolResult{Content: "Pattern '" + filepath.Join(e.outside, "*.go") + "' must be relative to the search directory and must not contain '..'; use path to choose the directory.", IsError: true}},
		{"invalid", map[string]any{"pattern": "src/[a"}, providers.ToolResult{Content: "Invalid glob pattern 'src/[a'.", IsError: true}},
		{"empty", map[string]any{"pattern": ""}, providers.ToolResult{Content: "pattern must not be empty.", IsError: true}},
		{"path outside", map[string]any{"pattern": "*", "path": "../outside"}, providers.ToolResult{Content: "Path ../outside is outside the workspace (" + e.ws + ").", IsError: true}},
		{"path is a file", map[string]any{"pattern": "*", "path": "main.go"}, providers.ToolResult{Content: "main.go is not a directory.", IsError: true}},
		{"path missing", map[string]any{"pattern": "*", "path": "nope"}, providers.ToolResult{Content: "Directory nope does not exist.", IsError: true}},
		{"missing pattern", map[string]any{"path": "src"}, providers.ToolResult{Content: `Invalid arguments for glob_search: missing required property "pattern"`, IsError: true}},
	}
	tl := e.tool(t, "glob_search", CoreOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, call(t, tl, tt.args)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestGlobSearchTruncates(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	for n := range 1005 {
		e.write(t, fmt.Sprintf("f/%04d.txt", n), "")
	}
	got := call(t, e.tool(t, "glob_search", CoreOptions{}), map[string]any{"pattern": "**/*.txt"})
	lines := strings.Split(got.Content, "\n")
	if got.IsError || len(lines) != 1002 || lines[0] != "f/0000.txt" || lines[999] != "f/0999.txt" ||
		lines[1001] != "[Showing the first 1000 of 1005 matching files; narrow the pattern or path.]" {
		t.Errorf("got %d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
}

// A search rooted in a read root (a skill directory) lists absolute paths.
func TestGlobSearchReadRoot(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	skills := filepath.Join(filepath.Dir(e.ws), "skills")
	writeFile(t, filepath.Join(skills, "s", "SKILL.md"), "x")
	writeFile(t, filepath.Join(skills, "s", "scripts", "run.sh"), "x")
	e.sb.ReadRoots = []string{skills}
	got := call(t, e.tool(t, "glob_search", CoreOptions{}), map[string]any{"pattern": "**", "path": filepath.Join(skills, "s")})
	want := filepath.Join(skills, "s", "SKILL.md") + "\n" + filepath.Join(skills, "s", "scripts", "run.sh")
	if diff := cmp.Diff(providers.ToolResult{Content: want}, got); diff != "" {
		t.Error(diff)
	}
}
