package termtext

import (
	"strings"
	"unicode/utf8"
)

// Wrap breaks text into lines of at most width columns at spaces, never
// inside a word: a word longer than the line stands alone on its line,
// whole (a path or a command is worth more than a straight margin). The
// first line starts with first and the others with rest (an indent, or a
// hanging indent for a list item); both count in the width. Runs of white
// space, newlines included, become one space. Columns are counted as
// runes; width ≤ 0 puts everything on one line. Text that is nothing but
// white space gives the prefix alone.
func Wrap(text string, width int, first, rest string) []string {
	words := strings.Fields(text)
	var lines []string
	line, n := first, utf8.RuneCountInString(first)
	empty := true // line holds no word yet
	for _, w := range words {
		wn := utf8.RuneCountInString(w)
		if !empty && width > 0 && n+1+wn > width {
			lines = append(lines, line)
			line, n, empty = rest, utf8.RuneCountInString(rest), true
		}
		if !empty {
			line += " "
			n++
		}
		line += w
		n += wn
		empty = false
	}
	return append(lines, line)
}
