package mdterm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// An inl is one piece of a paragraph's inline content: text, or a
// delimiter run (*, _, ~~) or link opener ([, ![) waiting to be matched.
// Matching follows CommonMark's delimiter algorithm on a flat list: a
// matched pair adds its style to every piece between them.
type inl struct {
	text string
	st   style
	// delimiter runs and brackets
	kind        byte // 0 text; '*', '_', '~'; '[' link or '!' image opener
	n, orig     int  // characters left, characters at first
	shown       int  // used characters still shown (~~ in plain output)
	open, close bool
	active      bool
}

type inlineParser struct {
	color   bool
	items   []inl
	buf     []byte // text not yet in an item
	openers []int  // indexes of the link openers not yet closed
}

// maxDest bounds a link destination and title: a longer one is text. It
// keeps a paragraph of unclosed "[a](" linear.
const maxDest = 4096

// inline parses the inline content of a paragraph (its lines joined with
// newlines) into styled spans. In plain output (color false) code spans
// keep their backticks and strikethrough its tildes, so the structure stays
// readable without styles.
func inline(s string, color bool) []seg {
	p := inlineParser{color: color}
	p.parse(s)
	p.emphasis(0)
	out := make([]seg, 0, len(p.items))
	for _, it := range p.items {
		if text := it.display(); text != "" {
			out = append(out, seg{text, it.st})
		}
	}
	return out
}

// display returns the text an item shows: a delimiter run what is left of
// it, an unmatched link opener itself.
func (it *inl) display() string {
	switch it.kind {
	case 0, '[', '!':
		return it.text
	}
	return strings.Repeat(string(it.kind), it.n+it.shown)
}

func (p *inlineParser) flush() {
	if len(p.buf) > 0 {
		p.items = append(p.items, inl{text: string(p.buf)})
		p.buf = p.buf[:0]
	}
}

func (p *inlineParser) add(it inl) {
	p.flush()
	p.items = append(p.items, it)
}

func isSpecial(c byte) bool {
	switch c {
	case '\\', '`', '*', '_', '~', '[', ']', '!', '<', '&', '\n', ':':
		return true
	}
	return false
}

func (p *inlineParser) parse(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if !isSpecial(c) {
			j := i + 1
			for j < len(s) && !isSpecial(s[j]) {
				j++
			}
			p.buf = append(p.buf, s[i:j]...)
			i = j
			continue
		}
		switch c {
		case '\\':
			switch {
			case i+1 < len(s) && s[i+1] == '\n':
				p.hardBreak()
				i += 2
			case i+1 < len(s) && isASCIIPunct(s[i+1]):
				p.buf = append(p.buf, s[i+1])
				i += 2
			default:
				p.buf = append(p.buf, '\\')
				i++
			}
		case '`':
			i = p.codeSpan(s, i)
		case '*', '_', '~':
			i = p.delimiter(s, i)
		case '[':
			p.add(inl{text: "[", kind: '[', active: true})
			p.openers = append(p.openers, len(p.items)-1)
			i++
		case '!':
			if i+1 < len(s) && s[i+1] == '[' {
				p.add(inl{text: "![", kind: '!', active: true})
				p.openers = append(p.openers, len(p.items)-1)
				i += 2
			} else {
				p.buf = append(p.buf, '!')
				i++
			}
		case ']':
			i = p.closeBracket(s, i)
		case '<':
			i = p.autolink(s, i)
		case '&':
			i = p.entity(s, i)
		case '\n':
			// Spaces at the end of a line: two or more make a hard break.
			n := len(p.buf)
			for len(p.buf) > 0 && p.buf[len(p.buf)-1] == ' ' {
				p.buf = p.buf[:len(p.buf)-1]
			}
			if n-len(p.buf) >= 2 {
				p.hardBreak()
			} else {
				p.buf = append(p.buf, ' ')
			}
			i++
			for i < len(s) && s[i] == ' ' {
				i++
			}
		case ':':
			i = p.bareURL(s, i)
		}
	}
	p.flush()
}

func (p *inlineParser) hardBreak() {
	p.add(inl{text: hardBreak})
}

func isASCIIPunct(c byte) bool {
	return '!' <= c && c <= '/' || ':' <= c && c <= '@' || '[' <= c && c <= '`' || '{' <= c && c <= '~'
}

