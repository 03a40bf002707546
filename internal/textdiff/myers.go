package textdiff

// maxWork bounds the steps (diagonals tried plus matching lines followed)
// one diff may take, about what an LCS table of 5,000 × 5,000 lines would
// cost. Myers' algorithm takes O((N+M)·D) steps, D being the size of the
// edit: small for an edit of a large file, but quadratic when two long
// texts have little in common (or one text is short and the other long).
// Past the budget, the part of the texts not yet compared is shown as
// replaced whole: still a correct diff, no longer a minimal one.
const maxWork = 5000 * 5000

// A differ marks, on two texts' lines, which of the old are deleted and
// which of the new are inserted, by Myers' linear-space algorithm ("An
// O(ND) Difference Algorithm and Its Variations", 1986, section 4b): find
// the middle snake of the shortest edit, split there, recurse on both
// halves. Lines are compared as small integers (interned).
type differ struct {
	a, b      []int32
	del, ins  []bool
	work, max int
	v1, v2    []int // scratch vectors of bisect, reused
	exhausted bool
}

// markDiff compares a and b and returns, per line, whether it is deleted
// (of a) or inserted (of b). work caps the steps as [maxWork] does.
func markDiff(a, b []string, work int) (del, ins []bool) {
	del, ins = make([]bool, len(a)), make([]bool, len(b))
	// The common head and tail cost one comparison a line, and are all an
	// edit of a large file has in common with the file: trimming them first
	// leaves the algorithm only the changed middle.
	lo := 0
	for lo < len(a) && lo < len(b) && a[lo] == b[lo] {
		lo++
	}
	ea, eb := len(a), len(b)
	for ea > lo && eb > lo && a[ea-1] == b[eb-1] {
		ea--
		eb--
	}
	ids := make(map[string]int32, ea-lo+eb-lo)
	intern := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	d := &differ{a: intern(a[lo:ea]), b: intern(b[lo:eb]), del: del[lo:ea], ins: ins[lo:eb], max: work}
	d.compare(0, len(d.a), 0, len(d.b))
	return del, ins
}

// compare marks the edit of a[a0:a1] into b[b0:b1].
func (d *differ) compare(a0, a1, b0, b1 int) {
	for a0 < a1 && b0 < b1 && d.a[a0] == d.b[b0] {
		a0++
		b0++
	}
	for a1 > a0 && b1 > b0 && d.a[a1-1] == d.b[b1-1] {
		a1--
		b1--
	}
	switch {
	case a0 == a1:
		markAll(d.ins[b0:b1])
		return
	case b0 == b1:
		markAll(d.del[a0:a1])
		return
	}
	x, y, ok := d.bisect(a0, a1, b0, b1)
	if !ok {
		markAll(d.del[a0:a1])
		markAll(d.ins[b0:b1])
		return
	}
	d.compare(a0, x, b0, y)
	d.compare(x, a1, y, b1)
}

func markAll(s []bool) {
	for i := range s {
		s[i] = true
	}
}

// bisect finds where a shortest edit of a[a0:a1] into b[b0:b1] crosses its
// middle: it extends the furthest-reaching paths from the start (v1) and
// from the end (v2) one edit at a time until they overlap on a diagonal.
// Both ranges are non-empty and differ in their first and last lines, so
// the edit has at least two steps and the point found lies strictly
// inside (each half is smaller). ok is false when the work budget runs
// out first.
func (d *differ) bisect(a0, a1, b0, b1 int) (x, y int, ok bool) {
	if d.exhausted {
		return 0, 0, false
	}
	n, m := a1-a0, b1-b0
	maxD := (n + m + 1) / 2
	off := maxD + 1
	size := 2*maxD + 3
	v1, v2 := d.vectors(size)
	v1[off+1], v2[off+1] = 0, 0
	delta := n - m
	// An odd delta makes the paths meet while extending forward, an even
	// one while extending backward.
	front := delta%2 != 0
	// k1start, k1end, k2start, k2end skip the diagonals whose paths have
	// left the grid: they cannot reach the other corner.
	var k1start, k1end, k2start, k2end int
	a, b := d.a, d.b
	for step := 0; step < maxD; step++ {
		for k1 := -step + k1start; k1 <= step-k1end; k1 += 2 {
			i := off + k1
			var x1 int
			if k1 == -step || k1 != step && v1[i-1] < v1[i+1] {
				x1 = v1[i+1]
			} else {
				x1 = v1[i-1] + 1
			}
			y1 := x1 - k1
			s := x1
			for x1 < n && y1 < m && a[a0+x1] == b[b0+y1] {
				x1++
				y1++
			}
			d.work += 1 + x1 - s
			v1[i] = x1
			switch {
			case x1 > n:
				k1end += 2
			case y1 > m:
				k1start += 2
			case front:
				if j := off + delta - k1; j >= 0 && j < size && v2[j] != -1 && x1 >= n-v2[j] {
					return a0 + x1, b0 + y1, true
				}
			}
		}
		for k2 := -step + k2start; k2 <= step-k2end; k2 += 2 {
			i := off + k2
			var x2 int
			if k2 == -step || k2 != step && v2[i-1] < v2[i+1] {
				x2 = v2[i+1]
			} else {
				x2 = v2[i-1] + 1
			}
			y2 := x2 - k2
			s := x2
			for x2 < n && y2 < m && a[a1-x2-1] == b[b1-y2-1] {
				x2++
				y2++
			}
			d.work += 1 + x2 - s
			v2[i] = x2
			switch {
			case x2 > n:
				k2end += 2
			case y2 > m:
				k2start += 2
			case !front:
				if j := off + delta - k2; j >= 0 && j < size && v1[j] != -1 {
					x1 := v1[j]
					if y1 := x1 - (j - off); x1 >= n-x2 {
						return a0 + x1, b0 + y1, true
					}
				}
			}
		}
		if d.work > d.max {
			d.exhausted = true
			return 0, 0, false
		}
	}
	// Unreachable for a finite edit (the paths meet by maxD steps); the
	// fallback keeps the result correct should it not be.
	return 0, 0, false
}

// vectors returns v1 and v2 of at least size entries, all -1. The
// recursion is sequential, so one pair serves every bisect.
func (d *differ) vectors(size int) ([]int, []int) {
	if cap(d.v1) < size {
		d.v1, d.v2 = make([]int, size), make([]int, size)
	}
	v1, v2 := d.v1[:size], d.v2[:size]
	for i := range v1 {
		v1[i], v2[i] = -1, -1
	}
	return v1, v2
}
