package nesting

import (
	"encoding/binary"
	"unicode/utf16"
)

// CheckYAML returns an *Error when src nests collections (block or flow
// mappings and sequences) deeper than [Limit]. It reads src once, in linear
// time, and is meant to run before a YAML parser sees the text.
//
// The scan follows the tokenizer of libyaml, which go.yaml.in/yaml/v3
// ports, closely enough to know where each collection starts: block
// collections by their indentation (including a sequence at the same column
// as its parent mapping's keys, and compact `- - x` entries), flow
// collections by their brackets outside quoted scalars and comments, and the
// single-pair mappings of `[a: b]`. The contents of block scalars and quoted
// scalars are skipped. Aliases are not expanded: the parser does not either,
// and whoever expands them must bound that work itself.
func CheckYAML(src []byte) error {
	if err := scanYAML(src, Limit); err != nil {
		return err
	}
	return nil
}

// scanYAML is CheckYAML with any limit (the tests use small ones).
func scanYAML(src []byte, limit int) *Error {
	s := yamlScanner{src: yamlText(src), limit: limit, line: 1, allowKey: true}
	s.run()
	return s.err
}

// yamlText returns src as UTF-8 without its byte order mark, as the YAML
// reader sees it: it decodes UTF-16 text that starts with a BOM.
func yamlText(src []byte) []byte {
	var order binary.ByteOrder
	switch {
	case len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF:
		return src[3:]
	case len(src) >= 2 && src[0] == 0xFF && src[1] == 0xFE:
		order = binary.LittleEndian
	case len(src) >= 2 && src[0] == 0xFE && src[1] == 0xFF:
		order = binary.BigEndian
	default:
		return src
	}
	units := make([]uint16, (len(src)-2)/2)
	for i := range units {
		units[i] = order.Uint16(src[2+2*i:])
	}
	return []byte(string(utf16.Decode(units)))
}

// A blockLevel is an open block collection: libyaml's indentation stack.
type blockLevel struct {
	col int
	seq bool
	// indentless is a sequence whose `-` entries are at this mapping's own
	// column (`key:` then `- item` below it): one more level, no new column.
	indentless bool
}

// A flowLevel is an open `[` or `{`.
type flowLevel struct {
	seq bool
	// pair: the current entry of this sequence is a single-pair mapping
	// (`[a: b]` or `[? a]`), one more level.
	pair bool
	// max is the deepest level reached within the current entry, so that a
	// pair found after its key (`[[x]: y]`) counts the key one level deeper.
	// What an entry reached is passed on to the enclosing collection's
	// entry when the entry ends (flowEntry, closeFlow): that entry holds
	// all of this collection, and may itself turn out to be a pair's key
	// (`[[a: b, c]: d]`).
	max int
}

// A simpleKey is where a block mapping key may have started: the mapping is
// only known when its `:` is found, later on the same line.
type simpleKey struct {
	possible bool
	col      int
	brk      int // line, as the scanner counts lines
	idx      int // characters before the key
	max      int // deepest level reached since the key started
}

// yamlScanner mirrors the parts of libyaml's scanner that decide where
// collections start and end. Where libyaml would report an error it goes on
// as best it can: the parser rejects that text anyway.
type yamlScanner struct {
	src   []byte
	pos   int
	line  int // 1-based, counting '\n' only: the line an editor shows
	brk   int // line breaks of every kind (simple keys must not cross one)
	col   int // in characters, as libyaml counts columns
	idx   int // characters read
	limit int
	steps int // loop iterations, for the linearity test

	blocks   []blockLevel
	flows    []flowLevel
	depth    int // open collections: blocks, indentless sequences, flows and pairs
	allowKey bool
	key      simpleKey
	err      *Error
}

// maxKeyChars is libyaml's limit on the length of a simple key.
const maxKeyChars = 1024

func (s *yamlScanner) run() {
	for s.err == nil {
		s.toNextToken()
		if s.pos >= len(s.src) {
			return
		}
		start := s.pos
		s.token()
		if s.pos == start {
			s.advance() // a character that starts no token: libyaml fails here
		}
	}
}

