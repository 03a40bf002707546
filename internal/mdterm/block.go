package mdterm

import (
	"strings"

	"github.com/clawseed/clawseed/internal/termtext"
)

type blockKind uint8

const (
	kPara blockKind = iota
	kHeading
	kRule
	kCode
	kQuote
	kList
	kTable
)

// A block is a block of the document. Leaf blocks hold their source lines;
// container blocks (quotes, lists) their children.
type block struct {
	kind  blockKind
	lines []string // paragraph and heading text, code lines, table rows
	level int      // heading level 1-6
	// fenced code: the info string, the fence (for plain output) and
	// whether a closing fence was seen
	info   string
	fenced bool
	closed bool
	// quote
	children []*block
	// list
	items []*item
	// table
	aligns []byte // 'l', 'c', 'r' or 0 per column
	// gap says a blank line came before the block in the source; the
	// blocks of a list item keep the source's spacing.
	gap bool
}

// An item is a list item.
type item struct {
	marker   string // "-", "*", "+", "1.", "2)"...
	ordered  bool
	task     byte // 0, ' ' (open) or 'x' (done)
	children []*block
	gap      bool
}

// parse turns Markdown source into blocks. The source is escaped with
// termtext.Escape first, so no control character reaches the renderer (tab
// and newline are then expanded and split here): every text the renderer
// prints comes from these lines.
func parse(src string) []*block {
	return parseBlocks(sourceLines(src), 0)
}

// maxNesting is how deep quotes and lists nest: deeper, their markers are
// text. It keeps parsing linear in the input (each level re-reads its
// lines' indentation) and is far beyond what a reply needs.
const maxNesting = 32

// sourceLines returns the lines of src: line endings normalised (CRLF and
// CR are line endings in Markdown), control characters escaped, tabs
// expanded to stops of 4 columns.
func sourceLines(src string) []string {
	if strings.IndexByte(src, '\r') >= 0 {
		src = strings.ReplaceAll(src, "\r\n", "\n")
		src = strings.ReplaceAll(src, "\r", "\n")
	}
	src = termtext.Escape(src)
	src = strings.TrimSuffix(src, "\n")
	if src == "" {
		return nil
	}
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if strings.IndexByte(l, '\t') >= 0 {
			lines[i] = expandTabs(l)
		}
	}
	return lines
}

