package textdiff

import (
	"fmt"
	"strings"
	"testing"
)

// script renders an edit script compactly: one "op text" per line, "$"
// marking a line without newline.
func script(lines []Line) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteByte(byte(l.Op))
		b.WriteString(l.Text)
		if l.NoNewline {
			b.WriteString("$")
		}
		b.WriteString("|")
	}
	return b.String()
}

func TestLines(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, old, new, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", " a| b|"},
		{"both empty", "", "", ""},
		{"from empty", "", "a\nb\n", "+a|+b|"},
		{"to empty", "a\nb", "", "-a|-b$|"},
		{"change middle", "a\nb\nc\n", "a\nB\nc\n", " a|-b|+B| c|"},
		{"insert", "a\nc\n", "a\nb\nc\n", " a|+b| c|"},
		{"delete", "a\nb\nc\n", "a\nc\n", " a|-b| c|"},
		{"newline added at end", "a\nb", "a\nb\n", " a|-b$|+b|"},
		{"newline removed at end", "a\n", "a", "-a|+a$|"},
		{"empty lines", "\n\n", "\n", " |-|"},
		{"crlf kept", "a\r\nb\r\n", "a\r\nc\r\n", " a\r|-b\r|+c\r|"},
		{"swap", "a\nb\n", "b\na\n", "-a| b|+a|"},
		{"moved block", "x\na\nb\nc\ny\n", "a\nb\nc\nx\ny\n", "-x| a| b| c|+x| y|"},
	} {
		if got := script(Lines(tt.old, tt.new)); got != tt.want {
			t.Errorf("%s: Lines(%q, %q) = %q, want %q", tt.name, tt.old, tt.new, got, tt.want)
		}
	}
}

func TestLinesNumbers(t *testing.T) {
	t.Parallel()
	got := Lines("a\nb\nc\n", "a\nx\ny\nc\n")
	want := []Line{
		{Op: Context, Text: "a", Old: 1, New: 1},
		{Op: Delete, Text: "b", Old: 2},
		{Op: Insert, Text: "x", New: 2},
		{Op: Insert, Text: "y", New: 3},
		{Op: Context, Text: "c", Old: 3, New: 4},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Lines = %v, want %v", got, want)
	}
}