// token reads the token at s.pos (fetch_next_token).
func (s *yamlScanner) token() {
	if len(s.flows) == 0 {
		s.unroll(s.col)
	}
	c, next := s.at(s.pos), s.pos+1
	if s.col == 0 && c == '%' { // a directive
		s.unroll(-1)
		s.key.possible, s.allowKey = false, false
		s.skipToBreak()
		return
	}
	if s.col == 0 && s.documentMarker() {
		s.unroll(-1)
		s.key.possible, s.allowKey = false, false
		s.advanceN(3)
		return
	}
	flow := len(s.flows) > 0
	switch {
	case c == '[' || c == '{':
		s.saveKey()
		s.flows = append(s.flows, flowLevel{seq: c == '['})
		s.raise()
		s.allowKey = true
		s.advance()
	case c == ']' || c == '}':
		s.closeFlow()
		s.allowKey = false
		s.advance()
	case c == ',':
		s.flowEntry()
		s.allowKey = true
		s.advance()
	case c == '-' && s.blankz(next):
		if !flow {
			s.roll(s.col, true)
			s.key.possible = false
		}
		s.allowKey = true
		s.advance()
	case c == '?' && (flow || s.blankz(next)):
		if flow {
			s.pair()
		} else {
			s.mappingToken(s.col)
			s.key.possible = false
		}
		s.allowKey = !flow
		s.advance()
	case c == ':' && (flow || s.blankz(next)):
		s.value()
		s.advance()
	case c == '*' || c == '&':
		s.saveKey()
		s.allowKey = false
		s.advance()
		for isAnchorChar(s.at(s.pos)) {
			s.advance()
		}
	case c == '!':
		s.saveKey()
		s.allowKey = false
		for !s.blankz(s.pos) {
			s.advance()
		}
	case (c == '|' || c == '>') && !flow:
		s.key.possible = false
		s.allowKey = true
		s.blockScalar()
	case c == '\'' || c == '"':
		s.saveKey()
		s.allowKey = false
		s.quoted(c == '\'')
	case s.plainStart(c, next):
		s.saveKey()
		s.allowKey = false
		s.plain()
	}
}

// toNextToken skips blanks, comments and line breaks
// (yaml_parser_scan_to_next_token).
func (s *yamlScanner) toNextToken() {
	for s.pos < len(s.src) {
		s.steps++
		if s.col == 0 && s.bomAt(s.pos) {
			s.advance() // libyaml counts it as a column
		}
		for s.at(s.pos) == ' ' || (s.at(s.pos) == '\t' && (len(s.flows) > 0 || !s.allowKey)) {
			s.advance()
		}
		if s.at(s.pos) == '#' {
			s.skipToBreak()
		}
		if !s.isBreak(s.pos) {
			return
		}
		s.lineBreak()
		if len(s.flows) == 0 {
			s.allowKey = true
		}
	}
}

// raise counts one more open collection.
func (s *yamlScanner) raise() {
	s.depth++
	s.reached(s.depth)
}

// reached records that level d was reached at the current position.
func (s *yamlScanner) reached(d int) {
	if d > s.limit && s.err == nil {
		s.err = &Error{Line: s.line, Limit: s.limit}
	}
	if n := len(s.flows); n > 0 {
		s.flows[n-1].max = max(s.flows[n-1].max, d)
	}
	if s.key.possible {
		s.key.max = max(s.key.max, d)
	}
}

// roll opens a block collection at col unless one is open there
// (yaml_parser_roll_indent). A sequence at the column of a mapping is that
// mapping's indentless value. It reports whether a level was opened.
func (s *yamlScanner) roll(col int, seq bool) bool {
	if len(s.flows) > 0 {
		return false
	}
	n := len(s.blocks)
	if n == 0 || s.blocks[n-1].col < col {
		s.blocks = append(s.blocks, blockLevel{col: col, seq: seq})
		s.raise()
		return true
	}
	if top := &s.blocks[n-1]; seq && top.col == col && !top.seq && !top.indentless {
		top.indentless = true
		s.raise()
		return true
	}
	return false
}

// unroll closes the block collections deeper than col
// (yaml_parser_unroll_indent).
func (s *yamlScanner) unroll(col int) {
	if len(s.flows) > 0 {
		return
	}
	for n := len(s.blocks); n > 0 && s.blocks[n-1].col > col; n-- {
		s.depth--
		if s.blocks[n-1].indentless {
			s.depth--
		}
		s.blocks = s.blocks[:n-1]
	}
}

// indent is libyaml's parser.indent: the column of the innermost block
// collection, -1 outside any.
func (s *yamlScanner) indent() int {
	if n := len(s.blocks); n > 0 {
		return s.blocks[n-1].col
	}
	return -1
}

// mappingToken handles a key or value indicator of a block mapping at col:
// it opens the mapping, or, when the mapping is open at col, ends the
// indentless sequence that was its last value.
func (s *yamlScanner) mappingToken(col int) bool {
	if s.roll(col, false) {
		return true
	}
	if n := len(s.blocks); n > 0 {
		if top := &s.blocks[n-1]; top.col == col && !top.seq && top.indentless {
			top.indentless = false
			s.depth--
		}
	}
	return false
}

// saveKey notes that a block mapping key may start here.
func (s *yamlScanner) saveKey() {
	if s.allowKey && len(s.flows) == 0 {
		s.key = simpleKey{possible: true, col: s.col, brk: s.brk, idx: s.idx, max: s.depth}
	}
}

