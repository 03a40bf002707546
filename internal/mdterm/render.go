package mdterm

import "strings"

// Options say how to render.
type Options struct {
	// Width is the number of columns to wrap to; less than 10 counts as 10,
	// more than 1000 as 1000.
	Width int
	// Color turns ANSI styles on. Off, the output is plain text that keeps
	// the structure (see the package documentation).
	Color bool
}

// minWidth is the narrowest width rendered, maxWidth the widest: a rule is
// as wide as the width, and no terminal is wider.
const (
	minWidth = 10
	maxWidth = 1000
)

// minIndented is the narrowest width a container indents its content to:
// nested deeper, lists and quotes stop indenting, so no line outgrows the
// width however deep the nesting.
const minIndented = 8

// Render renders a whole Markdown document (or one chunk that a [Stream]
// handed back) for the terminal. The result is a sequence of lines, each
// ended by a newline, with one blank line between blocks and none before
// the first or after the last; it is "" when there is nothing to show. So
// for a source split at a block boundary (as [Stream] splits it),
// Render(a+b) is Render(a) + "\n" + Render(b) whenever both are not empty.
//
// Control characters in src are shown as escapes ([termtext.Escape]); the
// only escape sequences in the result are the SGR styles of this package,
// each closed on its line.
func Render(src string, o Options) string {
	var b strings.Builder
	writeLines(&b, renderLines(src, o), o.Color)
	return b.String()
}

func renderLines(src string, o Options) []line {
	r := renderer{color: o.Color}
	return r.blocks(parse(src), min(max(o.Width, minWidth), maxWidth), true, 0)
}

type renderer struct {
	color bool
}

// blocks renders a sequence of blocks at width. spaced puts a blank line
// between every two blocks (the document, a quote); otherwise one comes
// where the source had one (the blocks of a list item). depth is the list
// nesting depth, for the bullet shapes.
func (r *renderer) blocks(bs []*block, width int, spaced bool, depth int) []line {
	var out []line
	for _, b := range bs {
		lines := r.block(b, width, depth)
		if len(lines) == 0 {
			continue // an empty code block shows nothing, not even spacing
		}
		if len(out) > 0 && (spaced || b.gap) {
			out = append(out, line{})
		}
		out = append(out, lines...)
	}
	return out
}

func (r *renderer) block(b *block, width, depth int) []line {
	switch b.kind {
	case kHeading:
		return r.heading(b, width)
	case kRule:
		return []line{{segs: []seg{{strings.Repeat("─", width), stBorder}}}}
	case kCode:
		return r.code(b)
	case kQuote:
		return r.quote(b, width, depth)
	case kList:
		return r.list(b, width, depth)
	case kTable:
		return r.table(b, width)
	}
	return wrap(inline(paragraphText(b.lines), r.color), width)
}

// paragraphText joins a paragraph's lines for the inline parser, without
// the indentation of each line and the spaces that end the last.
func paragraphText(lines []string) string {
	if len(lines) == 1 {
		return strings.TrimRight(strings.TrimLeft(lines[0], " "), " ")
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		l = strings.TrimLeft(l, " ")
		if i == len(lines)-1 {
			l = strings.TrimRight(l, " ")
		}
		b.WriteString(l)
	}
	return b.String()
}

// heading: in colour, styled by level (1 bold underlined magenta, 2 bold
// underlined, 3-6 bold); in plain text, after its #s.
func (r *renderer) heading(b *block, width int) []line {
	spans := inline(paragraphText(b.lines), r.color)
	if !r.color {
		spans = append([]seg{{strings.Repeat("#", b.level) + " ", 0}}, spans...)
		return wrap(spans, width)
	}
	base := stH3
	switch b.level {
	case 1:
		base = stH1
	case 2:
		base = stH2
	}
	for i := range spans {
		spans[i].st = spans[i].st.add(base)
	}
	return wrap(spans, width)
}

