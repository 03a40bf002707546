package mdterm

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGolden renders each testdata/*.md plain and in colour at widths 80
// and 40 and compares with testdata/*.golden, a txtar archive with one file
// per rendering (ESC shown as ␛ so the colours can be read).
func TestGolden(t *testing.T) {
	t.Parallel()
	mds, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	if err != nil || len(mds) == 0 {
		t.Fatalf("no testdata/*.md: %v", err)
	}
	for _, md := range mds {
		src, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		ar := &txtar.Archive{Comment: []byte("Render of " + filepath.Base(md) + " (go test -update rewrites this file).\n")}
		for _, color := range []bool{false, true} {
			for _, width := range []int{80, 40} {
				got := Render(string(src), Options{Width: width, Color: color})
				checkOutput(t, got, width)
				name := fmt.Sprintf("plain-%d", width)
				if color {
					name = fmt.Sprintf("color-%d", width)
				}
				ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(strings.ReplaceAll(got, "\x1b", "␛"))})
			}
		}
		golden := strings.TrimSuffix(md, ".md") + ".golden"
		got := string(txtar.Format(ar))
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", golden, diff)
		}
	}
}

// checkOutput checks what every rendering must be: only SGR sequences, no
// other control character, no trailing spaces, lines within width except
// code lines (checked by the fuzz targets, which see the line kinds).
func checkOutput(t *testing.T, out string, width int) {
	t.Helper()
	if err := safe(out); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if p := stripSGR(l); strings.HasSuffix(p, " ") {
			t.Fatalf("trailing space in line %q", p)
		}
	}
	if out != "" && !strings.HasSuffix(out, "\n") {
		t.Fatalf("output does not end with a newline: %q", out)
	}
}

// safe returns an error when out holds a control character other than a
// newline and the ESC of an SGR sequence ("\x1b[" digits and semicolons
// "m"), a C1 control or a bidi override or isolate.
func safe(out string) error {
	if !utf8.ValidString(out) {
		return fmt.Errorf("invalid UTF-8")
	}
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRuneInString(out[i:])
		switch {
		case r == '\x1b':
			j := i + 1
			if j >= len(out) || out[j] != '[' {
				return fmt.Errorf("ESC not starting CSI at %d", i)
			}
			j++
			for j < len(out) && (out[j] >= '0' && out[j] <= '9' || out[j] == ';') {
				j++
			}
			if j >= len(out) || out[j] != 'm' {
				return fmt.Errorf("CSI that is not SGR at %d", i)
			}
			i = j + 1
			continue
		case r == '\n':
		case r < 0x20, 0x7f <= r && r <= 0x9f, 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
			return fmt.Errorf("control %U at %d", r, i)
		}
		i += size
	}
	return nil
}

func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\x1b' {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestRender(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, src string
		width     int
		color     bool
		want      string
	}{
		{"empty", "", 80, true, ""},
		{"blank lines", "\n \n\n", 80, true, ""},
		{"paragraph joins lines", "a\nb\n", 80, false, "a b\n"},
		{"blocks one blank line apart", "a\n\n\n\nb", 80, false, "a\n\nb\n"},
		{"wrap at spaces", "aaa bbb ccc ddd", 10, false, "aaa bbb\nccc ddd\n"},
		{"width below 10 is 10", "aaa bbb ccc ddd", 3, false, "aaa bbb\nccc ddd\n"},
		{"long word cut", "abcdefghijklmnop x", 10, false, "abcdefghij\nklmnop x\n"},
		{"wide runes count two", "日本語日本語 ab", 10, false, "日本語日本\n語 ab\n"},
		{"combining marks count zero", "e\u0301e\u0301e\u0301e\u0301e\u0301 abcd", 10, false, "e\u0301e\u0301e\u0301e\u0301e\u0301 abcd\n"},
		{"strong", "**b**", 80, true, "\x1b[1mb\x1b[0m\n"},
		{"em", "*i* _j_", 80, true, "\x1b[3mi\x1b[0m \x1b[3mj\x1b[0m\n"},
		{"strong em", "***x***", 80, true, "\x1b[1;3mx\x1b[0m\n"},
		{"intraword underscore", "snake_case_name", 80, true, "snake_case_name\n"},
		{"intraword star", "a*b*c", 80, true, "a\x1b[3mb\x1b[0mc\n"},
		{"unmatched", "**a", 80, true, "**a\n"},
		{"escape", `\*a\* \# \\`, 80, true, "*a* # \\\n"},
		{"code span", "`a  *b*`", 80, true, "\x1b[36ma *b*\x1b[0m\n"},
		{"code span plain", "`x`", 80, false, "`x`\n"},
		{"double backtick", "``a`b``", 80, false, "`a`b`\n"},
		{"strike", "~~s~~ ~t~", 80, true, "\x1b[9ms\x1b[0m ~t~\n"},
		{"strike plain", "~~s~~", 80, false, "~~s~~\n"},
		{"link", "[t](http://u)", 80, true, "\x1b[4;34mt\x1b[0m \x1b[2m(http://u)\x1b[0m\n"},
		{"link same", "[http://u](http://u)", 80, false, "http://u\n"},
		{"link title", `[t](u "title")`, 80, false, "t (u)\n"},
		{"link not closed", "[t](u", 80, false, "[t](u\n"},
		{"reference link as text", "[t][r]", 80, false, "[t][r]\n"},
		{"image", "![alt](i.png)", 80, false, "image: alt (i.png)\n"},
		{"autolink", "<https://x.org/a>", 80, false, "https://x.org/a\n"},
		{"email", "<a@b.org>", 80, false, "a@b.org\n"},
		{"bare url", "see https://x.org/a_b_c.", 80, true, "see \x1b[4;34mhttps://x.org/a_b_c\x1b[0m.\n"},
		{"html text", "<b>x</b>", 80, true, "<b>x</b>\n"},
		{"entity", "&amp; &lt; &#x41; &#27; &bogus;", 80, false, "& < A &#27; &bogus;\n"},
		{"hard break", "a  \nb\\\nc", 80, false, "a\nb\nc\n"},
		{"atx", "# T #", 80, true, "\x1b[1;4;35mT\x1b[0m\n"},
		{"atx plain", "### T", 80, false, "### T\n"},
		{"atx needs space", "#T", 80, false, "#T\n"},
		{"setext", "T\n===", 80, false, "# T\n"},
		{"setext 2", "T\n---", 80, true, "\x1b[1;4mT\x1b[0m\n"},
		{"h3 color", "### T", 80, true, "\x1b[1mT\x1b[0m\n"},
		{"rule", "***", 12, false, "────────────\n"},
		{"rule color", "- - -", 10, true, "\x1b[2m──────────\x1b[0m\n"},
		{"bullets", "- a\n- b\n  - c\n    - d\n      - e", 80, false, "• a\n• b\n  ◦ c\n    ▪ d\n      • e\n"},
		{"item continuation", "- aaa bbb ccc", 10, false, "• aaa bbb\n  ccc\n"},
		{"lazy continuation", "- a\nb", 80, false, "• a b\n"},
		{"ordered keeps numbers", "3. a\n7. b", 80, false, "3. a\n7. b\n"},
		{"ordered paren", "1) a", 80, false, "1) a\n"},
		{"loose list", "- a\n\n- b", 80, false, "• a\n\n• b\n"},
		{"item paragraphs", "- a\n\n  b", 80, false, "• a\n\n  b\n"},
		{"tasks", "- [ ] a\n- [x] b", 80, false, "☐ a\n☑ b\n"},
		{"task color", "- [X] b", 80, true, "\x1b[32m☑ \x1b[0mb\n"},
		{"not a task", "- [ ]", 80, false, "• [ ]\n"},
		{"list interrupts paragraph", "a\n- b", 80, false, "a\n\n• b\n"},
		{"ordered 2 does not interrupt", "a\n2. b", 80, false, "a 2. b\n"},
		{"quote", "> a\n> b", 80, false, "│ a b\n"},
		{"quote lazy", "> a\nb", 80, false, "│ a b\n"},
		{"quote blank", "> a\n>\n> b", 80, true, "\x1b[2m│ \x1b[0ma\n\x1b[2m│\x1b[0m\n\x1b[2m│ \x1b[0mb\n"},
		{"fence plain", "```go\nx\n```", 80, false, "```go\nx\n```\n"},
		{"fence color", "~~~\n x\n\n~~~", 80, true, "   x\n"},
		{"fence unclosed", "```\na\n\nb", 80, false, "```\na\n\nb\n```\n"},
		{"fence in fence plain", "````\n```\n````", 80, false, "````\n```\n````\n"},
		{"fence indented content", "  ```\n  a\n    b\n```", 80, false, "```\na\n  b\n```\n"},
		{"empty code block color", "a\n\n```\n\n```\n\nb", 80, true, "a\n\nb\n"},
		{"code not wrapped", "```\naaaa bbbb cccc\n```", 10, true, "  aaaa bbbb cccc\n"},
		{"indented code", "    a\n\n    b", 80, false, "```\na\n\nb\n```\n"},
		{"tabs", "\tx\n", 80, false, "```\nx\n```\n"},
		{"crlf", "a\r\nb\r\n\r\nc", 80, false, "a b\n\nc\n"},
		{"table", "|a|b|\n|-|-:|\n|x|yy|", 80, false, "┌───┬────┐\n│ a │  b │\n├───┼────┤\n│ x │ yy │\n└───┴────┘\n"},
		{"table short row", "a|b\n-|-\nx", 80, false, "┌───┬───┐\n│ a │ b │\n├───┼───┤\n│ x │   │\n└───┴───┘\n"},
		{"table wraps cells", "|a|b|\n|-|-|\n|one two three|x|", 20, false,
			"┌──────────────┬───┐\n│ a            │ b │\n├──────────────┼───┤\n│ one two      │ x │\n│ three        │   │\n└──────────────┴───┘\n"},
		{"table too narrow", "|a|b|c|\n|-|-|-|\n|1|2|3|", 10, false, "a: 1\nb: 2\nc: 3\n"},
		{"table header color", "|a|\n|-|\n|b|", 80, true,
			"\x1b[2m┌───┐\x1b[0m\n\x1b[2m│ \x1b[0m\x1b[1ma\x1b[0m \x1b[2m│\x1b[0m\n\x1b[2m├───┤\x1b[0m\n\x1b[2m│ \x1b[0mb \x1b[2m│\x1b[0m\n\x1b[2m└───┘\x1b[0m\n"},
		{"pipe without delimiter row", "a | b\nc", 80, false, "a | b c\n"},
		{"heading interrupts paragraph", "a\n# b", 80, false, "a\n\n# b\n"},
		{"deep nesting stays in width", strings.Repeat("> ", 12) + "word", 10, false, "│ word\n"},
	} {
		got := Render(tt.src, Options{Width: tt.width, Color: tt.color})
		if got != tt.want {
			t.Errorf("%s: Render(%q, %d, %v) =\n%q\nwant\n%q", tt.name, tt.src, tt.width, tt.color, got, tt.want)
		}
		checkOutput(t, got, max(tt.width, minWidth))
	}
}

// TestRenderControlCharacters: whatever the model writes, the terminal
// gets no escape sequence but this package's SGR styles.
func TestRenderControlCharacters(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"\x1b[2J\x1b]0;title\x07 clear and retitle",
		"# head \x1b[31mred\x1b[0m",
		"OSC 8 \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\",
		"[text\x1b[1m](http://a\x1b[2Jb)",
		"`code \x1b[5m`",
		"```\x1b[31m\ncode \x1b[2J \u009b31m \x07\n```",
		"```go\n\"\x1b[2J\" // \x1b]52;c;Zm9v\x07\n```",
		"| \x1b[1m | b |\n|---|---|\n| \u009b2J | \u202egnp.exe |",
		"- item \u2066isolate\u2069 \u202aembed\u202c",
		"> quote \x9b\xc2\x9b \xff",
		"&#27;[2J &#x1b; &#155; &#x202e; &#7; &#0;",
		"bare\rCR and \x7f DEL \x00 NUL",
	} {
		for _, color := range []bool{false, true} {
			out := Render(src, Options{Width: 40, Color: color})
			if err := safe(out); err != nil {
				t.Errorf("Render(%q, color %v): %v:\n%q", src, color, err, out)
			}
			if strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x1b]") {
				t.Errorf("Render(%q) passed a sequence through: %q", src, out)
			}
		}
	}
	// The escapes are those of termtext: the text says what was there.
	out := Render("a\x1bb \u202e", Options{Width: 40})
	if want := `a\x1bb \u202e` + "\n"; out != want {
		t.Errorf("Render = %q, want %q", out, want)
	}
}

// TestWrap: Pending text is escaped and wrapped like rendered text.
func TestWrap(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in    string
		width int
		want  string
	}{
		{"", 20, ""},
		{"aaa bbb ccc ddd", 10, "aaa bbb\nccc ddd\n"},
		{"    indented words here", 12, "    indented\n    words\n    here\n"},
		{"a\x1b[2Jb\n\nc\td", 20, "a\\x1b[2Jb\n\nc   d\n"},
		{"```go\nfunc", 20, "```go\nfunc\n"},
	} {
		if got := Wrap(tt.in, tt.width); got != tt.want {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

func TestHighlight(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ info, code, want string }{
		{"go", "x := `a\nb` // c", "x := <s:`a>\n<s:b`> <c:// c>"},
		{"go", "if n > 0x1F { return 1.5 }", "<k:if> n > <n:0x1F> { <k:return> <n:1.5> }"},
		{"python", "def f(): # don't\n  return f'x'", "<k:def> f(): <c:# don't>\n  <k:return> f<s:'x'>"},
		{"python", "it's", "it's"},
		{"rust", "fn f<'a>(c: char) { 'x' }", "<k:fn> f<'a>(c: char) { <s:'x'> }"},
		{"sql", "SELECT a FROM t -- all", "<k:SELECT> a <k:FROM> t <c:-- all>"},
		{"sh", "echo ${#x} # note", "echo ${#x} <c:# note>"},
		{"yaml", "name: x\n- key: 'v'\nurl: http://a", "<y:name:> x\n<y:- key:> <s:'v'>\n<y:url:> http://a"},
		{"json", `{"k": "v", "n": true}`, `{<y:"k">: <s:"v">, <y:"n">: <k:true>}`},
		{"toml", "[server]\nport = 8080", "<y:[server]>\n<y:port => <n:8080>"},
		{"diff", "--- a\n+x\n-y\n@@ h", "<f:--- a>\n<a:+x>\n<r:-y>\n<h:@@ h>"},
		{"c", "/* a\nb */ int x;", "<c:/* a>\n<c:b */> <k:int> x;"},
		{"text", "if x", ""},
	} {
		sy, ok := syntaxFor(tt.info)
		if !ok {
			if tt.want != "" {
				t.Errorf("syntaxFor(%q): unknown", tt.info)
			}
			continue
		}
		var b strings.Builder
		for _, s := range highlight(tt.code, sy) {
			tags := map[style]string{stKeyword: "k", stString: "s", stComment: "c", stNumber: "n", stKey: "y"}
			if sy.diff {
				tags = map[style]string{stAdded: "a", stRemoved: "r", stHunk: "h", stFileLine: "f"}
			}
			tag := tags[s.st]
			if tag == "" {
				b.WriteString(s.text)
				continue
			}
			fmt.Fprintf(&b, "<%s:%s>", tag, s.text)
		}
		if got := b.String(); got != tt.want {
			t.Errorf("highlight(%s, %q) = %q, want %q", tt.info, tt.code, got, tt.want)
		}
	}
}

// TestWidth: strWidth agrees with the graphemes wrap measures one by one,
// also when an ASCII letter starts a cluster (a spacing mark after it).
func TestWidth(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s string
		w int
	}{
		{"abc", 3}, {"e\u0301", 1}, {"f\ua827x", 2}, {"日本", 4}, {"👩\u200d💻", 2}, {"🇫🇷", 2}, {"a\u00a0b", 3},
	} {
		sum := 0
		for s := tt.s; s != ""; {
			g, w := nextGrapheme(s)
			sum += w
			s = s[len(g):]
		}
		if got := strWidth(tt.s); got != tt.w || sum != tt.w {
			t.Errorf("strWidth(%q) = %d, graphemes add up to %d, want %d", tt.s, got, sum, tt.w)
		}
	}
}
