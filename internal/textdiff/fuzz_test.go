package textdiff

import (
	"strings"
	"testing"
)

// FuzzDiff: the edit script's two sides are the two texts, applying the
// hunks of any context to old gives new, and Unified is empty exactly when
// the texts are equal. A small work budget is fuzzed too, so the fallback
// is checked as well as the exact diff.
func FuzzDiff(f *testing.F) {
	for _, s := range [][2]string{
		{"a\nb\nc\n", "a\nB\nc\n"},
		{"", "x\n"},
		{"x", ""},
		{"a\nb", "a\nb\n"},
		{"a\r\nb\r\n", "a\nb\n"},
		{"\n\n\n", "\n"},
		{"x\na\nb\nc\ny\n", "a\nb\nc\nx\ny\n"},
		{"a\na\na\nb\n", "b\na\na\na\n"},
	} {
		f.Add(s[0], s[1], uint8(3))
	}
	f.Fuzz(func(t *testing.T, old, new string, ctx uint8) {
		checkScript(t, old, new, Lines(old, new))
		checkScript(t, old, new, editScript(old, new, int(ctx)))
		context := int(ctx % 8)
		if got := apply(t, old, Hunks(old, new, context)); got != new {
			t.Fatalf("applying Hunks(%q, %q, %d) gives %q", old, new, context, got)
		}
		u := Unified("a", "b", old, new, context)
		if (u == "") != (old == new) {
			t.Fatalf("Unified(%q, %q) = %q", old, new, u)
		}
		if u != "" && !strings.HasPrefix(u, "--- a\n+++ b\n@@ -") {
			t.Fatalf("Unified(%q, %q) = %q: no headers", old, new, u)
		}
	})
}
