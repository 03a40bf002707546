package scan

import (
	"bytes"
	"math"
	"slices"
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
	ascii bool
	nl    []int // offsets of the file's line breaks
	// bnl are the offsets of b's line breaks: a continuation joined by
	// normalize is one line of b (the windows the patterns run in).
	bnl []int
	// base is the line of b's first line in its file.
	base int
	// hinted holds, per rule (by index), the lines of b with one of its
	// hints; nonASCII the lines with a non-ASCII byte.
	hinted   [][]int
	nonASCII []int
}

func newText(data []byte, rules []*Rule) *text { return newTextAt(data, 1, rules) }

// newTextAt reads data, whose first line is line base of its file, for
// rules (all of one rules file).
func newTextAt(data []byte, base int, rules []*Rule) *text {
	b := normalize(data)
	t := &text{b: b, ascii: true, base: base}
	lower := make([]byte, len(b))
	for i, c := range b {
		// Lines are the file's: a continuation joined by normalize still
		// ends a line.
		if data[i] == '\n' {
			t.nl = append(t.nl, i)
		}
		if c == '\n' {
			t.bnl = append(t.bnl, i)
		}
		switch {
		case c >= 0x80:
			t.ascii = false
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	if len(rules) > 0 && rules[0].hintIdx != nil {
		t.hinted, t.nonASCII = rules[0].hintIdx.scan(b, lower)
	}
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
// and filter applied. A rule with hints (or nonascii) runs only in the
// windows around the lines that hold one: the line before to span lines
// after, merged.
func (t *text) matches(r *Rule) []hit {
	if len(r.patterns) == 0 || (r.nonASCII && len(r.hints) == 0 && t.ascii) {
		return nil
	}
	windows := t.windows(r)
	var out []hit
	for _, re := range r.patterns {
		n := 0
		// The starts found in the previous window: an overlapping window
		// finds them again.
		var prev, cur []int
		for _, w := range windows {
			prev, cur = cur, prev[:0]
			for _, m := range re.FindAllSubmatchIndex(t.b[w[0]:w[1]], maxMatchesPerPattern-n) {
				for i := range m {
					if m[i] >= 0 {
						m[i] += w[0]
					}
				}
				cur = append(cur, m[0])
				if slices.Contains(prev, m[0]) {
					continue
				}
				if h, ok := t.accept(r, m); ok {
					out = append(out, h)
				}
				n++
			}
			if n >= maxMatchesPerPattern {
				break
			}
		}
	}
	return out
}

// maxWindow is the size up to which neighbouring windows merge.
const maxWindow = 2048

// accept applies unless and filter to one match (offsets in t.b).
func (t *text) accept(r *Rule, m []int) (hit, bool) {
	match := t.b[m[0]:m[1]]
	if unlessAny(r, match) {
		return hit{}, false
	}
	if r.filter != nil {
		group := match
		if len(m) >= 4 && m[2] >= 0 {
			group = t.b[m[2]:m[3]]
		}
		if !r.filter(string(group)) {
			return hit{}, false
		}
	}
	// A pattern may start by consuming the line break before what it is
	// about.
	start := m[0]
	for start < m[1] && (t.b[start] == '\n' || t.b[start] == '\r') {
		start++
	}
	return hit{line: t.lineOf(start), off: start}, true
}

// windows returns the byte ranges of t.b rule r's patterns run in.
func (t *text) windows(r *Rule) [][2]int {
	if len(r.hints) == 0 && !r.nonASCII {
		return [][2]int{{0, len(t.b)}}
	}
	var lines []int // of b, 0-based, with a hint or a non-ASCII byte
	if r.index < len(t.hinted) {
		lines = append(lines, t.hinted[r.index]...)
	}
	if r.nonASCII {
		lines = append(lines, t.nonASCII...)
	}
	if len(lines) == 0 {
		return nil
	}
	slices.Sort(lines)
	var out [][2]int
	for _, l := range slices.Compact(lines) {
		from, to := t.lineStart(max(l-1, 0)), t.lineEnd(l+r.span)
		// Neighbouring windows merge while small: Go's regexp runs its
		// backtracker on short inputs, far faster than its NFA on long
		// ones. Windows that overlap past that find a match twice;
		// matches drops the repeat.
		if n := len(out); n > 0 && from <= out[n-1][1]+1 && to-out[n-1][0] <= maxWindow {
			out[n-1][1] = max(out[n-1][1], to)
			continue
		}
		out = append(out, [2]int{from, to})
	}
	return out
}

// lineStart and lineEnd are the offsets of b's line l (0-based): its
// first byte and its line break (or the end).
func (t *text) lineStart(l int) int {
	if l <= 0 {
		return 0
	}
	if l > len(t.bnl) {
		return len(t.b)
	}
	return t.bnl[l-1] + 1
}

func (t *text) lineEnd(l int) int {
	if l >= len(t.bnl) {
		return len(t.b)
	}
	return t.bnl[l]
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
