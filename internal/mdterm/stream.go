package mdterm

import (
	"bytes"
	"strings"
)

// A Stream takes a reply as it streams in and hands back its blocks as they
// complete, for the caller to [Render] and print once each. A block is
// complete
//   - at a blank line outside a fenced code block, once the next line
//     starts without indentation (an indented line may continue a list
//     item, so the blank line is inside it);
//   - at the end of a closing code fence, a heading or a thematic break
//     that stands at the top level.
//
// Lists and tables continue across single newlines. Whether a fence is
// open is decided by the same parser [Render] uses, so a chunk is always a
// whole number of the document's top-level blocks, and rendering the
// chunks one by one gives what rendering the whole reply gives. What is
// handed back depends only on the text written so far, never on how it was
// cut into deltas.
//
// The zero Stream is ready to use. A Stream is not safe for concurrent use.
type Stream struct {
	buf []byte // text not yet handed back
	pos int    // start of the first line of buf not yet examined
	// waitEnd, when not 0, is a boundary candidate: the end of a blank
	// line after content, waiting for the next line's first character.
	waitEnd int
	content bool // a non-blank line precedes pos in buf
	fence   bool // a line that may be a fence precedes pos in buf
	// topFence is the fence of a code block that buf starts with, while it
	// is open: its lines need no parsing to know that they end nothing,
	// so a long code block streams in linear time.
	topFence string
}

// Write adds delta to the reply and returns the source text of the blocks
// it completed, "" if none.
func (s *Stream) Write(delta string) (done string) {
	s.buf = append(s.buf, delta...)
	var out strings.Builder
	for {
		if s.waitEnd > 0 {
			decided, cut := s.decide()
			if !decided {
				break
			}
			if cut {
				s.cut(s.waitEnd, &out)
				continue
			}
			s.waitEnd = 0
		}
		nl := bytes.IndexByte(s.buf[s.pos:], '\n')
		if nl < 0 {
			break
		}
		l := string(s.buf[s.pos : s.pos+nl])
		end := s.pos + nl + 1
		if s.topFence != "" {
			if closed, ok := s.inTopFence(l); !ok {
				s.topFence = "" // let the parser decide from here
			} else if closed {
				s.cut(end, &out)
				continue
			} else {
				s.pos = end
				continue
			}
		}
		if isBlankSource(l) {
			if s.content {
				s.waitEnd = end
			}
			s.pos = end
			continue
		}
		if mayFence(l) {
			s.fence = true
			if !s.content {
				s.topFence = openingFence(l)
			}
		}
		s.content = true
		if mayEndBlock(l) && s.endsBlock(end) {
			s.cut(end, &out)
			continue
		}
		s.pos = end
	}
	return out.String()
}

// openingFence returns the fence that the source line l opens, as the
// parser reads it, or "".
func openingFence(l string) string {
	if ls := sourceLines(l); len(ls) == 1 {
		return fenceOpen(ls[0])
	}
	return ""
}

// inTopFence reads the source line l inside the top fence: closed says it
// closes the fence; ok is false when l is not one line to the parser (it
// holds a CR), which the fast path leaves to the parser.
func (s *Stream) inTopFence(l string) (closed, ok bool) {
	ls := sourceLines(l)
	switch len(ls) {
	case 0:
		return false, true // a blank line is code
	case 1:
		return fenceCloses(ls[0], s.topFence), true
	}
	return false, false
}

// decide looks at the line after a blank one: decided is false until its
// first character that tells (or its end) has come; cut says the blank
// line ends a block.
func (s *Stream) decide() (decided, cut bool) {
	rest := s.buf[s.pos:]
	for i, c := range rest {
		switch c {
		case ' ', '\t', '\r':
			continue
		case '\n':
			return true, false // a blank line: the next Write loop extends the wait
		}
		if i > 0 {
			return true, false // indented: the block may go on
		}
		return true, s.outsideFence(s.waitEnd)
	}
	return false, false
}

// cut hands back buf[:n] and starts afresh after it.
func (s *Stream) cut(n int, out *strings.Builder) {
	out.Write(s.buf[:n])
	s.buf = append(s.buf[:0:0], s.buf[n:]...)
	s.pos, s.waitEnd, s.content, s.fence, s.topFence = 0, 0, false, false, ""
}

// outsideFence says whether buf[:n] does not end inside a top-level fenced
// code block.
func (s *Stream) outsideFence(n int) bool {
	if !s.fence {
		return true
	}
	bs := parse(string(s.buf[:n]))
	last := bs[len(bs)-1]
	return !(last.kind == kCode && last.fenced && !last.closed)
}

// endsBlock says whether buf[:n], whose last line may end a block,
// ends with a complete top-level block: a closed fence, a heading or a
// thematic break.
func (s *Stream) endsBlock(n int) bool {
	bs := parse(string(s.buf[:n]))
	if len(bs) == 0 {
		return false
	}
	switch last := bs[len(bs)-1]; last.kind {
	case kCode:
		return last.fenced && last.closed
	case kHeading, kRule:
		return true
	}
	return false
}

// Pending returns the source of the block not yet complete. It is raw
// Markdown from the model: show it through [Wrap] (or termtext.Escape),
// never as it is.
func (s *Stream) Pending() string { return string(s.buf) }

// Flush returns the rest of the reply, at its end, and resets the Stream.
func (s *Stream) Flush() string {
	rest := string(s.buf)
	*s = Stream{}
	return rest
}

func isBlankSource(l string) bool { return strings.Trim(l, " \t\r") == "" }

// mayFence says whether l may open or close a fence wherever it stands
// (in a list item or a quote too): a cheap test that spares parsing text
// that holds no fence at all.
func mayFence(l string) bool {
	return strings.Contains(l, "```") || strings.Contains(l, "~~~")
}

// mayEndBlock says whether l may be the last line of a block complete on
// its own: a fence, an ATX heading, a setext underline or a thematic
// break, at most three spaces in.
func mayEndBlock(l string) bool {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || t == "" {
		return false
	}
	switch t[0] {
	case '`', '~':
		return mayFence(t)
	case '#':
		return atxLevel(t) > 0
	case '=', '-', '*', '_':
		return setextLevel(t) > 0 || isRule(strings.TrimRight(t, " \t\r"))
	}
	return false
}