// value handles a `:` indicator (yaml_parser_fetch_value).
func (s *yamlScanner) value() {
	if len(s.flows) > 0 {
		s.pair()
		s.allowKey = false
		return
	}
	k := s.key
	if k.possible && k.brk == s.brk && s.idx <= k.idx+maxKeyChars {
		if s.mappingToken(k.col) {
			s.reached(k.max + 1) // the key is inside the new mapping
		}
		s.key.possible = false
		s.allowKey = false
		return
	}
	s.mappingToken(s.col)
	s.allowKey = true
}

// pair makes the current entry of a flow sequence a single-pair mapping.
func (s *yamlScanner) pair() {
	n := len(s.flows)
	if top := &s.flows[n-1]; top.seq && !top.pair {
		top.pair = true
		s.depth++
		top.max++
		s.reached(max(top.max, s.depth))
	}
}

// flowEntry handles `,`: a new entry of the innermost flow collection.
func (s *yamlScanner) flowEntry() {
	n := len(s.flows)
	if n == 0 {
		s.key.possible = false
		return
	}
	top := &s.flows[n-1]
	s.passUp(n - 1)
	if top.pair {
		top.pair = false
		s.depth--
	}
	top.max = s.depth
}

// passUp gives the current entry of the collection enclosing s.flows[i]
// the deepest level reached in s.flows[i]'s current entry.
func (s *yamlScanner) passUp(i int) {
	if i > 0 {
		s.flows[i-1].max = max(s.flows[i-1].max, s.flows[i].max)
	}
}

// closeFlow handles `]` and `}`.
func (s *yamlScanner) closeFlow() {
	n := len(s.flows)
	if n == 0 {
		s.key.possible = false
		return
	}
	top := s.flows[n-1]
	s.depth--
	if top.pair {
		s.depth--
	}
	s.passUp(n - 1)
	s.flows = s.flows[:n-1]
}

// at returns the byte at i, 0 past the end (libyaml's buffer ends in NUL).
func (s *yamlScanner) at(i int) byte {
	if i < len(s.src) {
		return s.src[i]
	}
	return 0
}

func (s *yamlScanner) isBlank(i int) bool { c := s.at(i); return c == ' ' || c == '\t' }

// isBreak reports a line break: CR, LF, NEL, LS or PS.
func (s *yamlScanner) isBreak(i int) bool {
	switch s.at(i) {
	case '\r', '\n':
		return true
	case 0xC2:
		return s.at(i+1) == 0x85
	case 0xE2:
		return s.at(i+1) == 0x80 && (s.at(i+2) == 0xA8 || s.at(i+2) == 0xA9)
	}
	return false
}

// blankz reports a blank, a line break or the end of the text.
func (s *yamlScanner) blankz(i int) bool {
	return i >= len(s.src) || s.isBlank(i) || s.isBreak(i)
}

func (s *yamlScanner) bomAt(i int) bool {
	return s.at(i) == 0xEF && s.at(i+1) == 0xBB && s.at(i+2) == 0xBF
}

// documentMarker reports `---` or `...` followed by a blank, a break or the
// end, at s.pos.
func (s *yamlScanner) documentMarker() bool {
	c := s.at(s.pos)
	return (c == '-' || c == '.') && s.at(s.pos+1) == c && s.at(s.pos+2) == c && s.blankz(s.pos+3)
}

func isAnchorChar(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' || c == '-'
}

// advance moves past one character.
func (s *yamlScanner) advance() {
	if s.pos >= len(s.src) {
		return
	}
	s.steps++
	s.pos = min(s.pos+charLen(s.src[s.pos]), len(s.src))
	s.col++
	s.idx++
}

func (s *yamlScanner) advanceN(n int) {
	for range n {
		s.advance()
	}
}

// charLen is the length of the UTF-8 sequence that starts with c (1 for a
// byte that starts none: libyaml refuses invalid UTF-8 anyway).
func charLen(c byte) int {
	switch {
	case c >= 0xF0 && c < 0xF8:
		return 4
	case c >= 0xE0:
		return 3
	case c >= 0xC0:
		return 2
	}
	return 1
}

// lineBreak moves past the line break at s.pos (CR LF counts as one).
func (s *yamlScanner) lineBreak() {
	s.steps++
	switch {
	case s.at(s.pos) == '\r' && s.at(s.pos+1) == '\n':
		s.pos += 2
		s.line++
	case s.at(s.pos) == '\n':
		s.pos++
		s.line++
	default:
		s.pos += charLen(s.src[s.pos])
	}
	s.pos = min(s.pos, len(s.src))
	s.col = 0
	s.idx++
	s.brk++
}

// skipToBreak moves to the next line break or the end.
func (s *yamlScanner) skipToBreak() {
	for s.pos < len(s.src) && !s.isBreak(s.pos) {
		s.advance()
	}
}
