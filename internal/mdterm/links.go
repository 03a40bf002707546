package mdterm

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clawseed/clawseed/internal/termtext"
)

// closeBracket handles ] at i: an inline link or image [text](dest
// "title") when an opener waits, otherwise text. Reference links are left
// as text: a chunk rendered on its own has no definitions.
func (p *inlineParser) closeBracket(s string, i int) int {
	p.flush()
	if len(p.openers) == 0 {
		p.buf = append(p.buf, ']')
		return i + 1
	}
	oi := p.openers[len(p.openers)-1]
	p.openers = p.openers[:len(p.openers)-1]
	op := &p.items[oi]
	dest, end, ok := "", 0, false
	if op.active {
		dest, end, ok = linkDest(s, i+1)
	}
	if !ok {
		op.kind = 0 // the opener is text now
		p.buf = append(p.buf, ']')
		return i + 1
	}
	image := op.kind == '!'
	p.emphasis(oi + 1)
	var label strings.Builder
	for j := oi + 1; j < len(p.items); j++ {
		p.items[j].st = p.items[j].st.add(stLink)
		label.WriteString(p.items[j].display())
	}
	op.kind, op.text, op.st = 0, "", 0
	if image {
		op.text = "image: "
		if label.Len() == 0 {
			op.text = "image"
		}
		op.st = stLink
	} else {
		// No link inside a link: earlier openers are text now.
		for _, j := range p.openers {
			if p.items[j].kind == '[' {
				p.items[j].active = false
			}
		}
	}
	if dest != "" && dest != label.String() && dest != "mailto:"+label.String() {
		p.add(inl{text: " "})
		p.add(inl{text: "(" + dest + ")", st: stURL})
	}
	return end
}

// linkDest parses "(dest "title")" at i and returns dest and the index
// after the closing parenthesis.
func linkDest(s string, i int) (string, int, bool) {
	if i >= len(s) || s[i] != '(' {
		return "", 0, false
	}
	i = skipSpace(s, i+1)
	var dest string
	if i < len(s) && s[i] == '<' {
		j := i + 1
		for j < len(s) && j-i < maxDest && s[j] != '>' && s[j] != '<' && s[j] != '\n' {
			if s[j] == '\\' && j+1 < len(s) {
				j++
			}
			j++
		}
		if j >= len(s) || s[j] != '>' {
			return "", 0, false
		}
		dest, i = s[i+1:j], j+1
	} else {
		j, depth := i, 0
		for ; j < len(s) && j-i < maxDest; j++ {
			c := s[j]
			if c == '\\' && j+1 < len(s) && isASCIIPunct(s[j+1]) {
				j++
				continue
			}
			if c == ' ' || c == '\n' {
				break
			}
			if c == '(' {
				depth++
			} else if c == ')' {
				if depth == 0 {
					break
				}
				depth--
			}
		}
		if depth != 0 || j-i >= maxDest {
			return "", 0, false
		}
		dest, i = s[i:j], j
	}
	j := skipSpace(s, i)
	if j < len(s) && j > i && (s[j] == '"' || s[j] == '\'' || s[j] == '(') {
		closer := s[j]
		if closer == '(' {
			closer = ')'
		}
		k := j + 1
		for k < len(s) && k-j < maxDest && s[k] != closer {
			if s[k] == '\\' && k+1 < len(s) {
				k++
			}
			k++
		}
		if k >= len(s) || s[k] != closer {
			return "", 0, false
		}
		j = skipSpace(s, k+1)
	}
	if j >= len(s) || s[j] != ')' {
		return "", 0, false
	}
	return unescape(dest), j + 1, true
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\n') {
		i++
	}
	return i
}

// unescape removes the backslashes of escaped punctuation.
func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// autolink handles < at i: <scheme:...> or <user@host> as a link, anything
// else (HTML included) as text.
func (p *inlineParser) autolink(s string, i int) int {
	j := i + 1
	for j < len(s) && s[j] != '>' && s[j] != '<' && s[j] != ' ' && s[j] != '\n' {
		j++
	}
	if j < len(s) && s[j] == '>' {
		if u := s[i+1 : j]; isURI(u) || isEmail(u) {
			p.add(inl{text: strings.TrimPrefix(u, "mailto:"), st: stLink})
			return j + 1
		}
	}
	p.buf = append(p.buf, '<')
	return i + 1
}

