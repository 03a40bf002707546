package mdterm

import "strings"

// table lays a GFM table out with box-drawing borders. Column widths come
// from the cells' display widths; when the table is wider than width, the
// widest columns give way first and their cells wrap. A table too narrow
// for even that is shown row by row, "header: cell" per line.
func (r *renderer) table(b *block, width int) []line {
	n := len(b.aligns)
	rows := make([][][]seg, len(b.lines))
	for i, l := range b.lines {
		cells := splitRow(l)
		rows[i] = make([][]seg, n)
		for c := 0; c < n && c < len(cells); c++ {
			spans := inline(cells[c], r.color)
			if i == 0 {
				for k := range spans {
					spans[k].st = spans[k].st.add(stHeader)
				}
			}
			rows[i][c] = spans
		}
	}
	natural := make([]int, n)
	for _, row := range rows {
		for c, spans := range row {
			natural[c] = max(natural[c], spansWidth(spans), 1)
		}
	}
	// Each cell takes "│ " before it and " " after, the row a final "│";
	// a column narrower than 3 (or its content) would be unreadable.
	avail, need := width-(3*n+1), 0
	for _, w := range natural {
		need += min(w, 3)
	}
	if avail < need {
		return r.tableByRow(rows, width)
	}
	widths := fitColumns(natural, avail)

	var out []line
	border := func(left, mid, right string) {
		var b strings.Builder
		b.WriteString(left)
		for c, w := range widths {
			if c > 0 {
				b.WriteString(mid)
			}
			b.WriteString(strings.Repeat("─", w+2))
		}
		b.WriteString(right)
		out = append(out, line{segs: []seg{{b.String(), stBorder}}})
	}
	cellLines := func(row [][]seg) [][]line {
		cl := make([][]line, n)
		for c, spans := range row {
			cl[c] = wrap(spans, widths[c])
		}
		return cl
	}
	tall := false // some body row takes more than a line
	bodies := make([][][]line, len(rows)-1)
	for i := range bodies {
		bodies[i] = cellLines(rows[i+1])
		for _, cl := range bodies[i] {
			tall = tall || len(cl) > 1
		}
	}
	border("┌", "┬", "┐")
	out = append(out, r.tableRow(cellLines(rows[0]), widths, b.aligns)...)
	border("├", "┼", "┤")
	for i, cl := range bodies {
		if i > 0 && tall {
			border("├", "┼", "┤")
		}
		out = append(out, r.tableRow(cl, widths, b.aligns)...)
	}
	border("└", "┴", "┘")
	return out
}

// tableRow lays out one row whose cells are wrapped to their columns.
func (r *renderer) tableRow(cells [][]line, widths []int, aligns []byte) []line {
	height := 1
	for _, cl := range cells {
		height = max(height, len(cl))
	}
	out := make([]line, height)
	for k := range out {
		var segs []seg
		for c, cl := range cells {
			segs = append(segs, seg{"│ ", stBorder})
			var cell line
			if k < len(cl) {
				cell = cl[k]
			}
			free := widths[c] - cell.width()
			left := 0
			switch aligns[c] {
			case 'r':
				left = free
			case 'c':
				left = free / 2
			}
			if left > 0 {
				segs = append(segs, seg{spaces(left), 0})
			}
			segs = append(segs, cell.segs...)
			if free-left > 0 {
				segs = append(segs, seg{spaces(free - left), 0})
			}
			segs = append(segs, seg{" ", 0})
		}
		out[k] = line{segs: append(segs, seg{"│", stBorder})}
	}
	return out
}

// tableByRow shows each body row as lines of "header: cell".
func (r *renderer) tableByRow(rows [][][]seg, width int) []line {
	var out []line
	for i, row := range rows[1:] {
		if i > 0 {
			out = append(out, line{})
		}
		for c, spans := range row {
			label := append([]seg(nil), rows[0][c]...)
			label = append(label, seg{":", stHeader}, seg{" ", 0})
			out = append(out, wrap(append(label, spans...), width)...)
		}
	}
	if len(rows) == 1 { // a header alone
		for _, spans := range rows[0] {
			out = append(out, wrap(spans, width)...)
		}
	}
	return out
}

func spansWidth(spans []seg) int {
	w := 0
	for _, l := range wrap(spans, 1<<30) {
		w = max(w, l.width())
	}
	return w
}

// fitColumns returns column widths that add up to at most avail (which is
// at least the sum of min(natural, 3)): the natural widths when they fit, otherwise each
// capped at the largest cap that fits, the room left going to the capped
// columns from the left.
func fitColumns(natural []int, avail int) []int {
	sum := func(limit int) int {
		s := 0
		for _, w := range natural {
			s += min(w, limit)
		}
		return s
	}
	widths := append([]int(nil), natural...)
	if sum(1<<30) <= avail {
		return widths
	}
	lo, hi := 1, 1<<30 // sum(lo) <= avail < sum(hi)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if sum(mid) <= avail {
			lo = mid
		} else {
			hi = mid
		}
	}
	left := avail - sum(lo)
	for c, w := range natural {
		widths[c] = min(w, lo)
		if w > lo && left > 0 {
			widths[c]++
			left--
		}
	}
	return widths
}
