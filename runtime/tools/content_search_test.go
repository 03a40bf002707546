package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

// searchTree builds the workspace shared by the content_search tests.
func searchTree(t *testing.T) *testEnv {
	t.Helper()
	e := newTestEnv(t)
	e.write(t, "a.txt", "alpha\nTODO one\nbeta\ngamma\nTODO two\ndelta\n")
	e.write(t, "src/main.go", "package main\n\n// TODO: fix\nfunc main() {}\n")
	e.write(t, "src/util/u.go", "package util\n// todo lower\n")
	e.write(t, "src/web/app.ts", "// TODO ts\n")
	e.write(t, "src/vendor/v.go", "// TODO vendored\n")
	e.write(t, ".hidden/h.txt", "TODO hidden\n")
	e.write(t, ".git/HEAD", "TODO git\n")
	e.write(t, "node_modules/m/i.js", "TODO module\n")
	e.write(t, "bin.dat", "TODO\x00binary\n")
	e.write(t, "crlf.txt", "TODO crlf\r\nnext\r\n")
	e.write(t, "latin1.txt", "TODO caf\xe9\n")
	e.write(t, "keys/k.txt", "TODO key\n")
	e.write(t, "a-b.txt", "TODO dash\n")
	e.write(t, "a/b.txt", "TODO slash\n")
	writeFile(t, filepath.Join(e.outside, "o.txt"), "TODO outside\n")
	symlink(t, e.outside, filepath.Join(e.ws, "out-dir"))
	symlink(t, filepath.Join(e.outside, "o.txt"), filepath.Join(e.ws, "out.txt"))
	symlink(t, filepath.Join(e.ws, "a.txt"), filepath.Join(e.ws, "inner-link.txt"))
	e.sb.Forbidden = []string{"keys"}
	return e
}