func expandTabs(l string) string {
	var b strings.Builder
	col := 0
	for _, r := range l {
		if r == '\t' {
			n := 4 - col%4
			b.WriteString(spaces(n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

func isBlank(l string) bool { return strings.TrimLeft(l, " ") == "" }

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// parseBlocks parses lines (with their container's prefixes removed), the
// content of depth containers.
func parseBlocks(lines []string, depth int) []*block {
	var out []*block
	gap := false
	for i := 0; i < len(lines); {
		l := lines[i]
		if isBlank(l) {
			gap = true
			i++
			continue
		}
		var b *block
		switch {
		case indentOf(l) >= 4:
			b, i = parseIndentedCode(lines, i)
		case fenceOpen(l) != "":
			b, i = parseFence(lines, i)
		case atxLevel(l) > 0:
			b = parseATX(l)
			i++
		case isRule(l):
			b = &block{kind: kRule}
			i++
		case isQuote(l) && depth < maxNesting:
			b, i = parseQuote(lines, i, depth)
		case listMarker(l) != "" && depth < maxNesting:
			b, i = parseList(lines, i, depth)
		case tableStart(lines, i):
			b, i = parseTable(lines, i)
		default:
			b, i = parseParagraph(lines, i)
		}
		b.gap = gap && len(out) > 0
		gap = false
		out = append(out, b)
	}
	return out
}

func parseIndentedCode(lines []string, i int) (*block, int) {
	b := &block{kind: kCode}
	for ; i < len(lines) && (isBlank(lines[i]) || indentOf(lines[i]) >= 4); i++ {
		l := lines[i]
		if len(l) >= 4 {
			l = l[4:]
		} else {
			l = ""
		}
		b.lines = append(b.lines, l)
	}
	// Trailing blank lines belong to no block.
	for i > 0 && isBlank(lines[i-1]) {
		i--
		b.lines = b.lines[:len(b.lines)-1]
	}
	return b, i
}

// fenceOpen returns the fence that l opens (three or more backticks or
// tildes after at most three spaces), or "".
func fenceOpen(l string) string {
	ind := indentOf(l)
	if ind > 3 {
		return ""
	}
	s := l[ind:]
	if len(s) < 3 || s[0] != '`' && s[0] != '~' {
		return ""
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 || s[0] == '`' && strings.IndexByte(s[n:], '`') >= 0 {
		return ""
	}
	return s[:n]
}

// fenceCloses says whether l closes fence.
func fenceCloses(l, fence string) bool {
	ind := indentOf(l)
	if ind > 3 {
		return false
	}
	s := strings.TrimRight(l[ind:], " ")
	return len(s) >= len(fence) && strings.Trim(s, fence[:1]) == ""
}

func parseFence(lines []string, i int) (*block, int) {
	l := lines[i]
	ind := indentOf(l)
	fence := fenceOpen(l)
	b := &block{kind: kCode, fenced: true, info: strings.TrimSpace(l[ind+len(fence):])}
	for i++; i < len(lines); i++ {
		if fenceCloses(lines[i], fence) {
			b.closed = true
			i++
			break
		}
		// Content loses up to the opening fence's indentation.
		c := lines[i]
		c = c[min(ind, indentOf(c)):]
		b.lines = append(b.lines, c)
	}
	return b, i
}

// atxLevel returns the level of the ATX heading l, or 0.
func atxLevel(l string) int {
	ind := indentOf(l)
	if ind > 3 {
		return 0
	}
	s := l[ind:]
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n < len(s) && s[n] != ' ' {
		return 0
	}
	return n
}

func parseATX(l string) *block {
	level := atxLevel(l)
	s := strings.TrimSpace(strings.TrimLeft(l, " ")[level:])
	// A closing sequence of #s goes when a space comes before it.
	if t := strings.TrimRight(s, "#"); t == "" {
		s = ""
	} else if t != s && strings.HasSuffix(t, " ") {
		s = strings.TrimRight(t, " ")
	}
	return &block{kind: kHeading, level: level, lines: []string{s}}
}

// isRule says whether l is a thematic break: three or more of one of
// - * _, spaces allowed between.
func isRule(l string) bool {
	if indentOf(l) > 3 {
		return false
	}
	var c byte
	n := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ':
		case '-', '*', '_':
			if c != 0 && l[i] != c {
				return false
			}
			c = l[i]
			n++
		default:
			return false
		}
	}
	return n >= 3
}

// setextLevel returns 1 or 2 when l underlines a paragraph (= or -), or 0.
func setextLevel(l string) int {
	if indentOf(l) > 3 {
		return 0
	}
	s := strings.TrimRight(strings.TrimLeft(l, " "), " ")
	switch {
	case s == "":
		return 0
	case strings.Trim(s, "=") == "":
		return 1
	case strings.Trim(s, "-") == "":
		return 2
	}
	return 0
}

func isQuote(l string) bool {
	ind := indentOf(l)
	return ind <= 3 && ind < len(l) && l[ind] == '>'
}

// stripQuote removes the quote marker and one space after it.
func stripQuote(l string) string {
	s := l[indentOf(l)+1:]
	if strings.HasPrefix(s, " ") {
		s = s[1:]
	}
	return s
}

func parseQuote(lines []string, i, depth int) (*block, int) {
	var inner []string
	var lazy lazyState
	for ; i < len(lines); i++ {
		l := lines[i]
		switch {
		case isQuote(l):
			l = stripQuote(l)
		case isBlank(l) || !lazy.para || interrupts(l):
			// A lazy continuation line goes on the quote's paragraph;
			// anything else ends the quote.
			return &block{kind: kQuote, children: parseBlocks(inner, depth+1)}, i
		}
		inner = append(inner, l)
		lazy.add(l)
	}
	return &block{kind: kQuote, children: parseBlocks(inner, depth+1)}, i
}

// A lazyState follows the lines of a container (quote, list item) to tell
// whether a lazy line, one without the container's marker or indentation,
// would continue a paragraph: the last line is text, not blank, not in a
// fence or an indented code block, not a heading or a rule.
type lazyState struct {
	fence string // the open fence, if any
	para  bool   // the last line is paragraph text
}

func (s *lazyState) add(l string) {
	// Quote markers are skipped so that fences in nested quotes count.
	t := strings.TrimLeft(l, " >")
	switch {
	case s.fence != "":
		if fenceCloses(t, s.fence) {
			s.fence = ""
		}
		s.para = false
	case fenceOpen(t) != "":
		s.fence, s.para = fenceOpen(t), false
	case isBlank(l):
		s.para = false
	case indentOf(l) >= 4:
		// An indented line continues a paragraph, or is code.
	default:
		s.para = atxLevel(l) == 0 && !isRule(l)
	}
}

// interrupts says whether l starts a block that ends a paragraph.
func interrupts(l string) bool {
	if indentOf(l) > 3 {
		return false
	}
	if fenceOpen(l) != "" || atxLevel(l) > 0 || isRule(l) || isQuote(l) {
		return true
	}
	// A list item interrupts a paragraph when it is not empty and, if
	// ordered, starts at 1.
	m := listMarker(l)
	if m == "" || isBlank(l[indentOf(l)+len(m):]) {
		return false
	}
	return !isDigit(m[0]) || m[:len(m)-1] == "1"
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// listMarker returns the list marker l starts with ("-", "1." ...), or "".
func listMarker(l string) string {
	ind := indentOf(l)
	if ind > 3 {
		return ""
	}
	s := l[ind:]
	n := 0
	switch {
	case s == "":
		return ""
	case s[0] == '-' || s[0] == '+' || s[0] == '*':
		n = 1
	default:
		for n < len(s) && n < 10 && isDigit(s[n]) {
			n++
		}
		if n == 0 || n > 9 || n == len(s) || s[n] != '.' && s[n] != ')' {
			return ""
		}
		n++
	}
	if n < len(s) && s[n] != ' ' {
		return ""
	}
	return s[:n]
}

// sameList says whether markers a and b belong to one list: the same
// bullet, or the same ordered delimiter.
func sameList(a, b string) bool {
	if isDigit(a[0]) != isDigit(b[0]) {
		return false
	}
	return a[len(a)-1] == b[len(b)-1]
}

func parseList(lines []string, i, depth int) (*block, int) {
	b := &block{kind: kList}
	first := listMarker(lines[i])
	gap := false
	for i < len(lines) {
		l := lines[i]
		if isBlank(l) {
			gap = true
			i++
			continue
		}
		m := listMarker(l)
		if m == "" || !sameList(first, m) || isRule(l) {
			break
		}
		var it *item
		it, i = parseItem(lines, i, depth)
		it.gap = gap && len(b.items) > 0
		gap = false
		b.items = append(b.items, it)
	}
	// Blank lines after the list belong to what follows.
	for i > 0 && isBlank(lines[i-1]) {
		i--
	}
	return b, i
}

func parseItem(lines []string, i, depth int) (*item, int) {
	l := lines[i]
	ind := indentOf(l)
	m := listMarker(l)
	rest := l[ind+len(m):]
	sp := indentOf(rest)
	content := ind + len(m) + sp
	switch {
	case isBlank(rest):
		content = ind + len(m) + 1
		rest = ""
	case sp > 4:
		// The content is indented code: the marker takes one space.
		content = ind + len(m) + 1
		rest = rest[1:]
	default:
		rest = rest[sp:]
	}
	it := &item{marker: m, ordered: isDigit(m[0])}
	if len(rest) >= 3 && rest[0] == '[' && rest[2] == ']' &&
		(rest[1] == ' ' || rest[1] == 'x' || rest[1] == 'X') &&
		len(rest) > 3 && rest[3] == ' ' && !isBlank(rest[4:]) {
		it.task = ' '
		if rest[1] != ' ' {
			it.task = 'x'
		}
		rest = strings.TrimLeft(rest[4:], " ")
	}
	inner := []string{rest}
	var lazy lazyState
	lazy.add(rest)
	i++
	// An item that starts with a blank line ends at the next blank line.
	if rest == "" && i < len(lines) && isBlank(lines[i]) {
		return it, i
	}
	for ; i < len(lines); i++ {
		l := lines[i]
		switch {
		case isBlank(l):
			l = ""
		case indentOf(l) >= content:
			l = l[content:]
		case lazy.para && !interrupts(l) && listMarker(l) == "":
			// a lazy continuation
		default:
			goto done
		}
		inner = append(inner, l)
		lazy.add(l)
	}
done:
	// Trailing blank lines go back to what follows (not the item's own
	// first line, even when it is empty).
	for len(inner) > 1 && isBlank(inner[len(inner)-1]) {
		inner = inner[:len(inner)-1]
		i--
	}
	it.children = parseBlocks(inner, depth+1)
	return it, i
}

// splitRow splits a table row into its cells: outer pipes dropped, \|
// kept as a pipe in the cell.
func splitRow(l string) []string {
	s := strings.TrimSpace(l)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	var cells []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			b.WriteByte('|')
			i++
		case s[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(s[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// delimiterRow returns the alignments of a table's delimiter row, or nil.
func delimiterRow(l string) []byte {
	if indentOf(l) > 3 || strings.IndexByte(l, '|') < 0 {
		return nil
	}
	cells := splitRow(l)
	aligns := make([]byte, len(cells))
	for i, c := range cells {
		left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		d := strings.Trim(c, ":")
		if d == "" || strings.Trim(d, "-") != "" {
			return nil
		}
		switch {
		case left && right:
			aligns[i] = 'c'
		case right:
			aligns[i] = 'r'
		case left:
			aligns[i] = 'l'
		}
	}
	return aligns
}

// tableStart says whether a table starts at line i: a header row with a
// pipe, then a delimiter row with as many cells.
func tableStart(lines []string, i int) bool {
	if i+1 >= len(lines) || indentOf(lines[i]) > 3 || strings.IndexByte(lines[i], '|') < 0 {
		return false
	}
	d := delimiterRow(lines[i+1])
	return d != nil && len(d) == len(splitRow(lines[i]))
}

func parseTable(lines []string, i int) (*block, int) {
	b := &block{kind: kTable, aligns: delimiterRow(lines[i+1]), lines: []string{lines[i]}}
	for i += 2; i < len(lines) && !isBlank(lines[i]) && !interrupts(lines[i]); i++ {
		b.lines = append(b.lines, lines[i])
	}
	return b, i
}

func parseParagraph(lines []string, i int) (*block, int) {
	b := &block{kind: kPara, lines: []string{lines[i]}}
	for i++; i < len(lines); i++ {
		l := lines[i]
		if isBlank(l) {
			break
		}
		if lv := setextLevel(l); lv > 0 {
			b.kind, b.level = kHeading, lv
			i++
			break
		}
		if interrupts(l) || tableStart(lines, i) {
			break
		}
		b.lines = append(b.lines, l)
	}
	return b, i
}