func numbered(n int, change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := change[i]; ok {
			b.WriteString(s)
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestUnified(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		old, new string
		context  int
		want     string
	}{
		{"equal", "a\n", "a\n", 3, ""},
		{"one change, context 3", numbered(10, nil), numbered(10, map[int]string{5: "five\n"}), 3, `--- a
+++ b
@@ -2,7 +2,7 @@
 line 2
 line 3
 line 4
-line 5
+five
 line 6
 line 7
 line 8
`},
		{"two changes far apart: two hunks", numbered(20, nil), numbered(20, map[int]string{2: "", 18: "eighteen\n"}), 1, `--- a
+++ b
@@ -1,3 +1,2 @@
 line 1
-line 2
 line 3
@@ -17,3 +16,3 @@
 line 17
-line 18
+eighteen
 line 19
`},
		{"two changes 2×context apart: one hunk", numbered(8, nil), numbered(8, map[int]string{2: "two\n", 5: "five\n"}), 1, `--- a
+++ b
@@ -1,6 +1,6 @@
 line 1
-line 2
+two
 line 3
 line 4
-line 5
+five
 line 6
`},
		{"context 0, insert at top", "a\nb\n", "x\na\nb\n", 0, `--- a
+++ b
@@ -0,0 +1 @@
+x
`},
		{"context 0, delete at end", "a\nb\n", "a\n", 0, `--- a
+++ b
@@ -2 +1,0 @@
-b
`},
		{"no newline at end", "a\nb", "a\nc", 3, `--- a
+++ b
@@ -1,2 +1,2 @@
 a
-b
\ No newline at end of file
+c
\ No newline at end of file
`},
		{"new file", "", "x\ny\n", 3, `--- a
+++ b
@@ -0,0 +1,2 @@
+x
+y
`},
		{"negative context is 0", "a\nb\nc\n", "a\nB\nc\n", -2, `--- a
+++ b
@@ -2 +2 @@
-b
+B
`},
	} {
		if got := Unified("a", "b", tt.old, tt.new, tt.context); got != tt.want {
			t.Errorf("%s: Unified =\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

// apply applies hunks to old and returns the new text, failing when a
// hunk's context or deleted lines are not old's lines at its place.
func apply(t testing.TB, old string, hunks []Hunk) string {
	t.Helper()
	a := splitLines(old)
	var out strings.Builder
	next := 0 // index in a of the next line not yet copied
	for _, h := range hunks {
		at := h.OldStart - 1
		if h.OldLines == 0 {
			at = h.OldStart
		}
		if at < next || at > len(a) {
			t.Fatalf("hunk %s at old line %d: out of order or range (next %d, %d lines)", h.Header(), at, next, len(a))
		}
		for _, l := range a[next:at] {
			out.WriteString(l)
		}
		next = at
		for _, l := range h.Lines {
			raw := l.Text
			if !l.NoNewline {
				raw += "\n"
			}
			if l.Op != Insert {
				if next >= len(a) || a[next] != raw {
					t.Fatalf("hunk %s: old line %d is not %q", h.Header(), next+1, raw)
				}
				next++
			}
			if l.Op != Delete {
				out.WriteString(raw)
			}
		}
	}
	for _, l := range a[next:] {
		out.WriteString(l)
	}
	return out.String()
}

// checkScript checks that script is an edit of old into new: its old side
// is old, its new side new, and the line numbers count each side.
func checkScript(t testing.TB, old, new string, lines []Line) {
	t.Helper()
	var o, n strings.Builder
	oldNo, newNo := 0, 0
	for _, l := range lines {
		raw := l.Text
		if !l.NoNewline {
			raw += "\n"
		}
		if l.Op != Insert {
			oldNo++
			o.WriteString(raw)
			if l.Old != oldNo {
				t.Fatalf("line %+v: Old = %d, want %d", l, l.Old, oldNo)
			}
		} else if l.Old != 0 {
			t.Fatalf("inserted line %+v has an old number", l)
		}
		if l.Op != Delete {
			newNo++
			n.WriteString(raw)
			if l.New != newNo {
				t.Fatalf("line %+v: New = %d, want %d", l, l.New, newNo)
			}
		} else if l.New != 0 {
			t.Fatalf("deleted line %+v has a new number", l)
		}
	}
	if o.String() != old || n.String() != new {
		t.Fatalf("script %v gives old %q new %q, want %q %q", lines, o.String(), n.String(), old, new)
	}
}

// lcs is the length of the longest common subsequence of a and b, by the
// textbook table: the reference a minimal diff is checked against.
func lcs(a, b []string) int {
	row := make([]int, len(b)+1)
	for i := range a {
		prev := 0
		for j := range b {
			cur := row[j+1]
			if a[i] == b[j] {
				row[j+1] = prev + 1
			} else {
				row[j+1] = max(row[j+1], row[j])
			}
			prev = cur
		}
	}
	return row[len(b)]
}

// TestMinimal: within the budget, the script keeps a longest common
// subsequence of the lines (the diff is as small as can be), over many
// small pseudo-random texts from a short alphabet (so lines repeat).
func TestMinimal(t *testing.T) {
	t.Parallel()
	seed := uint32(1)
	rnd := func(n int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>16) % n
	}
	text := func() string {
		var b strings.Builder
		for range rnd(14) {
			b.WriteByte("abcd"[rnd(4)])
			b.WriteByte('\n')
		}
		if rnd(4) == 0 {
			b.WriteString("e")
		}
		return b.String()
	}
	for range 3000 {
		old, new := text(), text()
		got := Lines(old, new)
		checkScript(t, old, new, got)
		kept := 0
		for _, l := range got {
			if l.Op == Context {
				kept++
			}
		}
		if want := lcs(splitLines(old), splitLines(new)); kept != want {
			t.Fatalf("Lines(%q, %q) keeps %d lines, the longest common subsequence has %d:\n%s", old, new, kept, want, script(got))
		}
	}
}

// TestBudget: past the work budget the rest is replaced whole — still a
// correct script — and the common head and tail stay context.
func TestBudget(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	a.WriteString("head\n")
	b.WriteString("head\n")
	for i := range 200 {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
		if i%3 == 0 {
			fmt.Fprintf(&a, "same%d\n", i)
			fmt.Fprintf(&b, "same%d\n", i)
		}
	}
	a.WriteString("tail\n")
	b.WriteString("tail\n")
	old, new := a.String(), b.String()
	full := editScript(old, new, maxWork)
	cut := editScript(old, new, 100)
	checkScript(t, old, new, full)
	checkScript(t, old, new, cut)
	count := func(s []Line) (ctx int) {
		for _, l := range s {
			if l.Op == Context {
				ctx++
			}
		}
		return ctx
	}
	if got := count(full); got != 69 {
		t.Errorf("within the budget: %d context lines, want 69 (head, tail, 67 same lines)", got)
	}
	if got := count(cut); got != 2 {
		t.Errorf("past the budget: %d context lines, want 2 (head and tail)", got)
	}
}

// TestLarge: a one-line edit of a 200,000-line text and a text with
// nothing in common with another of 20,000 lines both finish at once
// (the head and tail trimmed, the budget) and are correct.
func TestLarge(t *testing.T) {
	t.Parallel()
	old := numbered(200000, nil)
	new := numbered(200000, map[int]string{100000: "changed\n"})
	hs := Hunks(old, new, 3)
	if len(hs) != 1 || hs[0].OldStart != 99997 || hs[0].OldLines != 7 {
		t.Fatalf("one edit of a large text: %d hunks, first %+v", len(hs), hs[0].Header())
	}
	if got := apply(t, old, hs); got != new {
		t.Fatal("applying the hunks does not give the new text")
	}
	var other strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&other, "other %d\n", i)
	}
	lines := Lines(numbered(20000, nil), other.String())
	if len(lines) != 40000 {
		t.Fatalf("nothing in common: %d lines, want 40000", len(lines))
	}
	short := Lines("x\n", numbered(50000, nil))
	checkScript(t, "x\n", numbered(50000, nil), short)
}

func TestHunksApply(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ old, new string }{
		{numbered(30, nil), numbered(30, map[int]string{1: "", 15: "a\nb\n", 30: "end"})},
		{"", "x"},
		{"x", ""},
		{"a\nb\nc\n", "c\nb\na\n"},
	} {
		for ctx := range 5 {
			if got := apply(t, tt.old, Hunks(tt.old, tt.new, ctx)); got != tt.new {
				t.Errorf("context %d: applying Hunks(%q, %q) gives %q", ctx, tt.old, tt.new, got)
			}
		}
	}
}
