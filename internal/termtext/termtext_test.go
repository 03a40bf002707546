package termtext

import (
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, text, line string }{
		{"plain, 日本語 ✓ \\ back", "plain, 日本語 ✓ \\ back", "plain, 日本語 ✓ \\ back"},
		{"\x1b]0;PWNED\a \x1b[2J \x00", `\x1b]0;PWNED\x07 \x1b[2J \x00`, `\x1b]0;PWNED\x07 \x1b[2J \x00`},
		{"a\tb\nc\r", "a\tb\nc\\r", `a\tb\nc\r`},
		{"del\x7f c1\u0085\u009b", `del\u007f c1\u0085\u009b`, `del\u007f c1\u0085\u009b`},
		{"marks\u200e\u200f zwj👩\u200d💻", "marks\u200e\u200f zwj👩\u200d💻", "marks\u200e\u200f zwj👩\u200d💻"},
		{"bidi\u202egnp\u2066x\u2069", `bidi\u202egnp\u2066x\u2069`, `bidi\u202egnp\u2066x\u2069`},
		{"bad\xff\xc3", `bad\xff\xc3`, `bad\xff\xc3`},
		{"", "", ""},
	} {
		if got := Escape(tt.in); got != tt.text {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.text)
		}
		if got := EscapeLine(tt.in); got != tt.line {
			t.Errorf("EscapeLine(%q) = %q, want %q", tt.in, got, tt.line)
		}
	}
}

// FuzzEscape: the result of EscapeLine is UTF-8 without any control
// character, Escape's without any but tab and newline, and text with nothing
// to escape is returned as it is.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"\x1b[2J", "a\tb\nc", "\u202e\xff", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, oneLine := range []bool{false, true} {
			got := escape(s, oneLine)
			if !utf8.ValidString(got) {
				t.Fatalf("escape(%q, %v) = %q: not UTF-8", s, oneLine, got)
			}
			for _, r := range got {
				if needsEscape(r, oneLine) {
					t.Fatalf("escape(%q, %v) = %q: holds %U", s, oneLine, got, r)
				}
			}
			if firstEscaped(s, oneLine) < 0 && got != s {
				t.Fatalf("escape(%q, %v) changed clean text to %q", s, oneLine, got)
			}
			if i, j := firstEscaped(s, oneLine), firstEscaped([]byte(s), oneLine); i != j {
				t.Fatalf("firstEscaped(%q, %v) = %d, of its bytes %d", s, oneLine, i, j)
			}
		}
	})
}
