package toolview

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/clawseed/clawseed/internal/termtext"
)

// Widths are terminal cells, measured as lipgloss measures them
// (charmbracelet/x/ansi: graphemes, East Asian wide characters and emoji
// two cells), so that lines cut here fit the boxes the chat lays out.

const (
	ellipsis = "…"
	// tabCells is where tab stops are: a tab in a result or a diff line
	// becomes spaces (a terminal's own stops would not line up with the
	// gutter, and a width cannot be measured with tabs in it).
	tabCells = 4
)

// cut returns s cut to width cells, its last cell an ellipsis when
// something was cut; s itself when width <= 0 or it fits.
func cut(s string, width int) string {
	if width <= 0 {
		return s
	}
	return ansi.Truncate(s, width, ellipsis)
}

// cells is the width of s in cells.
func cells(s string) int { return ansi.StringWidth(s) }

// expandTabs replaces each tab of a line with the spaces to the next tab
// stop.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for i, seg := range strings.Split(s, "\t") {
		if i > 0 {
			pad := tabCells - col%tabCells
			b.WriteString(strings.Repeat(" ", pad))
			col += pad
		}
		b.WriteString(seg)
		col += cells(seg)
	}
	return b.String()
}

// displayLine is one line of text from a tool or a file as the terminal
// shows it: escaped (termtext), tabs expanded, cut to width.
func displayLine(s string, width int) string {
	return cut(expandTabs(termtext.Escape(s)), width)
}

// A span is a piece of a line in one style.
type span struct {
	style termtext.Style
	text  string // escaped
}

// render cuts spans to width (the span where the cut falls ends with an
// ellipsis, in its style) and returns them as one line, each span in its
// style when color is set. The colours are termtext's
// ([termtext.WriteStyled]): the one place clawseed's escape sequences are
// written.
func render(spans []span, width int, color bool) string {
	total := 0
	for _, s := range spans {
		total += cells(s.text)
	}
	budget := -1 // no cut
	if width > 0 && total > width {
		budget = width - cells(ellipsis)
	}
	var b strings.Builder
	w := termtext.NewWriter(&b, color)
	for _, s := range spans {
		text := s.text
		if budget >= 0 {
			if n := cells(text); n <= budget {
				budget -= n
			} else {
				text = ansi.Truncate(text, max(budget, 0), "") + ellipsis
				budget = -2 // cut: the spans after it are left out
			}
		}
		st := s.style
		if !color {
			st = termtext.Plain
		}
		// text is escaped already; WriteStyled escapes again, which
		// changes nothing (escaping is idempotent).
		termtext.WriteStyled(w, st, text)
		if budget == -2 {
			break
		}
	}
	w.Flush()
	return b.String()
}
