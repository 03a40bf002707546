// Package textdiff compares two texts line by line: the whole edit script
// ([Lines]), the changes grouped with their context into unified-diff hunks
// ([Hunks]), and the classic unified text ([Unified]).
//
// Lines are compared with their newline, so a last line that gains or
// loses its newline is a change, and applying a diff to the old text gives
// the new one byte for byte. The cost is bounded (see maxWork in myers.go):
// texts with too little in common are shown partly or wholly replaced
// rather than compared at quadratic cost.
package textdiff

import (
	"fmt"
	"strings"
)

// An Op says what a line of a diff does.
type Op byte

// The ops, as unified diffs mark lines.
const (
	Context Op = ' ' // in both texts
	Delete  Op = '-' // only in the old text
	Insert  Op = '+' // only in the new text
)

// A Line is one line of an edit script.
type Line struct {
	Op Op
	// Text is the line without its newline ("\r" of a CRLF line stays).
	Text string
	// Old and New are the line's 1-based numbers in the old and the new
	// text, 0 in the text it is not in.
	Old, New int
	// NoNewline says the line ends its text without a newline.
	NoNewline bool
}

// A Hunk is a run of changes with the unchanged lines around them, as a
// unified diff's "@@ -OldStart,OldLines +NewStart,NewLines @@" introduces
// it. A start is the first line's number; when its count is 0 it is the
// number of the line the hunk comes after (0: the top of the text), as
// unified diffs write it.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []Line
}

// Lines returns the edit script that turns old into new: every line of
// both, in order, deletions before the insertions that replace them.
func Lines(old, new string) []Line {
	return editScript(old, new, maxWork)
}

func editScript(old, new string, work int) []Line {
	a, b := splitLines(old), splitLines(new)
	del, ins := markDiff(a, b, work)
	out := make([]Line, 0, max(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && del[i]:
			out = append(out, newLine(Delete, a[i], i+1, 0))
			i++
		case j < len(b) && ins[j]:
			out = append(out, newLine(Insert, b[j], 0, j+1))
			j++
		default:
			out = append(out, newLine(Context, a[i], i+1, j+1))
			i++
			j++
		}
	}
	return out
}

func newLine(op Op, raw string, old, new int) Line {
	text, ok := strings.CutSuffix(raw, "\n")
	return Line{Op: op, Text: text, Old: old, New: new, NoNewline: !ok}
}

// splitLines cuts s after each newline; the last line may lack one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for s != "" {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		lines = append(lines, s[:i])
		s = s[i:]
	}
	return lines
}

// Hunks returns the changes from old to new as unified-diff hunks, each
// change with up to context unchanged lines before and after it; changes
// closer than 2×context lines share a hunk. It returns nil when the texts
// are equal.
func Hunks(old, new string, context int) []Hunk {
	return hunks(Lines(old, new), context)
}

func hunks(lines []Line, context int) []Hunk {
	context = max(context, 0)
	var out []Hunk
	for i := 0; i < len(lines); {
		if lines[i].Op == Context {
			i++
			continue
		}
		start := max(i-context, 0)
		// end is past the last change of the hunk; a gap of up to
		// 2×context unchanged lines joins the next change.
		end := i
		for j := i; j < len(lines); j++ {
			if lines[j].Op != Context {
				end = j + 1
			} else if j-end >= 2*context {
				break
			}
		}
		stop := min(end+context, len(lines))
		out = append(out, newHunk(lines, start, stop))
		i = stop
	}
	return out
}

// newHunk makes the hunk of lines[start:stop].
func newHunk(lines []Line, start, stop int) Hunk {
	h := Hunk{Lines: lines[start:stop:stop]}
	// The lines before the hunk in each text: the numbers of the last
	// old and new lines before it.
	for k := start - 1; k >= 0 && (h.OldStart == 0 || h.NewStart == 0); k-- {
		if h.OldStart == 0 && lines[k].Old != 0 {
			h.OldStart = lines[k].Old
		}
		if h.NewStart == 0 && lines[k].New != 0 {
			h.NewStart = lines[k].New
		}
	}
	for _, l := range h.Lines {
		if l.Op != Insert {
			h.OldLines++
		}
		if l.Op != Delete {
			h.NewLines++
		}
	}
	if h.OldLines > 0 {
		h.OldStart++
	}
	if h.NewLines > 0 {
		h.NewStart++
	}
	return h
}

// Header is the hunk's "@@ -a,b +c,d @@" line; a count of 1 is left out,
// as GNU diff does.
func (h Hunk) Header() string {
	return fmt.Sprintf("@@ -%s +%s @@", hunkRange(h.OldStart, h.OldLines), hunkRange(h.NewStart, h.NewLines))
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// Unified returns the unified diff of old and new under the names oldName
// and newName ("--- ", "+++ " and "@@" headers, context lines of context),
// with "\ No newline at end of file" after a last line without one; ""
// when the texts are equal. The text is as the files hold it: for a
// terminal, escape it (internal/termtext).
func Unified(oldName, newName, old, new string, context int) string {
	hs := Hunks(old, new, context)
	if len(hs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("--- " + oldName + "\n+++ " + newName + "\n")
	for _, h := range hs {
		b.WriteString(h.Header() + "\n")
		for _, l := range h.Lines {
			b.WriteByte(byte(l.Op))
			b.WriteString(l.Text + "\n")
			if l.NoNewline {
				b.WriteString("\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
}