func TestContentSearchGo(t *testing.T) {
	t.Parallel()
	e := searchTree(t)
	tests := []struct {
		name string
		args map[string]any
		want providers.ToolResult
	}{
		{"content", map[string]any{"pattern": "TODO"}, providers.ToolResult{Content: strings.Join([]string{
			".hidden/h.txt:1:TODO hidden", "a/b.txt:1:TODO slash", "a-b.txt:1:TODO dash", "a.txt:2:TODO one", "a.txt:5:TODO two",
			"crlf.txt:1:TODO crlf", "latin1.txt:1:TODO caf\uFFFD", "src/main.go:3:// TODO: fix", "src/vendor/v.go:1:// TODO vendored",
			"src/web/app.ts:1:// TODO ts"}, "\n")}},
		{"files", map[string]any{"pattern": "TODO", "output_mode": "files_with_matches", "path": "src"},
			providers.ToolResult{Content: "src/main.go\nsrc/vendor/v.go\nsrc/web/app.ts"}},
		{"count", map[string]any{"pattern": "TODO", "output_mode": "count", "include": "*.txt"},
			providers.ToolResult{Content: ".hidden/h.txt:1\na/b.txt:1\na-b.txt:1\na.txt:2\ncrlf.txt:1\nlatin1.txt:1"}},
		{"case insensitive", map[string]any{"pattern": "todo", "case_sensitive": false, "include": "*.go"},
			providers.ToolResult{Content: "src/main.go:3:// TODO: fix\nsrc/util/u.go:2:// todo lower\nsrc/vendor/v.go:1:// TODO vendored"}},
		{"case sensitive by default", map[string]any{"pattern": "todo"}, providers.ToolResult{Content: "src/util/u.go:2:// todo lower"}},
		{"context", map[string]any{"pattern": "TODO", "path": "a.txt", "context_before": 1},
			providers.ToolResult{Content: "a.txt-1-alpha\na.txt:2:TODO one\n--\na.txt-4-gamma\na.txt:5:TODO two"}},
		{"contiguous context", map[string]any{"pattern": "TODO", "path": "a.txt", "context_before": 1, "context_after": 1},
			providers.ToolResult{Content: "a.txt-1-alpha\na.txt:2:TODO one\na.txt-3-beta\na.txt-4-gamma\na.txt:5:TODO two\na.txt-6-delta"}},
		{"context merges", map[string]any{"pattern": "TODO", "path": "a.txt", "context_after": 2},
			providers.ToolResult{Content: "a.txt:2:TODO one\na.txt-3-beta\na.txt-4-gamma\na.txt:5:TODO two\na.txt-6-delta"}},
		{"context across files", map[string]any{"pattern": "TODO", "path": "src", "include": "*.go", "context_after": 1},
			providers.ToolResult{Content: "src/main.go:3:// TODO: fix\nsrc/main.go-4-func main() {}\n--\nsrc/vendor/v.go:1:// TODO vendored"}},
		{"include with slash", map[string]any{"pattern": "TODO", "path": "src", "include": "web/*.ts"},
			providers.ToolResult{Content: "src/web/app.ts:1:// TODO ts"}},
		{"include alternatives", map[string]any{"pattern": "TODO", "include": "*.{ts,go}", "output_mode": "files_with_matches"},
			providers.ToolResult{Content: "src/main.go\nsrc/vendor/v.go\nsrc/web/app.ts"}},
		{"exclude dir", map[string]any{"pattern": "TODO", "path": "src", "include": "!vendor"},
			providers.ToolResult{Content: "src/main.go:3:// TODO: fix\nsrc/web/app.ts:1:// TODO ts"}},
		{"max results", map[string]any{"pattern": "TODO", "max_results": 2},
			providers.ToolResult{Content: ".hidden/h.txt:1:TODO hidden\na/b.txt:1:TODO slash\n\n[Results truncated: showing the first 2 matching lines; narrow the pattern, path or include.]"}},
		{"max results files", map[string]any{"pattern": "TODO", "max_results": 1, "output_mode": "files_with_matches"},
			providers.ToolResult{Content: ".hidden/h.txt\n\n[Results truncated: showing the first 1 files; narrow the pattern, path or include.]"}},
		{"max results keeps after-context", map[string]any{"pattern": "TODO", "path": "a.txt", "max_results": 1, "context_after": 1},
			providers.ToolResult{Content: "a.txt:2:TODO one\na.txt-3-beta\n\n[Results truncated: showing the first 1 matching lines; narrow the pattern, path or include.]"}},
		{"regex", map[string]any{"pattern": `^func \w+\(`}, providers.ToolResult{Content: "src/main.go:4:func main() {}"}},
		{"single file", map[string]any{"pattern": "beta", "path": "a.txt"}, providers.ToolResult{Content: "a.txt:3:beta"}},
		{"no match", map[string]any{"pattern": "zzz"}, providers.ToolResult{Content: "No matches found for pattern 'zzz'."}},
		{"links not followed", map[string]any{"pattern": "outside"}, providers.ToolResult{Content: "No matches found for pattern 'outside'."}},
		{"binary file named", map[string]any{"pattern": "TODO", "path": "bin.dat"}, providers.ToolResult{Content: "File bin.dat looks binary (it contains NUL bytes); only text files can be read.", IsError: true}},
		{"path through link", map[string]any{"pattern": "TODO", "path": "out-dir"}, providers.ToolResult{Content: "Path out-dir resolves to " + e.outside + ", which is outside the workspace (" + e.ws + ").", IsError: true}},
		{"path outside", map[string]any{"pattern": "TODO", "path": "../outside"}, providers.ToolResult{Content: "Path ../outside is outside the workspace (" + e.ws + ").", IsError: true}},
		{"path forbidden", map[string]any{"pattern": "TODO", "path": "keys"}, providers.ToolResult{Content: "Path keys is forbidden by [autonomy].forbidden_paths.", IsError: true}},
		{"path missing", map[string]any{"pattern": "TODO", "path": "nope"}, providers.ToolResult{Content: "Path nope does not exist.", IsError: true}},
		{"bad regex", map[string]any{"pattern": "(unclosed"}, providers.ToolResult{Content: "Invalid regex pattern: error parsing regexp: missing closing ): `(unclosed`.", IsError: true}},
		{"empty pattern", map[string]any{"pattern": ""}, providers.ToolResult{Content: "pattern must not be empty.", IsError: true}},
		{"bad include", map[string]any{"pattern": "x", "include": "../*.go"}, providers.ToolResult{Content: "include: Pattern '../*.go' must be relative to the search directory and must not contain '..'; use path to choose the directory.", IsError: true}},
		{"bad mode", map[string]any{"pattern": "x", "output_mode": "lines"}, providers.ToolResult{Content: `Invalid arguments for content_search: property "output_mode": must be one of content, files_with_matches, count`, IsError: true}},
		{"context too large", map[string]any{"pattern": "x", "context_after": 51}, providers.ToolResult{Content: `Invalid arguments for content_search: property "context_after": must be at most 50`, IsError: true}},
	}
	tl := e.tool(t, "content_search", CoreOptions{ForceGoSearch: true})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, call(t, tl, tt.args)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestContentSearchOutputCap(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	var b strings.Builder
	for n := range 200 {
		fmt.Fprintf(&b, "match %03d\n", n)
	}
	e.write(t, "m.txt", b.String())
	got := call(t, e.tool(t, "content_search", CoreOptions{ForceGoSearch: true, MaxOutputChars: 100}), map[string]any{"pattern": "match"})
	want := "m.txt:1:match 000\nm.txt:2:match 001\nm.txt:3:match 002\nm.txt:4:match 003\nm.txt:5:match 004\n[Output truncated at 100 characters; narrow the pattern, path or include.]"
	if diff := cmp.Diff(providers.ToolResult{Content: want}, got); diff != "" {
		t.Error(diff)
	}
}

// When ripgrep is installed, both engines give byte-identical results.
func TestContentSearchRipgrepParity(t *testing.T) {
	t.Parallel()
	rg := findRipgrep()
	if rg == "" {
		t.Skip("rg not on PATH")
	}
	e := searchTree(t)
	var many strings.Builder
	for n := range 30 {
		fmt.Fprintf(&many, "row %d TODO\nfiller %d\n", n, n)
	}
	e.write(t, "many/m.txt", many.String())
	e.write(t, "many/n.txt", many.String())
	queries := []map[string]any{
		{"pattern": "TODO"},
		{"pattern": "todo", "case_sensitive": false},
		{"pattern": "TODO", "output_mode": "files_with_matches"},
		{"pattern": "TODO", "output_mode": "count"},
		{"pattern": "TODO", "context_before": 2, "context_after": 1},
		{"pattern": "TODO", "path": "src", "include": "*.go"},
		{"pattern": "TODO", "path": "src", "include": "web/*.ts"},
		{"pattern": "TODO", "path": "src", "include": "!vendor"},
		{"pattern": "TODO", "include": "*.{ts,go}"},
		{"pattern": "TODO", "include": "./src/*.go"},
		{"pattern": "TODO", "include": "!*.txt", "output_mode": "files_with_matches"},
		{"pattern": "TODO", "include": "**/*.txt", "output_mode": "count"},
		{"pattern": "TODO", "max_results": 3},
		{"pattern": "TODO", "max_results": 5, "context_after": 1, "path": "many"},
		{"pattern": "TODO", "max_results": 35, "path": "many"},
		{"pattern": "TODO", "max_results": 1, "output_mode": "files_with_matches"},
		{"pattern": "TODO", "path": "a.txt", "context_after": 3},
		{"pattern": `^\w+ \d+ TODO$`, "path": "many", "output_mode": "count"},
		{"pattern": "caf", "path": "latin1.txt"},
		{"pattern": "crlf$"},
		{"pattern": "crlf\r$"},
		{"pattern": "^$"},
		{"pattern": "outside"},
		{"pattern": "nothing-matches-this"},
	}
	goTool := newContentSearch(e.sb, defaultMaxOutput, "", nil, nil)
	rgTool := newContentSearch(e.sb, defaultMaxOutput, rg, nil, nil)
	for _, q := range queries {
		want := call(t, goTool, q)
		got := call(t, rgTool, q)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v: Go engine vs ripgrep (-go +rg):\n%s", q, diff)
		}
	}
}