// codeSpan handles a backtick run at i: a code span up to a run of the
// same length, or the run as text.
func (p *inlineParser) codeSpan(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	for j := i + n; j < len(s); {
		k := strings.IndexByte(s[j:], '`')
		if k < 0 {
			break
		}
		j += k
		m := 0
		for j+m < len(s) && s[j+m] == '`' {
			m++
		}
		if m != n {
			j += m
			continue
		}
		code := strings.ReplaceAll(s[i+n:j], "\n", " ")
		if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
			code = code[1 : len(code)-1]
		}
		if !p.color {
			code = "`" + code + "`"
		}
		p.add(inl{text: code, st: stCode})
		return j + m
	}
	p.buf = append(p.buf, s[i:i+n]...)
	return i + n
}

// delimiter handles a run of *, _ or ~ at i.
func (p *inlineParser) delimiter(s string, i int) int {
	c := s[i]
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	if c == '~' && n != 2 {
		p.buf = append(p.buf, s[i:i+n]...)
		return i + n
	}
	before, after := ' ', ' '
	if i > 0 {
		before, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	if i+n < len(s) {
		after, _ = utf8.DecodeRuneInString(s[i+n:])
	}
	spaceB, spaceA := unicode.IsSpace(before), unicode.IsSpace(after)
	punctB, punctA := isPunct(before), isPunct(after)
	left := !spaceA && (!punctA || spaceB || punctB)
	right := !spaceB && (!punctB || spaceA || punctA)
	open, close := left, right
	if c == '_' {
		open = left && (!right || punctB)
		close = right && (!left || punctA)
	}
	p.add(inl{kind: c, n: n, orig: n, open: open, close: close, active: true})
	return i + n
}

func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIPunct(byte(r))
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

// emphasis matches the active delimiter runs after index bottom
// (CommonMark's "process emphasis") and deactivates them all.
func (p *inlineParser) emphasis(bottom int) {
	items := p.items
	// openersBottom[kind][closer can open][orig%3] is the index below which
	// no opener was found for such a closer: it keeps matching linear.
	var openersBottom [3][2][3]int
	for a := range openersBottom {
		for b := range openersBottom[a] {
			for c := range openersBottom[a][b] {
				openersBottom[a][b][c] = bottom
			}
		}
	}
	kindIndex := func(c byte) int { return strings.IndexByte("*_~", c) }
	for ci := bottom; ci < len(items); ci++ {
		cl := &items[ci]
		if !cl.active || cl.kind == 0 || cl.kind == '[' || cl.kind == '!' || !cl.close || cl.n == 0 {
			continue
		}
		k := kindIndex(cl.kind)
		canOpen := 0
		if cl.open {
			canOpen = 1
		}
		ob := &openersBottom[k][canOpen][cl.orig%3]
		found := -1
		for oi := ci - 1; oi >= *ob && oi >= bottom; oi-- {
			op := &items[oi]
			if !op.active || op.kind != cl.kind || !op.open || op.n == 0 {
				continue
			}
			if cl.kind == '~' {
				if op.n != cl.n {
					continue
				}
			} else if (op.close || cl.open) && (op.orig+cl.orig)%3 == 0 && (op.orig%3 != 0 || cl.orig%3 != 0) {
				continue
			}
			found = oi
			break
		}
		if found < 0 {
			*ob = ci
			if !cl.open {
				cl.active = false
			}
			continue
		}
		op := &items[found]
		use, st := 1, stEm
		switch {
		case cl.kind == '~':
			use, st = 2, stStrike
			if !p.color {
				op.shown += 2
				cl.shown += 2
			}
		case op.n >= 2 && cl.n >= 2:
			use, st = 2, stStrong
		}
		op.n -= use
		cl.n -= use
		for j := found + 1; j < ci; j++ {
			items[j].st = items[j].st.add(st)
			if items[j].kind != 0 && items[j].kind != '[' && items[j].kind != '!' {
				items[j].active = false // delimiters inside are text now
			}
		}
		if op.n == 0 {
			op.active = false
		}
		if cl.n == 0 {
			cl.active = false
		} else {
			ci-- // match the rest of the closer again
		}
	}
	for j := bottom; j < len(items); j++ {
		if items[j].kind != '[' && items[j].kind != '!' {
			items[j].active = false
		}
	}
}
