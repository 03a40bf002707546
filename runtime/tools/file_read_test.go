package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

func numbered(from, to int) string {
	var lines []string
	for n := from; n <= to; n++ {
		lines = append(lines, fmt.Sprintf("%6d\tline %d", n, n))
	}
	return strings.Join(lines, "\n")
}

func TestFileRead(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	var five, big strings.Builder
	for n := 1; n <= 5; n++ {
		fmt.Fprintf(&five, "line %d\n", n)
	}
	for n := 1; n <= 2500; n++ {
		fmt.Fprintf(&big, "line %d\n", n)
	}
	e.write(t, "five.txt", five.String())
	e.write(t, "big.txt", big.String())
	e.write(t, "noeol.txt", "a\nb")
	e.write(t, "crlf.txt", "a\r\nb\r\n")
	e.write(t, "empty.txt", "")
	e.write(t, "bin.dat", "abc\x00def")
	e.write(t, "long.txt", strings.Repeat("é", 2500)+"\n")
	e.write(t, "dir/x.txt", "x")
	huge := filepath.Join(e.ws, "huge.log")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxFileBytes + 1); err != nil { // sparse: cheap
		t.Fatal(err)
	}
	f.Close()
	symlink(t, filepath.Join(e.outside, "secret.txt"), filepath.Join(e.ws, "escape"))
	skills := filepath.Join(filepath.Dir(e.ws), "skills")
	writeFile(t, filepath.Join(skills, "s", "SKILL.md"), "skill body\n")
	e.sb.ReadRoots = []string{skills}
	e.sb.Forbidden = []string{"dir"}

	tests := []struct {
		name string
		args any
		want providers.ToolResult
	}{
		{"whole file", map[string]any{"path": "five.txt"}, providers.ToolResult{Content: numbered(1, 5)}},
		{"offset", map[string]any{"path": "five.txt", "offset": 4}, providers.ToolResult{Content: numbered(4, 5)}},
		{"offset zero is one", map[string]any{"path": "five.txt", "offset": 0, "limit": 1},
			providers.ToolResult{Content: numbered(1, 1) + "\n\n[Showing lines 1-1 of 5. Use offset=2 to read more.]"}},
		{"offset and limit", map[string]any{"path": "five.txt", "offset": 2, "limit": 2},
			providers.ToolResult{Content: numbered(2, 3) + "\n\n[Showing lines 2-3 of 5. Use offset=4 to read more.]"}},
		{"limit past end", map[string]any{"path": "five.txt", "offset": 5, "limit": 10}, providers.ToolResult{Content: numbered(5, 5)}},
		{"default limit 2000", map[string]any{"path": "big.txt"},
			providers.ToolResult{Content: numbered(1, 2000) + "\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to read more.]"}},
		{"rest of big file", map[string]any{"path": "big.txt", "offset": 2001}, providers.ToolResult{Content: numbered(2001, 2500)}},
		{"no final newline", map[string]any{"path": "noeol.txt"}, providers.ToolResult{Content: "     1\ta\n     2\tb"}},
		{"crlf", map[string]any{"path": "crlf.txt"}, providers.ToolResult{Content: "     1\ta\n     2\tb"}},
		{"long line cut", map[string]any{"path": "long.txt"},
			providers.ToolResult{Content: "     1\t" + strings.Repeat("é", 2000) + " [... line truncated]"}},
		{"absolute inside", map[string]any{"path": filepath.Join(e.ws, "five.txt"), "limit": 1},
			providers.ToolResult{Content: numbered(1, 1) + "\n\n[Showing lines 1-1 of 5. Use offset=2 to read more.]"}},
		{"read root", map[string]any{"path": filepath.Join(skills, "s", "SKILL.md")}, providers.ToolResult{Content: "     1\tskill body"}},
		{"empty", map[string]any{"path": "empty.txt"}, providers.ToolResult{Content: "(empty.txt is empty.)"}},
		{"offset beyond end", map[string]any{"path": "five.txt", "offset": 6},
			providers.ToolResult{Content: "Offset 6 is beyond the end of five.txt (5 lines).", IsError: true}},
		{"missing", map[string]any{"path": "nope.txt"}, providers.ToolResult{Content: "File nope.txt does not exist.", IsError: true}},
		{"directory", map[string]any{"path": "."}, providers.ToolResult{Content: ". is a directory; use glob_search to list its files.", IsError: true}},
		{"binary", map[string]any{"path": "bin.dat"},
			providers.ToolResult{Content: "File bin.dat looks binary (it contains NUL bytes); only text files can be read.", IsError: true}},
		{"too large", map[string]any{"path": "huge.log"},
			providers.ToolResult{Content: "File huge.log is too large (10485761 bytes; the limit is 10485760).", IsError: true}},
		{"dotdot", map[string]any{"path": "../outside/secret.txt"},
			providers.ToolResult{Content: "Path ../outside/secret.txt is outside the workspace (" + e.ws + ").", IsError: true}},
		{"absolute outside", map[string]any{"path": "/etc/hostname"},
			providers.ToolResult{Content: "Path /etc/hostname is outside the workspace (" + e.ws + ").", IsError: true}},
		{"symlink escape", map[string]any{"path": "escape"}, providers.ToolResult{Content: "Path escape resolves to " +
			filepath.Join(e.outside, "secret.txt") + ", which is outside the workspace (" + e.ws + ").", IsError: true}},
		{"forbidden", map[string]any{"path": "dir/x.txt"},
			providers.ToolResult{Content: "Path dir/x.txt is forbidden by [autonomy].forbidden_paths.", IsError: true}},
		{"missing path", map[string]any{},
			providers.ToolResult{Content: `Invalid arguments for file_read: missing required property "path"`, IsError: true}},
		{"wrong type", map[string]any{"path": "five.txt", "limit": "10"},
			providers.ToolResult{Content: `Invalid arguments for file_read: property "limit": got string, want integer`, IsError: true}},
		{"unknown property", map[string]any{"path": "five.txt", "lines": 3},
			providers.ToolResult{Content: `Invalid arguments for file_read: unknown property "lines" (allowed: path, offset, limit)`, IsError: true}},
		{"invalid json", `{"path": "five.txt"`,
			providers.ToolResult{Content: "Invalid arguments for file_read: unexpected end of JSON input", IsError: true}},
	}
	tl := e.tool(t, "file_read", CoreOptions{MaxOutputChars: 1 << 20})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, call(t, tl, tt.args)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// With a small output budget file_read stops early and says where to go on.
func TestFileReadOutputBudget(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	var b strings.Builder
	for n := 1; n <= 100; n++ {
		fmt.Fprintf(&b, "line %d\n", n)
	}
	e.write(t, "a.txt", b.String())
	tl := e.tool(t, "file_read", CoreOptions{MaxOutputChars: 150})
	got := call(t, tl, map[string]any{"path": "a.txt"})
	want := numbered(1, 10) + "\n\n[Showing lines 1-10 of 100. Use offset=11 to read more.]"
	if diff := cmp.Diff(want, got.Content); diff != "" || got.IsError {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
