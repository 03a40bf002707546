package scan

import (
	"bytes"
	"math"
	"sort"
	"strings"
	"unicode/utf8"
)

// maxMatchesPerPattern bounds the matches one pattern reports in one text:
// a file made of a thousand pipes to sh is one file to reject, not a
// thousand findings to print.
const maxMatchesPerPattern = 200

// isText reports whether data is text the rules read: UTF-8 without NUL.
func isText(data []byte) bool {
	return bytes.IndexByte(data, 0) < 0 && utf8.Valid(data)
}

// A text is one text as the patterns see it: continuation lines joined,
// a leading byte-order mark blanked, with what the prefilters need.
type text struct {
	b     []byte
	lower string // ASCII lower case, for the hints
	ascii bool
	nl    []int // offsets of the line breaks
	// base is the line of b's first line in its file.
	base int
}

func newText(data []byte) *text { return newTextAt(data, 1) }

func newTextAt(data []byte, base int) *text {
	b := normalize(data)
	t := &text{b: b, ascii: true, base: base}
	lower := make([]byte, len(b))
	for i, c := range b {
		// Lines are the file's: a continuation joined by normalize still
		// ends a line.
		if data[i] == '\n' {
			t.nl = append(t.nl, i)
		}
		switch {
		case c >= 0x80:
			t.ascii = false
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	t.lower = string(lower)
	return t
}

// normalize returns data with what hides a command's shape from a
// line-based pattern undone, keeping every offset (so lines stay right):
// a line continuation (`\` or PowerShell's backtick before the line break)
// becomes blanks, so `curl … \` + `| sh` is one line to the patterns; a
// byte-order mark at the very start becomes blanks (one anywhere else is
// a finding of hidden-zero-width).
func normalize(data []byte) []byte {
	bom := bytes.HasPrefix(data, []byte("\uFEFF"))
	if !bom && !bytes.Contains(data, []byte("\\\n")) && !bytes.Contains(data, []byte("`\n")) &&
		!bytes.Contains(data, []byte("\\\r\n")) && !bytes.Contains(data, []byte("`\r\n")) {
		return data
	}
	b := bytes.Clone(data)
	if bom {
		copy(b, "   ")
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' && b[i] != '`' {
			continue
		}
		switch {
		case i+1 < len(b) && b[i+1] == '\n':
			b[i], b[i+1] = ' ', ' '
		case i+2 < len(b) && b[i+1] == '\r' && b[i+2] == '\n':
			b[i], b[i+1], b[i+2] = ' ', ' ', ' '
		}
	}
	return b
}

// lineOf returns the 1-based line (in the file) of offset off.
func (t *text) lineOf(off int) int {
	return t.base + sort.SearchInts(t.nl, off)
}

// A hit is one match of a rule: where it starts.
type hit struct {
	line int
	off  int // in t.b
}

// matches returns the places rule r's patterns match in t, with unless
// and filter applied.
func (t *text) matches(r *Rule) []hit {
	if len(r.patterns) == 0 || (r.nonASCII && t.ascii) || !t.hinted(r) {
		return nil
	}
	var out []hit
	for _, re := range r.patterns {
		for _, m := range re.FindAllSubmatchIndex(t.b, maxMatchesPerPattern) {
			match := t.b[m[0]:m[1]]
			if unlessAny(r, match) {
				continue
			}
			if r.filter != nil {
				group := match
				if len(m) >= 4 && m[2] >= 0 {
					group = t.b[m[2]:m[3]]
				}
				if !r.filter(string(group)) {
					continue
				}
			}
			// A pattern may start by consuming the line break before
			// what it is about.
			start := m[0]
			for start < m[1] && (t.b[start] == '\n' || t.b[start] == '\r') {
				start++
			}
			out = append(out, hit{line: t.lineOf(start), off: start})
		}
	}
	return out
}

func (t *text) hinted(r *Rule) bool {
	if len(r.hints) == 0 {
		return true
	}
	for _, h := range r.hints {
		if strings.Contains(t.lower, h) {
			return true
		}
	}
	return false
}

func unlessAny(r *Rule, match []byte) bool {
	for _, u := range r.unless {
		if u.Match(match) {
			return true
		}
	}
	return false
}

// looksRandom is the "entropy" filter: a literal that looks like a real
// secret rather than a placeholder or a word — at least two kinds of
// character (lower, upper, digit, other) and about 3 bits of entropy per
// character, and none of the usual placeholder words.
func looksRandom(s string) bool {
	low := strings.ToLower(s)
	for _, p := range []string{"example", "your", "changeme", "change_me", "placeholder", "dummy", "sample", "redacted", "xxxx", "****", "...", "password", "secret", "token", "replace", "insert", "todo", "fixme", "env", "getenv", "environ"} {
		if strings.Contains(low, p) {
			return false
		}
	}
	var classes [4]bool
	counts := map[rune]int{}
	n := 0
	for _, c := range s {
		switch {
		case 'a' <= c && c <= 'z':
			classes[0] = true
		case 'A' <= c && c <= 'Z':
			classes[1] = true
		case '0' <= c && c <= '9':
			classes[2] = true
		default:
			classes[3] = true
		}
		counts[c]++
		n++
	}
	kinds := 0
	for _, k := range classes {
		if k {
			kinds++
		}
	}
	if kinds < 2 || n == 0 {
		return false
	}
	var h float64
	for _, c := range counts {
		p := float64(c) / float64(n)
		h -= p * math.Log2(p)
	}
	return h >= 3.0
}
