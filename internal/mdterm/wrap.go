package mdterm

import "strings"

// hardBreak is the text of a span that forces a line break (a Markdown
// hard line break); no other span text holds a newline.
const hardBreak = "\n"

// A word is a run of text that is not broken unless it alone is wider than
// the line. Words are separated by spaces (gap) or, next to a wide
// character, by nothing: text in scripts written without spaces may break
// between any two wide characters.
type word struct {
	pieces []seg
	w      int
	gap    int   // the spaces before the word
	gapSt  style // the style of those spaces (an underlined link's, say)
	brk    bool  // a hard line break comes before the word
}

// splitWords cuts spans into words. Spaces between words count one, or as
// many as there are with keepSpaces.
func splitWords(spans []seg, keepSpaces bool) []word {
	var (
		words   []word
		cur     word
		start   = true // nothing yet on the current word
		gap     int
		gapSt   style
		pending bool // a hard break waits for the next word
	)
	flush := func() {
		if !start {
			words = append(words, cur)
		}
		cur, start = word{}, true
	}
	begin := func() {
		if start {
			cur = word{gap: gap, gapSt: gapSt, brk: pending}
			gap, pending, start = 0, false, false
		}
	}
	for _, sp := range spans {
		if sp.text == hardBreak {
			flush()
			gap, pending = 0, true
			continue
		}
		s := sp.text
		for len(s) > 0 {
			if s[0] == ' ' {
				flush()
				if gap == 0 {
					gapSt = sp.st
				}
				if gap == 0 || keepSpaces {
					gap++
				}
				s = s[1:]
				continue
			}
			// The longest run without a space or a wide character.
			n, w := 0, 0
			for n < len(s) && s[n] != ' ' {
				g, gw := nextGrapheme(s[n:])
				if gw == 2 {
					break
				}
				n += len(g)
				w += gw
			}
			if n > 0 {
				begin()
				cur.pieces = append(cur.pieces, seg{s[:n], sp.st})
				cur.w += w
				s = s[n:]
				continue
			}
			// A wide character is a word of its own, joined to its
			// neighbours without a space.
			g, gw := nextGrapheme(s)
			flush()
			begin()
			cur.pieces = append(cur.pieces, seg{g, sp.st})
			cur.w = gw
			flush()
			s = s[len(g):]
		}
	}
	flush() // a hard break at the end has no line to start
	return words
}

// wrap lays spans out in lines of at most width columns, breaking at
// spaces; a word wider than the line is cut between graphemes. Runs of
// spaces count one.
func wrap(spans []seg, width int) []line { return wrapSpaces(spans, width, false) }

func wrapSpaces(spans []seg, width int, keepSpaces bool) []line {
	words := splitWords(spans, keepSpaces)
	if len(words) == 0 {
		return nil
	}
	width = max(width, 1)
	var (
		lines []line
		cur   []seg
		curW  int
	)
	end := func() {
		lines = append(lines, line{segs: cur})
		cur, curW = nil, 0
	}
	for i, wd := range words {
		if wd.brk && i > 0 {
			end()
		}
		if curW > 0 && wd.gap > 0 {
			if curW+wd.gap+wd.w <= width {
				cur = append(cur, seg{spaces(wd.gap), wd.gapSt})
				curW += wd.gap
			} else {
				end()
			}
		} else if curW > 0 && curW+wd.w > width {
			end()
		}
		if curW+wd.w <= width {
			cur = append(cur, wd.pieces...)
			curW += wd.w
			continue
		}
		// The word alone is wider than the line: cut it.
		for _, p := range wd.pieces {
			s := p.text
			for len(s) > 0 {
				n, w := 0, 0
				for n < len(s) {
					g, gw := nextGrapheme(s[n:])
					if curW+w+gw > width && (curW > 0 || w > 0) {
						break
					}
					n += len(g)
					w += gw
				}
				if n > 0 {
					cur = append(cur, seg{s[:n], p.st})
					curW += w
					s = s[n:]
				}
				if len(s) > 0 {
					end()
				}
			}
		}
	}
	if len(cur) > 0 {
		end()
	}
	return lines
}

// Wrap returns text as plain lines of at most width columns (10 to 1000),
// for text that is shown as it is, such as [Stream.Pending]: control
// characters are escaped as [Render] escapes them, tabs expanded, and each
// line broken at spaces by display width, keeping its indentation. The
// result ends with a newline unless it is empty.
func Wrap(text string, width int) string {
	width = min(max(width, minWidth), maxWidth)
	var b strings.Builder
	for _, src := range sourceLines(text) {
		indent := len(src) - len(strings.TrimLeft(src, " "))
		if indent >= width {
			indent = 0
		}
		lines := wrapSpaces([]seg{{text: src[indent:]}}, width-indent, true)
		if len(lines) == 0 {
			b.WriteByte('\n')
			continue
		}
		for i := range lines {
			lines[i] = lines[i].prefixed(seg{text: spaces(indent)})
		}
		writeLines(&b, lines, false)
	}
	return b.String()
}
