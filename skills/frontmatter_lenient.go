package skills

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// The notes of the lenient retry.
const (
	noteColonValue = `value contains ": " and should be quoted; read as a string`
	noteFlowValue  = `value starts with %q but is not a valid YAML list or mapping; read as a string`
)

// repairFrontmatter rewrites, for the one lenient retry of SPEC §4.3, the
// lines strict YAML refuses although their intent is plain:
//
//   - `description: Use when: ...`: a plain value containing ": " (or ending
//     in ":") is double-quoted;
//   - `argument-hint: [title] [message]` (Claude Code's hint syntax): a value
//     starting with `[` or `{` that is not valid YAML by itself is
//     double-quoted instead of being read as a flow collection. A valid one
//     (`tags: [a, b]`) stays a list.
//
// Both apply to `key:` lines at any depth, also after `- `; a trailing
// comment is dropped as YAML would. Lines that are not structure (block
// scalar content, the continuation of a quoted, plain or flow value) are
// never touched, and a line is only changed when it is invalid by itself,
// so a document strict YAML accepts reads the same after the rewrite
// (FuzzLenientFrontmatter checks this).
func repairFrontmatter(fm string) (string, []fmNote) {
	lines := strings.Split(fm, "\n")
	var notes []fmNote
	r := fmRepairer{lines: lines}
	for i := 0; i < len(lines); i++ {
		if r.skip(i) {
			continue
		}
		l, ok := splitFMLine(lines[i])
		if !ok {
			l = r.bareValue(lines[i])
		}
		r.nested(l.col)
		if msg, quoted := r.value(i, l); msg != "" {
			lines[i] = l.prefix + strconv.Quote(quoted)
			notes = append(notes, fmNote{line: i + 1 + fmLineOffset, msg: msg})
		}
	}
	return strings.Join(lines, "\n"), notes
}

// An fmRepairer walks the frontmatter lines and remembers when the next lines
// continue a value instead of being structure.
type fmRepairer struct {
	lines []string
	// cont is what the next lines continue: 0, '|' (block scalar), '"' or
	// '\'' (quoted scalar), 'p' (plain scalar) or '[' (flow collection, up to
	// line until).
	cont byte
	col  int // column of the node the continued value belongs to
	ind  int // block scalar content indentation, -1 until known
	// blankInd is the widest blank line before block scalar content.
	blankInd int
	until    int
	// cols are the columns of the enclosing nodes of the current line, from
	// the lines above: the parents a value on a line of its own may have.
	cols []int
}

// nested records a node at col: the nodes at col or deeper above it are done.
func (r *fmRepairer) nested(col int) {
	r.parent(col)
	r.cols = append(r.cols, col)
}

// parent returns the column of the closest node above that col is inside
// (-1 at the top), forgetting those it is not inside.
func (r *fmRepairer) parent(col int) int {
	for len(r.cols) > 0 && r.cols[len(r.cols)-1] >= col {
		r.cols = r.cols[:len(r.cols)-1]
	}
	if len(r.cols) == 0 {
		return -1
	}
	return r.cols[len(r.cols)-1]
}

// bareValue splits a line that holds a value on its own (the value of a key
// on a line above, or text strict YAML will refuse). Its column is that of
// its parent node, which is what its continuation lines are measured from.
func (r *fmRepairer) bareValue(line string) fmLine {
	ind := len(line) - len(strings.TrimLeft(line, " "))
	return fmLine{prefix: line[:ind], value: strings.TrimRight(line[ind:], " \t"), col: r.parent(ind), bare: true}
}

// skip reports whether line i continues a value, updating the state.
func (r *fmRepairer) skip(i int) bool {
	line := r.lines[i]
	ind := len(line) - len(strings.TrimLeft(line, " "))
	blank := strings.TrimSpace(line) == ""
	switch r.cont {
	case '|':
		if blank {
			r.blankInd = max(r.blankInd, ind)
			return true
		}
		if r.ind < 0 {
			r.ind = max(ind, r.blankInd, r.col+1)
		}
		if ind >= r.ind {
			return true
		}
	case '"', '\'':
		if _, rest, ok := scanQuoted(line, r.cont); ok {
			r.cont = 0
			r.afterValue(rest, r.col)
		}
		return true
	case 'p':
		if blank {
			return true
		}
		if ind > r.col && line[ind] != '#' && line[ind] != '\t' {
			return true
		}
	case '[':
		if i <= r.until {
			return true
		}
	}
	r.cont = 0
	return blank || strings.HasPrefix(strings.TrimLeft(line, " "), "#")
}

