package mdterm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeBytes writes src to a Stream a byte at a time and returns the
// chunks handed back (the last from Flush, when not empty) and, for each
// prefix length k, how much had been handed back after src[:k].
func writeBytes(src string) (chunks []string, doneAt []int) {
	var s Stream
	doneAt = make([]int, len(src)+1)
	total := 0
	for k := 0; k < len(src); k++ {
		if done := s.Write(src[k : k+1]); done != "" {
			chunks = append(chunks, done)
			total += len(done)
		}
		doneAt[k+1] = total
	}
	if rest := s.Flush(); rest != "" {
		chunks = append(chunks, rest)
	}
	return chunks, doneAt
}

func TestStreamBlocks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		src  string
		want []string
	}{
		{"", nil},
		{"a\nb", []string{"a\nb"}},
		{"a\n\nb", []string{"a\n\n", "b"}},
		{"a\n\n\n\nb\n", []string{"a\n\n\n\n", "b\n"}},
		{"\n\na\n\nb", []string{"\n\na\n\n", "b"}},
		{"a\n\n  b\n\nc", []string{"a\n\n  b\n\n", "c"}},
		{"# H\npara", []string{"# H\n", "para"}},
		{"para\n# H\nx", []string{"para\n# H\n", "x"}},
		{"T\n---\nx", []string{"T\n---\n", "x"}},
		{"***\nx", []string{"***\n", "x"}},
		{"```\na\n\nb\n```\nc", []string{"```\na\n\nb\n```\n", "c"}},
		{"```\n# not a heading\n---\n```", []string{"```\n# not a heading\n---\n```"}},
		{"~~~~\n```\n\nx\n~~~~\n", []string{"~~~~\n```\n\nx\n~~~~\n"}},
		{"- a\n- b\n\n- c", []string{"- a\n- b\n\n", "- c"}},
		{"- a\n\n  more\n- b\n\nafter", []string{"- a\n\n  more\n- b\n\n", "after"}},
		{"- a\n  ```\n  x\n\n  y\n  ```\n\nz", []string{"- a\n  ```\n  x\n\n  y\n  ```\n\n", "z"}},
		{"|a|b|\n|-|-|\n|1|2|\n\nnext", []string{"|a|b|\n|-|-|\n|1|2|\n\n", "next"}},
		{"    code\n\n    more\n\nx", []string{"    code\n\n    more\n\n", "x"}},
		{"> q\n> ```\n>\n> ```\n\nx", []string{"> q\n> ```\n>\n> ```\n\n", "x"}},
		{"a\r\n\r\nb", []string{"a\r\n\r\n", "b"}},
		{"```\r\na\r\n\r\n```\r\nb", []string{"```\r\na\r\n\r\n```\r\n", "b"}},
		{"```\na\rb\n\nc\n```\nd", []string{"```\na\rb\n\nc\n```\n", "d"}},
		{"\n```\n```\n```\n", []string{"\n```\n```\n", "```\n"}},
		{"````\n```\n````\n", []string{"````\n```\n````\n"}},
		{"``` a`b\nx\n\ny", []string{"``` a`b\nx\n\n", "y"}},
	} {
		got, _ := writeBytes(tt.src)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("chunks of %q (-want +got):\n%s", tt.src, diff)
		}
	}
}

// TestStreamSplitting: on every sample, the chunks add up to the reply,
// rendering them one by one gives the rendering of the whole, and writing
// the reply in two pieces cut anywhere hands back what writing it a byte
// at a time does.
func TestStreamSplitting(t *testing.T) {
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
		t.Run(filepath.Base(md), func(t *testing.T) {
			t.Parallel()
			checkStream(t, string(src), -1)
			if chunks, _ := writeBytes(string(src)); len(chunks) < 10 {
				t.Errorf("%d chunks only", len(chunks))
			}
		})
	}
}

// checkStream checks the Stream on src, with a two-piece write cut at cut
// (every cut when cut < 0).
func checkStream(t *testing.T, src string, cut int) {
	t.Helper()
	chunks, doneAt := writeBytes(src)
	if got := strings.Join(chunks, ""); got != src {
		t.Fatalf("chunks add up to %q, want %q", got, src)
	}
	for _, o := range []Options{{Width: 80}, {Width: 40, Color: true}} {
		var parts []string
		for _, c := range chunks {
			if r := Render(c, o); r != "" {
				parts = append(parts, r)
			}
		}
		if got, want := strings.Join(parts, "\n"), Render(src, o); got != want {
			t.Fatalf("chunks %q rendered one by one (%+v):\n%s\nwhole:\n%s", chunks, o, got, want)
		}
	}
	cuts := []int{cut}
	if cut < 0 {
		cuts = cuts[:0]
		for k := 0; k <= len(src); k++ {
			cuts = append(cuts, k)
		}
	}
	for _, k := range cuts {
		var s Stream
		d1 := s.Write(src[:k])
		if len(d1) != doneAt[k] {
			t.Fatalf("Write(src[:%d]) handed back %d bytes, a byte at a time %d", k, len(d1), doneAt[k])
		}
		d2 := s.Write(src[k:])
		if len(d1)+len(d2) != doneAt[len(src)] {
			t.Fatalf("cut at %d: handed back %d bytes, a byte at a time %d", k, len(d1)+len(d2), doneAt[len(src)])
		}
		if p := s.Pending(); p != src[len(d1)+len(d2):] {
			t.Fatalf("cut at %d: Pending() = %q, want %q", k, p, src[len(d1)+len(d2):])
		}
		if rest := s.Flush(); d1+d2+rest != src {
			t.Fatalf("cut at %d: %q + %q + %q is not the source", k, d1, d2, rest)
		}
		if s.Pending() != "" || s.Flush() != "" {
			t.Fatalf("Flush did not reset the stream")
		}
	}
}
