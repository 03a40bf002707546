package toolview

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/clawseed/clawseed/internal/textdiff"
)

// hunkText renders hunks as unified text, for comparing.
func hunkText(hunks []textdiff.Hunk) string {
	var b strings.Builder
	for _, h := range hunks {
		b.WriteString(h.Header() + "\n")
		for _, l := range h.Lines {
			fmt.Fprintf(&b, "%c%s\n", l.Op, l.Text)
		}
	}
	return b.String()
}

const mainGo = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\tfmt.Println(\"hello\")\n}\n"

func TestDiff(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"main.go":   mainGo,
		"crlf.txt":  "one\r\ntwo\r\nthree\r\n",
		"notes.md":  "# Notes\n- a\n- b\n",
		"/w/app.go": "package app\n",
	}
	for _, tt := range []struct {
		name, tool, args string
		current          map[string]string // nil: no reader
		path, want       string
		ok               bool
	}{
		{"edit, no reader: the snippets, numbered from 1", "file_edit",
			`{"path":"main.go","old_string":"func main() {","new_string":"func main() {\n\tdefer fmt.Println(\"bye\")"}`, nil,
			"main.go", "@@ -1 +1,2 @@\n func main() {\n+\tdefer fmt.Println(\"bye\")\n", true},
		{"edit applied to the file: real line numbers", "file_edit",
			`{"path":"main.go","old_string":"import \"fmt\"","new_string":"import (\n\t\"fmt\"\n\t\"os\"\n)"}`, files,
			"main.go", "@@ -1,6 +1,9 @@\n package main\n \n-import \"fmt\"\n+import (\n+\t\"fmt\"\n+\t\"os\"\n+)\n \n func main() {\n \tfmt.Println(\"hello\")\n", true},
		{"replace_all applied", "file_edit",
			`{"path":"main.go","old_string":"hello","new_string":"bye","replace_all":true}`, files,
			"main.go", "@@ -3,6 +3,6 @@\n import \"fmt\"\n \n func main() {\n-\tfmt.Println(\"hello\")\n-\tfmt.Println(\"hello\")\n+\tfmt.Println(\"bye\")\n+\tfmt.Println(\"bye\")\n }\n", true},
		{"ambiguous without replace_all: the snippets (the tool refuses it)", "file_edit",
			`{"path":"main.go","old_string":"hello","new_string":"bye"}`, files,
			"main.go", "@@ -1 +1 @@\n-hello\n+bye\n", true},
		{"not found: the snippets", "file_edit",
			`{"path":"main.go","old_string":"absent","new_string":"x"}`, files,
			"main.go", "@@ -1 +1 @@\n-absent\n+x\n", true},
		{"CRLF file, LF strings: applied as the tool does", "file_edit",
			`{"path":"crlf.txt","old_string":"one\ntwo","new_string":"one\n2"}`, files,
			"crlf.txt", "@@ -1,3 +1,3 @@\n one\r\n-two\r\n+2\r\n three\r\n", true},
		{"file unknown to the reader: the snippets", "file_edit",
			`{"path":"gone.go","old_string":"a\nb\n","new_string":"a\nc\n"}`, files,
			"gone.go", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n", true},
		{"Claude Code's Edit with file_path", "Edit",
			`{"file_path":"/w/app.go","old_string":"package app","new_string":"package app2"}`, files,
			"/w/app.go", "@@ -1 +1 @@\n-package app\n+package app2\n", true},
		{"write of a new file: every line added", "file_write",
			`{"path":"new.md","content":"a\nb \u0026 c\n"}`, files,
			"new.md", "@@ -0,0 +1,2 @@\n+a\n+b & c\n", true},
		{"write without a reader: every line added", "file_write",
			`{"path":"notes.md","content":"# Notes\n- a\n"}`, nil,
			"notes.md", "@@ -0,0 +1,2 @@\n+# Notes\n+- a\n", true},
		{"write over a file: the real diff", "Write",
			`{"file_path":"notes.md","content":"# Notes\n- a\n- c\n"}`, files,
			"notes.md", "@@ -1,3 +1,3 @@\n # Notes\n - a\n-- b\n+- c\n", true},
		{"write of the same content: no hunks", "file_write",
			`{"path":"notes.md","content":"# Notes\n- a\n- b\n"}`, files,
			"notes.md", "", true},
		{"other tool", "file_read", `{"path":"main.go"}`, files, "", "", false},
		{"MCP tool", "mcp__fs__write_file", `{"path":"x","content":"y"}`, files, "", "", false},
		{"no path", "file_write", `{"content":"x"}`, files, "", "", false},
		{"not an object", "file_edit", `"main.go"`, files, "", "", false},
	} {
		var asked []string
		var current func(string) (string, bool)
		if tt.current != nil {
			current = func(p string) (string, bool) {
				asked = append(asked, p)
				s, ok := tt.current[p]
				return s, ok
			}
		}
		path, hunks, ok := Diff(tt.tool, json.RawMessage(tt.args), current)
		if path != tt.path || ok != tt.ok || hunkText(hunks) != tt.want {
			t.Errorf("%s: Diff = %q, %v,\n%s\nwant %q, %v,\n%s", tt.name, path, ok, hunkText(hunks), tt.path, tt.ok, tt.want)
		}
		if tt.ok && tt.current != nil && (len(asked) != 1 || asked[0] != tt.path) {
			t.Errorf("%s: current was asked for %q, want once for %q", tt.name, asked, tt.path)
		}
	}
}

// sampleDiff is a diff with what rendering must handle: two hunks, tabs,
// a control character, a long line, wide characters, a CRLF line and a
// last line without newline.
func sampleDiff() []textdiff.Hunk {
	var old, new strings.Builder
	for i := 1; i <= 120; i++ {
		line := fmt.Sprintf("line %d\n", i)
		old.WriteString(line)
		switch i {
		case 3:
			new.WriteString("\tindented with a tab\n")
		case 4:
			new.WriteString("evil \x1b]0;title\x07 here\r\n")
		case 100:
			new.WriteString(strings.Repeat("long ", 30) + "\n")
			new.WriteString("日本語のテキストがここにあります。とても長い行なので切れます。\n")
		default:
			new.WriteString(line)
		}
	}
	return textdiff.Hunks(old.String(), strings.TrimSuffix(new.String(), "\n"), 3)
}

// TestRenderDiff: the sample at 80 and 40 cells, with and without colour,
// whole and cut to 12 lines (testdata/render_*.golden; colours shown as
// \e[…m). Every line fits the width.
func TestRenderDiff(t *testing.T) {
	t.Parallel()
	hunks := sampleDiff()
	for _, width := range []int{80, 40} {
		for _, color := range []bool{false, true} {
			var b strings.Builder
			for _, maxLines := range []int{0, 12} {
				fmt.Fprintf(&b, "== width %d, max lines %d\n", width, maxLines)
				lines := RenderDiff("src/main.go", hunks, width, maxLines, color)
				if maxLines > 0 && len(lines) != maxLines {
					t.Errorf("width %d colour %v: %d lines, want %d", width, color, len(lines), maxLines)
				}
				for _, l := range lines {
					if w := ansi.StringWidth(l); w > width {
						t.Errorf("width %d colour %v: line %q is %d cells", width, color, l, w)
					}
					if !color && strings.Contains(l, "\x1b") {
						t.Errorf("no colour, yet %q has an escape", l)
					}
					b.WriteString(strings.ReplaceAll(l, "\x1b", `\e`) + "\n")
				}
			}
			mode := "plain"
			if color {
				mode = "color"
			}
			golden(t, fmt.Sprintf("render_%s_%d.golden", mode, width), b.String())
		}
	}
}

func TestRenderDiffEdges(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		path     string
		hunks    []textdiff.Hunk
		maxLines int
		want     []string
	}{
		{"no changes", "a.txt", nil, 0, []string{"a.txt (+0 -0)", "(no changes)"}},
		{"no title", "", textdiff.Hunks("a\n", "b\n", 3), 0, []string{"@@ -1 +1 @@", "1 - a", "1 + b"}},
		{"one line: the count alone", "a.txt", textdiff.Hunks("a\n", "b\n", 3), 1, []string{"… +4 lines"}},
		{"path escaped", "x\x1b[2J.txt", nil, 0, []string{`x\x1b[2J.txt (+0 -0)`, "(no changes)"}},
		{"new file numbers", "", textdiff.Hunks("", "x\n", 3), 0, []string{"@@ -0,0 +1 @@", "1 + x"}},
	} {
		got := RenderDiff(tt.path, tt.hunks, 80, tt.maxLines, false)
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: RenderDiff = %q, want %q", tt.name, got, tt.want)
		}
	}
}