// afterValue notes whether the text after a closed quoted scalar leaves the
// next lines as structure.
func (r *fmRepairer) afterValue(rest string, col int) {
	if !onlyComment(rest) && strings.TrimSpace(rest) != "" {
		r.cont, r.col = 'p', col // not valid, but do not touch what follows
	}
}

// value applies the rules to the value of line i. It returns the note and the
// text to quote, or "" when the line stays; it also notes what the next lines
// continue.
func (r *fmRepairer) value(i int, l fmLine) (note, quoted string) {
	v := skipProperties(l.value)
	switch {
	case v == "" || v[0] == '#':
	case v[0] == '|' || v[0] == '>':
		r.cont, r.col, r.ind, r.blankInd = '|', l.col, -1, 0
		if n := blockIndentIndicator(v[1:]); n > 0 {
			r.ind = max(l.col, 0) + n
		}
	case v[0] == '"' || v[0] == '\'':
		if _, rest, ok := scanQuoted(v[1:], v[0]); ok {
			r.afterValue(rest, l.col)
		} else {
			r.cont, r.col = v[0], l.col
		}
	case v[0] == '[' || v[0] == '{':
		if v != l.value || l.bare {
			// After an anchor or a tag, or on a line of its own: leave it
			// to strict YAML, and the lines it goes on over alone.
			r.skipFlow(i, v)
			break
		}
		return r.flowValue(i, l)
	case v[0] == '*':
	default:
		r.cont, r.col = 'p', l.col
		text := stripComment(v, false)
		if l.key && v == l.value && (strings.Contains(text, ": ") || strings.HasSuffix(text, ":")) &&
			!strings.ContainsAny(text[:1], "\"'[{|>&*!%@`") {
			r.cont = 0
			return noteColonValue, text
		}
	}
	return "", ""
}

// flowValue handles a value starting with `[` or `{`: a valid one stays (and
// so do the lines it continues on), an invalid one is quoted.
func (r *fmRepairer) flowValue(i int, l fmLine) (note, quoted string) {
	if validFlowValue(l.value) {
		return "", ""
	}
	// An unclosed collection may go on over the next lines: read up to the
	// line that closes it (within maxFlowLines), and keep them all if
	// together they are valid.
	f := flowState{}
	if f.scan(l.value); f.depth > 0 {
		var text strings.Builder
		text.WriteString(l.value)
		for j := i + 1; j < len(r.lines) && j <= i+maxFlowLines; j++ {
			text.WriteString("\n" + r.lines[j])
			if f.scan(r.lines[j]); f.depth <= 0 {
				if validFlowValue(text.String()) {
					r.cont, r.until = '[', j
					return "", ""
				}
				break
			}
		}
	}
	text := stripComment(l.value, true)
	if text == "" {
		return "", ""
	}
	return fmt.Sprintf(noteFlowValue, text[:1]), text
}

// skipFlow leaves alone the lines a flow collection starting on line i with
// text v goes on over (up to maxFlowLines when it is never closed).
func (r *fmRepairer) skipFlow(i int, v string) {
	f := flowState{}
	f.scan(v)
	j := i
	for ; f.depth > 0 && j+1 < len(r.lines) && j < i+maxFlowLines; j++ {
		f.scan(r.lines[j+1])
	}
	if j > i {
		r.cont, r.until = '[', j
	}
}

// maxFlowLines bounds how far the lenient retry looks for the end of a flow
// collection, so that a file of unclosed `[` stays linear.
const maxFlowLines = 200

// blockIndentIndicator returns the indentation indicator of a block scalar
// header (the text after `|` or `>`), or 0.
func blockIndentIndicator(h string) int {
	for i := 0; i < len(h) && i < 2; i++ {
		if h[i] >= '1' && h[i] <= '9' {
			return int(h[i] - '0')
		}
	}
	return 0
}

// validFlowValue reports whether `k: value` is valid YAML by itself. The
// aliases it uses get anchors first: they refer to the rest of the document.
func validFlowValue(value string) bool {
	var doc strings.Builder
	for i, m := range aliasRE().FindAllStringSubmatch(value, -1) {
		fmt.Fprintf(&doc, "a%d: &%s x\n", i, m[1])
	}
	doc.WriteString("k: " + value)
	var n yaml.Node
	return safeYAMLUnmarshal([]byte(doc.String()), &n) == nil
}

var aliasRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\*([A-Za-z0-9_-]+)`) })

// A flowState follows a flow collection over lines, as far as telling where
// it ends: its depth, and the scalar that goes on at the end of a line.
type flowState struct {
	depth int
	quote byte // an open quoted scalar
	plain bool // an open plain scalar: a quote on the next line is text
}

// scan reads one more line of the collection.
func (f *flowState) scan(s string) {
	i := skipBlanks(s, 0)
	if f.quote != 0 {
		_, rest, ok := scanQuoted(s, f.quote)
		if !ok {
			return
		}
		i, f.quote = len(s)-len(rest), 0
	} else if i < len(s) && s[i] == '#' {
		f.plain = false
		return
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
		case c == '#' && (s[i-1] == ' ' || s[i-1] == '\t' || !f.plain):
			f.plain = false
			return
		case c == '[' || c == '{':
			f.depth++
			f.plain = false
		case c == ']' || c == '}':
			f.depth--
			f.plain = false
		case c == ',':
			f.plain = false
		case c == ':' && (!f.plain || i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t'):
			f.plain = false
		case (c == '"' || c == '\'') && !f.plain:
			_, rest, ok := scanQuoted(s[i+1:], c)
			if !ok {
				f.quote = c
				return
			}
			i = len(s) - len(rest) - 1
		default:
			f.plain = true
		}
	}
}

// An fmLine is a frontmatter line split at its value: indentation, `- `,
// `? ` and `: ` indicators and a `key:` (plain or quoted) are the prefix.
type fmLine struct {
	prefix string
	value  string // trailing blanks removed
	col    int    // column of the node the value belongs to
	key    bool   // the prefix ends with a `key:`
	bare   bool   // no key or indicator: a value on a line of its own
}

func splitFMLine(line string) (fmLine, bool) {
	i := len(line) - len(strings.TrimLeft(line, " "))
	l := fmLine{col: i}
	indicators := false
	for i < len(line) && strings.IndexByte("-?:", line[i]) >= 0 && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t') {
		l.col, indicators = i, true
		i = skipBlanks(line, i+1)
	}
	if k := keyLen(line[i:]); k > 0 {
		l.col, l.key = i, true
		i = skipBlanks(line, i+k)
	} else if !indicators {
		return l, false
	}
	l.prefix, l.value = line[:i], strings.TrimRight(line[i:], " \t")
	return l, true
}

// keyLen returns the length of the `key:` (and the blank after it, if any)
// that s starts with, or 0.
func keyLen(s string) int {
	n := 0
	if s != "" && (s[0] == '"' || s[0] == '\'') {
		_, rest, ok := scanQuoted(s[1:], s[0])
		if !ok {
			return 0
		}
		n = len(s) - len(rest)
	} else {
		for n < len(s) && (isKeyChar(s[n])) {
			n++
		}
		if n == 0 || s[0] == '-' && n == 1 {
			return 0
		}
	}
	if n >= len(s) || s[n] != ':' {
		return 0
	}
	if n+1 < len(s) && s[n+1] != ' ' && s[n+1] != '\t' {
		return 0
	}
	return n + 1
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// skipProperties drops the anchor and tag a value may start with.
func skipProperties(v string) string {
	for v != "" && (v[0] == '&' || v[0] == '!') {
		end := strings.IndexAny(v, " \t")
		if end < 0 {
			return ""
		}
		v = strings.TrimLeft(v[end:], " \t")
	}
	return v
}

// stripComment removes a trailing ` # comment` and blanks. In a flow value
// (flow is true) a quote at the start of a token opens a quoted scalar, which
// may contain ` #`; in a plain value quotes are text.
func stripComment(v string, flow bool) string {
	quote := byte(0)
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case !flow:
			if c == '#' && i > 0 && (v[i-1] == ' ' || v[i-1] == '\t') {
				return strings.TrimRight(v[:i], " \t")
			}
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '#' && i > 0 && (v[i-1] == ' ' || v[i-1] == '\t'):
			return strings.TrimRight(v[:i], " \t")
		case (c == '"' || c == '\'') && (i == 0 || strings.IndexByte(" \t[{,:", v[i-1]) >= 0):
			quote = c
		}
	}
	return strings.TrimRight(v, " \t")
}

// scanQuoted reads a quoted scalar's text after its opening quote q, up to
// the closing one on this line; ok is false when it is not closed here.
func scanQuoted(s string, q byte) (text, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\':
			i++
		case s[i] != q:
		case q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		default:
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}