func isURI(u string) bool {
	k := strings.IndexByte(u, ':')
	if k < 2 || k > 32 {
		return false
	}
	for i := 0; i < k; i++ {
		c := u[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (isDigit(c) || c == '+' || c == '.' || c == '-')) {
			return false
		}
	}
	return true
}

func isEmail(u string) bool {
	at := strings.IndexByte(u, '@')
	if at < 1 || at == len(u)-1 || strings.IndexByte(u[at+1:], '.') < 0 {
		return false
	}
	for i := 0; i < len(u); i++ {
		c := u[i]
		if c >= 0x80 || c == '\\' || c == '[' || c == ']' || c == '(' || c == ')' || c == ',' || c == ';' || c == '"' {
			return false
		}
	}
	return true
}

// bareURL handles : at i: when the text before it ends with http or https
// at the start of a word and // follows, the URL up to a space is a link
// (GFM's extended autolink), so that _ and * in it are not emphasis.
func (p *inlineParser) bareURL(s string, i int) int {
	var scheme string
	for _, sc := range [...]string{"https", "http"} {
		if len(p.buf) >= len(sc) && strings.EqualFold(string(p.buf[len(p.buf)-len(sc):]), sc) {
			scheme = sc
			break
		}
	}
	start := len(p.buf) - len(scheme)
	if scheme == "" || !strings.HasPrefix(s[i:], "://") || start > 0 && !isWordBoundary(p.buf[start-1]) {
		p.buf = append(p.buf, ':')
		return i + 1
	}
	// In a link's text, the URL ends at the text's end.
	inBracket := len(p.openers) > 0
	j := i + 3
	for j < len(s) && s[j] != ' ' && s[j] != '\n' && s[j] != '<' && !(inBracket && s[j] == ']') {
		j++
	}
	// Trailing punctuation ends the sentence, not the URL; so does a
	// closing parenthesis without its opener.
	for j > i+3 {
		c := s[j-1]
		if strings.IndexByte("?!.,:*_~'\";", c) >= 0 ||
			c == ')' && strings.Count(s[i:j], "(") < strings.Count(s[i:j], ")") {
			j--
			continue
		}
		break
	}
	if j == i+3 {
		p.buf = append(p.buf, ':')
		return i + 1
	}
	url := string(p.buf[start:]) + s[i:j]
	p.buf = p.buf[:start]
	p.add(inl{text: url, st: stLink})
	return j
}

func isWordBoundary(c byte) bool {
	return c == ' ' || c == '(' || c == '*' || c == '_' || c == '~' || c == '"' || c == '\''
}

// entity handles & at i: a named or numeric character reference becomes
// its character, unless that is a control character (which would have to
// be escaped): then it stays text.
func (p *inlineParser) entity(s string, i int) int {
	j := i + 1
	for j < len(s) && j-i <= 32 && (isDigit(s[j]) || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] == '#') {
		j++
	}
	if j < len(s) && s[j] == ';' && j > i+1 {
		if r, ok := entityRune(s[i+1 : j]); ok {
			if t := string(r); termtext.Escape(t) == t && r != '\n' && r != '\t' {
				p.buf = append(p.buf, t...)
				return j + 1
			}
		}
	}
	p.buf = append(p.buf, '&')
	return i + 1
}

func entityRune(name string) (rune, bool) {
	if name[0] == '#' {
		var n uint64
		var err error
		if len(name) > 1 && (name[1] == 'x' || name[1] == 'X') {
			n, err = strconv.ParseUint(name[2:], 16, 32)
		} else {
			n, err = strconv.ParseUint(name[1:], 10, 32)
		}
		r := rune(n)
		if err != nil || n == 0 || !utf8.ValidRune(r) {
			return 0, false
		}
		return r, true
	}
	// The common named references; the others stay text.
	switch name {
	case "amp":
		return '&', true
	case "lt":
		return '<', true
	case "gt":
		return '>', true
	case "quot":
		return '"', true
	case "apos":
		return '\'', true
	case "nbsp":
		return '\u00a0', true
	case "copy":
		return '©', true
	case "reg":
		return '®', true
	case "trade":
		return '™', true
	case "mdash":
		return '—', true
	case "ndash":
		return '–', true
	case "hellip":
		return '…', true
	case "laquo":
		return '«', true
	case "raquo":
		return '»', true
	case "larr":
		return '←', true
	case "rarr":
		return '→', true
	case "times":
		return '×', true
	case "deg":
		return '°', true
	case "middot":
		return '·', true
	case "bull":
		return '•', true
	}
	return 0, false
}
