package termtext

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWrap: lines break at spaces within the width, never inside a word;
// a word longer than the line stands whole on its own; prefixes count.
func TestWrap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		text        string
		width       int
		first, rest string
		want        []string
	}{
		{"fits", "trust this workspace", 40, "", "", []string{"trust this workspace"}},
		{"breaks at spaces", "the quick brown fox jumps over the lazy dog", 15, "", "",
			[]string{"the quick brown", "fox jumps over", "the lazy dog"}},
		{"exact width", "abcde fghij", 5, "", "", []string{"abcde", "fghij"}},
		{"long word whole", "see /a/very/long/path/that/does/not/fit here", 10, "", "",
			[]string{"see", "/a/very/long/path/that/does/not/fit", "here"}},
		{"long first word", "/a/very/long/path next", 8, "", "", []string{"/a/very/long/path", "next"}},
		{"hanging indent", "config autonomy.level = full: untrusted workspace", 20, "  - ", "    ",
			[]string{"  - config", "    autonomy.level =", "    full: untrusted", "    workspace"}},
		{"white space collapses", "a\n\n  b\tc ", 80, "", "", []string{"a b c"}},
		{"no limit", "one two three", 0, "> ", "", []string{"> one two three"}},
		{"empty", "  ", 10, "> ", "", []string{"> "}},
		{"runes count as one", "ééééé ééééé", 5, "", "", []string{"ééééé", "ééééé"}},
	}
	for _, tt := range tests {
		got := Wrap(tt.text, tt.width, tt.first, tt.rest)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: Wrap = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// FuzzWrap: no word is ever cut or lost, and a line over the width holds
// one word alone.
func FuzzWrap(f *testing.F) {
	f.Add("the quick brown fox", 7)
	f.Add("a /very/long/word b", 3)
	f.Add("\x1b[31m red \u202e", 4)
	f.Fuzz(func(t *testing.T, text string, width int) {
		width %= 200
		lines := Wrap(text, width, "", "")
		var words []string
		for _, l := range lines {
			if width > 0 && utf8.RuneCountInString(l) > width && len(strings.Fields(l)) > 1 {
				t.Fatalf("line %q over width %d holds several words", l, width)
			}
			words = append(words, strings.Fields(l)...)
		}
		if want := strings.Fields(text); !slices.Equal(words, want) {
			t.Fatalf("words %q, want %q", words, want)
		}
	})
}
