package mdterm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzSeeds are the samples and a few inputs at the parsers' corners.
func fuzzSeeds(f *testing.F) []string {
	seeds := []string{
		"", "a", "# h\n", "a\n---\n", "***", "- a\n  - b\n\n- c", "1. a\n2) b",
		"> a\nb\n> ```\n", "```go\nx := `a\n\nb`\n```", "~~~\n", "    code\n\n\tmore",
		"|a|b|\n|:-|-:|\n|1|2|3|", "| \\| |\n|---|", "**a *b** c*", "_a_b_ *a*b* ***a***",
		"[a](b) [a](<b c> \"t\") ![i](j) [x][y] <http://a> <a@b.c> https://x.y/z_z.",
		"&amp;&#27;&#x202e;&#0; \\* \\\n", "a  \nb", "\x1b[31m\x1b]8;;x\x07\u009b\u202e",
		"- [ ] t\n- [x] u", "日本語の文。👩‍💻 e\u0301", strings.Repeat("> ", 30) + "deep",
		strings.Repeat("- ", 30) + "deep", "123456789. x", "```\n```\n```", "-\n\n  x",
		"a\r\n\r\nb\rc", "*" + strings.Repeat("a *", 50),
	}
	mds, _ := filepath.Glob(filepath.Join("testdata", "*.md"))
	for _, md := range mds {
		b, err := os.ReadFile(md)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, string(b))
	}
	return seeds
}

// FuzzRender: Render never panics, is deterministic, sends no escape
// sequence but SGR, ends no line with a space, and keeps every line but
// code within the width.
func FuzzRender(f *testing.F) {
	for i, s := range fuzzSeeds(f) {
		f.Add(s, 10+i%5*15, i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, src string, width int, color bool) {
		o := Options{Width: width, Color: color}
		out := Render(src, o)
		if again := Render(src, o); again != out {
			t.Fatalf("Render is not deterministic: %q then %q", out, again)
		}
		checkOutput(t, out, width)
		w := min(max(width, minWidth), maxWidth)
		for _, l := range renderLines(src, o) {
			if !l.code && l.width() > w {
				var b strings.Builder
				writeLines(&b, []line{l}, false)
				t.Fatalf("line %q is %d wide, more than %d", b.String(), l.width(), w)
			}
		}
	})
}

// FuzzStream: the chunks add up to the input, render one by one as the
// whole renders, and do not depend on how the input was cut.
func FuzzStream(f *testing.F) {
	for i, s := range fuzzSeeds(f) {
		f.Add(s, i*7)
	}
	f.Fuzz(func(t *testing.T, src string, cut int) {
		if len(src) > 4096 {
			return // a byte at a time is quadratic
		}
		if cut < 0 {
			cut = -cut
		}
		checkStream(t, src, cut%(len(src)+1))
	})
}
