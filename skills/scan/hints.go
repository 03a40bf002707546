package scan

import "bytes"

// A hintIndex finds every rule's hints in a text in one pass: the hints
// are looked up by their first two bytes, so the cost is a table lookup
// per byte rather than a search per hint.
type hintIndex struct {
	entries []hintEntry // grouped by their first two bytes
	start   [1 << 16]uint16
	count   [1 << 16]uint8
	// single are the one-byte hints, by byte.
	single [256][]int
	rules  int
}

type hintEntry struct {
	hint []byte
	rule int
}

func newHintIndex(rules []*Rule) *hintIndex {
	x := &hintIndex{rules: len(rules)}
	groups := map[uint16][]hintEntry{}
	for i, r := range rules {
		for _, h := range r.hints {
			if len(h) == 1 {
				x.single[h[0]] = append(x.single[h[0]], i)
				continue
			}
			k := uint16(h[0])<<8 | uint16(h[1])
			groups[k] = append(groups[k], hintEntry{hint: []byte(h), rule: i})
		}
	}
	for k := range 1 << 16 {
		g := groups[uint16(k)]
		if len(g) == 0 {
			continue
		}
		x.start[k] = uint16(len(x.entries))
		x.count[k] = uint8(len(g))
		x.entries = append(x.entries, g...)
	}
	return x
}

// scan returns, for each rule, the lines (of b, 0-based, ascending, no
// repeats) holding one of its hints in lower, and the lines holding a
// non-ASCII byte. lower is b in ASCII lower case.
func (x *hintIndex) scan(b, lower []byte) (hinted [][]int, nonASCII []int) {
	hinted = make([][]int, x.rules)
	mark := func(rule, line int) {
		if l := hinted[rule]; len(l) == 0 || l[len(l)-1] != line {
			hinted[rule] = append(l, line)
		}
	}
	line := 0
	for i, c := range lower {
		if c == '\n' {
			line++
			continue
		}
		if c >= 0x80 {
			if len(nonASCII) == 0 || nonASCII[len(nonASCII)-1] != line {
				nonASCII = append(nonASCII, line)
			}
		}
		for _, r := range x.single[c] {
			mark(r, line)
		}
		if i+1 >= len(lower) {
			break
		}
		k := uint16(c)<<8 | uint16(lower[i+1])
		n := x.count[k]
		if n == 0 {
			continue
		}
		for _, e := range x.entries[x.start[k] : int(x.start[k])+int(n)] {
			if bytes.HasPrefix(lower[i:], e.hint) {
				mark(e.rule, line)
			}
		}
	}
	return hinted, nonASCII
}
