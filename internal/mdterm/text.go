package mdterm

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// A style is a set of SGR attributes: flag bits and a foreground colour.
type style uint16

const (
	sBold style = 1 << iota
	sDim
	sItalic
	sUnder
	sStrike

	// The colour is a number n in bits 8-11, sent as SGR 30+n; 0 is none.
	colourShift = 8
	colourMask  = style(0xf) << colourShift
)

// The colours, as SGR 30+n.
const (
	red     = 1
	green   = 2
	yellow  = 3
	blue    = 4
	magenta = 5
	cyan    = 6
)

func fg(n int) style { return style(n) << colourShift }

// The styles of the document's parts. Only these SGR sequences ever reach
// the output (see doc.go).
const (
	stStrong   = sBold
	stEm       = sItalic
	stStrike   = sStrike
	stCode     = style(cyan) << colourShift
	stLink     = sUnder | style(blue)<<colourShift
	stURL      = sDim
	stH1       = sBold | sUnder | style(magenta)<<colourShift
	stH2       = sBold | sUnder
	stH3       = sBold
	stBorder   = sDim // table borders, quote bars, rules
	stHeader   = sBold
	stChecked  = style(green) << colourShift
	stKeyword  = style(magenta) << colourShift
	stString   = style(green) << colourShift
	stComment  = sDim | sItalic
	stNumber   = style(yellow) << colourShift
	stKey      = style(blue) << colourShift
	stAdded    = style(green) << colourShift
	stRemoved  = style(red) << colourShift
	stHunk     = style(cyan) << colourShift
	stFileLine = sBold
)

// add returns s with the attributes of extra added; s keeps its colour if
// it has one (code in a link stays code-coloured).
func (s style) add(extra style) style {
	out := s | extra&^colourMask
	if s&colourMask == 0 {
		out |= extra & colourMask
	}
	return out
}

// sgr returns the Select Graphic Rendition sequence that turns s on.
func (s style) sgr() string {
	b := make([]byte, 0, 16)
	b = append(b, "\x1b["...)
	for _, a := range [...]struct {
		bit style
		p   string
	}{{sBold, "1"}, {sDim, "2"}, {sItalic, "3"}, {sUnder, "4"}, {sStrike, "9"}} {
		if s&a.bit != 0 {
			b = append(b, a.p...)
			b = append(b, ';')
		}
	}
	if c := int(s&colourMask) >> colourShift; c != 0 {
		b = strconv.AppendInt(b, int64(30+c), 10)
		b = append(b, ';')
	}
	b[len(b)-1] = 'm'
	return string(b)
}

const sgrReset = "\x1b[0m"

// A seg is a run of text in one style. Its text never holds a control
// character: the source was escaped before parsing (see parse).
type seg struct {
	text string
	st   style
}

// A line is one output line. code marks a line of a code block, which is
// not wrapped and may be wider than the width.
type line struct {
	segs []seg
	code bool
}

func (l line) width() int {
	w := 0
	for _, s := range l.segs {
		w += strWidth(s.text)
	}
	return w
}

// prefixed returns l with p before it.
func (l line) prefixed(p seg) line {
	segs := make([]seg, 0, len(l.segs)+1)
	segs = append(segs, p)
	return line{segs: append(segs, l.segs...), code: l.code}
}

// writeLines writes the lines, each ended by a newline, styled when color
// is on. Trailing spaces are dropped, and every styled run is closed on its
// line, so a line never leaves a style on for the next.
func writeLines(b *strings.Builder, lines []line, color bool) {
	for _, l := range lines {
		segs, last := trimTrailingSpaces(l.segs)
		on := style(0) // the style in force
		for i, s := range segs {
			text := s.text
			if i == len(segs)-1 {
				text = last
			}
			if text == "" {
				continue
			}
			if color && s.st != on {
				if on != 0 {
					b.WriteString(sgrReset)
				}
				if s.st != 0 {
					b.WriteString(s.st.sgr())
				}
				on = s.st
			}
			b.WriteString(text)
		}
		if on != 0 {
			b.WriteString(sgrReset)
		}
		b.WriteByte('\n')
	}
}

// trimTrailingSpaces returns segs without the segments that are all spaces
// at the end, and the text of the last one left without its trailing
// spaces.
func trimTrailingSpaces(segs []seg) ([]seg, string) {
	for len(segs) > 0 {
		if t := strings.TrimRight(segs[len(segs)-1].text, " "); t != "" {
			return segs, t
		}
		segs = segs[:len(segs)-1]
	}
	return nil, ""
}

// nextGrapheme returns the first grapheme cluster of s (non-empty) and its
// display width. Printable ASCII not followed by a combining mark takes
// the fast path.
func nextGrapheme(s string) (string, int) {
	if s[0] < 0x80 && (len(s) == 1 || s[1] < 0x80) {
		return s[:1], 1
	}
	return ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
}

// strWidth returns the display width of s, which holds no control
// character: wide runes count 2, combining marks 0. It agrees with the sum
// of nextGrapheme's widths over s.
func strWidth(s string) int {
	i := 0
	for i < len(s) && s[i] < 0x80 {
		i++
	}
	if i == len(s) {
		return len(s)
	}
	// The last ASCII character may start a cluster with what follows.
	i = max(i-1, 0)
	return i + ansi.StringWidth(s[i:])
}

// spaces returns n spaces.
func spaces(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat(" ", n)
}
