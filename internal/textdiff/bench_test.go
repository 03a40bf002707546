package textdiff

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkHunks: an edit of a 2,000-line file (a few changes, as the
// edit tools make), a rewrite of a 2,000-line file (every fourth line
// changed), and two unrelated 10,000-line texts, which the budget bounds.
func BenchmarkHunks(b *testing.B) {
	base := numbered(2000, nil)
	edits := numbered(2000, map[int]string{10: "ten\n", 700: "", 1500: "a\nb\nc\n"})
	every := map[int]string{}
	for i := 1; i <= 2000; i += 4 {
		every[i] = fmt.Sprintf("rewritten %d\n", i)
	}
	var other strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&other, "other %d\n", i)
	}
	for _, bb := range []struct {
		name     string
		old, new string
	}{
		{"edit-2000", base, edits},
		{"rewrite-2000", base, numbered(2000, every)},
		{"unrelated-10000", numbered(10000, nil), other.String()},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Hunks(bb.old, bb.new, 3)
			}
		})
	}
}