// A pattern ripgrep rejects but Go accepts falls back to the Go engine.
func TestContentSearchRipgrepFallback(t *testing.T) {
	t.Parallel()
	if findRipgrep() == "" {
		t.Skip("rg not on PATH")
	}
	e := newTestEnv(t)
	e.write(t, "q.txt", "a.b\n")
	// \Q...\E is RE2 syntax that Rust's regex does not have.
	tl := newContentSearch(e.sb, defaultMaxOutput, findRipgrep(), nil, nil)
	got := call(t, tl, map[string]any{"pattern": `\Qa.b\E`})
	if diff := cmp.Diff(providers.ToolResult{Content: "q.txt:1:a.b"}, got); diff != "" {
		t.Error(diff)
	}
	// rg refuses a newline in a line-oriented pattern; Go just finds nothing.
	got = call(t, tl, map[string]any{"pattern": `a\nb`})
	if diff := cmp.Diff(providers.ToolResult{Content: `No matches found for pattern 'a\nb'.`}, got); diff != "" {
		t.Error(diff)
	}
}

func TestSearchEnv(t *testing.T) {
	t.Parallel()
	got := searchEnv([]string{"PATH=/bin", "HOME=/h", "LANG=C", "LC_ALL=C", "RIPGREP_CONFIG_PATH=/x", "GITHUB_TOKEN=t", "LCX=1"})
	want := []string{"PATH=/bin", "HOME=/h", "LANG=C", "LC_ALL=C"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestSearchCancelled(t *testing.T) {
	t.Parallel()
	e := searchTree(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	want := providers.ToolResult{Content: "Search cancelled.", IsError: true}
	tools := []Tool{
		newContentSearch(e.sb, defaultMaxOutput, "", nil, nil),
		e.tool(t, "glob_search", CoreOptions{}),
	}
	if rg := findRipgrep(); rg != "" {
		tools = append(tools, newContentSearch(e.sb, defaultMaxOutput, rg, nil, nil))
	}
	for _, tl := range tools {
		got := callCtx(ctx, t, tl, map[string]any{"pattern": "TODO"})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tl.Spec().Name, diff)
		}
	}
}