// code shows a code block unwrapped (long lines stay long, so the code
// can be copied as it is): in colour, indented by two columns and
// coloured by its language; in plain text, between fences.
func (r *renderer) code(b *block) []line {
	var out []line
	if !r.color {
		fence := codeFence(b.lines)
		out = append(out, line{segs: []seg{{fence + b.info, 0}}, code: true})
		for _, l := range b.lines {
			out = append(out, line{segs: []seg{{l, 0}}, code: true})
		}
		return append(out, line{segs: []seg{{fence, 0}}, code: true})
	}
	// Blank lines at the ends of the code would only look like spacing.
	code := b.lines
	for len(code) > 0 && isBlank(code[0]) {
		code = code[1:]
	}
	for len(code) > 0 && isBlank(code[len(code)-1]) {
		code = code[:len(code)-1]
	}
	if len(code) == 0 {
		return nil
	}
	var spans []seg
	if sy, ok := syntaxFor(b.info); ok {
		spans = highlight(strings.Join(code, "\n"), sy)
	} else {
		for i, l := range code {
			if i > 0 {
				spans = append(spans, seg{"\n", 0})
			}
			spans = append(spans, seg{l, 0})
		}
	}
	cur := line{code: true}
	for _, s := range spans {
		if s.text == "\n" {
			out = append(out, cur)
			cur = line{code: true}
			continue
		}
		cur.segs = append(cur.segs, s)
	}
	out = append(out, cur)
	for i := range out {
		out[i] = out[i].prefixed(seg{"  ", 0})
	}
	return out
}

// codeFence returns a backtick fence longer than any backtick run that
// starts a line of the code.
func codeFence(lines []string) string {
	n := 3
	for _, l := range lines {
		t := strings.TrimLeft(l, " ")
		k := 0
		for k < len(t) && t[k] == '`' {
			k++
		}
		n = max(n, k+1)
	}
	return strings.Repeat("`", n)
}

// quote puts a bar before its content.
func (r *renderer) quote(b *block, width, depth int) []line {
	if width-2 < minIndented {
		return r.blocks(b.children, width, true, depth)
	}
	lines := r.blocks(b.children, width-2, true, depth)
	for i := range lines {
		lines[i] = lines[i].prefixed(seg{"│ ", stBorder})
	}
	return lines
}

func (r *renderer) list(b *block, width, depth int) []line {
	var out []line
	for i, it := range b.items {
		if i > 0 && it.gap {
			out = append(out, line{})
		}
		out = append(out, r.item(it, width, depth)...)
	}
	return out
}

// bullets are the bullet shapes by nesting depth.
const bullets = "•◦▪"

// item renders a list item: its marker (bullet, number as in the source,
// or task box) on the first line, the content indented under it.
func (r *renderer) item(it *item, width, depth int) []line {
	var marker []seg
	switch {
	case it.ordered:
		marker = append(marker, seg{it.marker + " ", 0})
		if it.task != 0 {
			marker = append(marker, taskBox(it.task))
		}
	case it.task != 0:
		marker = append(marker, taskBox(it.task))
	default:
		k := depth % 3
		marker = append(marker, seg{string([]rune(bullets)[k]) + " ", 0})
	}
	mw := 0
	for _, s := range marker {
		mw += strWidth(s.text)
	}
	if width-mw < minIndented {
		// Too deep to indent: the marker goes before the first line, or
		// on a line of its own.
		lines := r.blocks(it.children, width, false, depth+1)
		if len(lines) > 0 && !lines[0].code && mw+lines[0].width() <= width {
			lines[0].segs = append(append([]seg(nil), marker...), lines[0].segs...)
			return lines
		}
		return append(wrap(marker, width), lines...)
	}
	lines := r.blocks(it.children, width-mw, false, depth+1)
	if len(lines) == 0 {
		return []line{{segs: marker}}
	}
	pad := seg{spaces(mw), 0}
	for i := range lines {
		if i == 0 {
			segs := append(append([]seg(nil), marker...), lines[0].segs...)
			lines[0] = line{segs: segs, code: lines[0].code}
			continue
		}
		lines[i] = lines[i].prefixed(pad)
	}
	return lines
}

func taskBox(state byte) seg {
	if state == 'x' {
		return seg{"☑ ", stChecked}
	}
	return seg{"☐ ", 0}
}
