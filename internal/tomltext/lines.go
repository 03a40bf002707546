package tomltext

import (
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// KeyLines maps every key of a TOML document (in toml.Key.String() form) to
// the 1-based line where it is first defined. BurntSushi/toml keeps key
// positions private, so this is a small scanner run after a successful
// parse: it knows table headers, dotted and quoted keys, strings of all four
// kinds, arrays and inline tables, and nothing else. Keys inside inline
// tables get their own line; implicit parent tables get the line of their
// first child. The N-th (from 0) [[name]] header of an array of tables is
// also "name[N]", and its keys "name[N].key": the decoder keeps no
// position per element. On malformed input it stops early without
// panicking. Config files, manifest.toml and trust.toml are read with it.
func KeyLines(src string) map[string]int {
	s := &lineScanner{src: src, line: 1, lines: map[string]int{}, arrays: map[string]int{}}
	s.document()
	return s.lines
}

type lineScanner struct {
	src   string
	pos   int
	line  int
	lines map[string]int
	// arrays counts the [[name]] headers seen; elem is the current
	// element ("name[N]"), "" outside an array of tables.
	arrays map[string]int
	elem   string
}

func (s *lineScanner) eof() bool { return s.pos >= len(s.src) }

func (s *lineScanner) peek(off int) byte {
	if s.pos+off < len(s.src) {
		return s.src[s.pos+off]
	}
	return 0
}

func (s *lineScanner) advance(n int) {
	for ; n > 0 && s.pos < len(s.src); n-- {
		if s.src[s.pos] == '\n' {
			s.line++
		}
		s.pos++
	}
}

func (s *lineScanner) record(k toml.Key, line int) {
	s.recordUnder("", k, line)
}

// recordUnder records k and its parents, each prefixed by prefix+".".
func (s *lineScanner) recordUnder(prefix string, k toml.Key, line int) {
	if prefix != "" {
		prefix += "."
	}
	for i := 1; i <= len(k); i++ {
		ks := prefix + k[:i].String()
		if _, ok := s.lines[ks]; !ok {
			s.lines[ks] = line
		}
	}
}

// skipSpace skips blanks and, when nl is set, newlines and comments too.
func (s *lineScanner) skipSpace(nl bool) {
	for !s.eof() {
		switch c := s.peek(0); {
		case c == ' ' || c == '\t' || c == '\r':
			s.advance(1)
		case nl && c == '\n':
			s.advance(1)
		case nl && c == '#':
			s.skipLine()
		default:
			return
		}
	}
}

func (s *lineScanner) skipLine() {
	for !s.eof() && s.peek(0) != '\n' {
		s.advance(1)
	}
}

func (s *lineScanner) document() {
	var table toml.Key
	for {
		s.skipSpace(true)
		if s.eof() {
			return
		}
		start := s.pos
		if s.peek(0) == '[' {
			line := s.line
			n := 1
			if s.peek(1) == '[' {
				n = 2
			}
			s.advance(n)
			table = s.key()
			s.record(table, line)
			s.elem = ""
			if n == 2 {
				name := table.String()
				s.elem = name + "[" + strconv.Itoa(s.arrays[name]) + "]"
				s.arrays[name]++
				s.lines[s.elem] = line
			}
		} else {
			line := s.line
			k := s.key()
			full := append(append(toml.Key{}, table...), k...)
			s.record(full, line)
			if s.elem != "" {
				s.recordUnder(s.elem, k, line)
			}
			s.skipSpace(false)
			if s.peek(0) == '=' {
				s.advance(1)
				s.value(full)
			}
		}
		s.skipLine() // trailing "]", "]]" or comment
		if s.pos == start {
			s.advance(1)
		}
	}
}

// key reads a dotted key and returns its pieces.
func (s *lineScanner) key() toml.Key {
	var k toml.Key
	for {
		s.skipSpace(false)
		switch s.peek(0) {
		case '"':
			raw := s.basicString()
			if u, err := strconv.Unquote(raw); err == nil {
				k = append(k, u)
			} else {
				k = append(k, strings.Trim(raw, `"`))
			}
		case '\'':
			start := s.pos + 1
			s.advance(1)
			for !s.eof() && s.peek(0) != '\'' && s.peek(0) != '\n' {
				s.advance(1)
			}
			k = append(k, s.src[start:s.pos])
			s.advance(1)
		default:
			start := s.pos
			for !s.eof() && isBareKeyChar(s.peek(0)) {
				s.advance(1)
			}
			if s.pos == start {
				return k
			}
			k = append(k, s.src[start:s.pos])
		}
		s.skipSpace(false)
		if s.peek(0) != '.' {
			return k
		}
		s.advance(1)
	}
}

func isBareKeyChar(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// basicString consumes a "..." string and returns it with its quotes.
func (s *lineScanner) basicString() string {
	start := s.pos
	s.advance(1)
	for !s.eof() && s.peek(0) != '"' && s.peek(0) != '\n' {
		if s.peek(0) == '\\' {
			s.advance(1)
		}
		s.advance(1)
	}
	s.advance(1)
	return s.src[start:min(s.pos, len(s.src))]
}

// value skips one value; keys of inline tables are recorded under ctx.
func (s *lineScanner) value(ctx toml.Key) {
	s.skipSpace(false)
	switch c := s.peek(0); {
	case c == '"' && strings.HasPrefix(s.src[s.pos:], `"""`):
		s.multiline(`"""`, true)
	case c == '\'' && strings.HasPrefix(s.src[s.pos:], `'''`):
		s.multiline(`'''`, false)
	case c == '"':
		s.basicString()
	case c == '\'':
		s.advance(1)
		for !s.eof() && s.peek(0) != '\'' && s.peek(0) != '\n' {
			s.advance(1)
		}
		s.advance(1)
	case c == '[':
		s.advance(1)
		for {
			s.skipSpace(true)
			if s.eof() || s.peek(0) == ']' {
				s.advance(1)
				return
			}
			before := s.pos
			s.value(ctx)
			s.skipSpace(true)
			if s.peek(0) == ',' {
				s.advance(1)
			} else if s.pos == before {
				s.advance(1)
			}
		}
	case c == '{':
		s.advance(1)
		for {
			s.skipSpace(true)
			if s.eof() || s.peek(0) == '}' {
				s.advance(1)
				return
			}
			before, line := s.pos, s.line
			k := append(append(toml.Key{}, ctx...), s.key()...)
			s.record(k, line)
			s.skipSpace(false)
			if s.peek(0) == '=' {
				s.advance(1)
				s.value(k)
			}
			s.skipSpace(true)
			if s.peek(0) == ',' {
				s.advance(1)
			} else if s.pos == before {
				s.advance(1)
			}
		}
	default:
		for !s.eof() && !strings.ContainsRune(",]}#\n", rune(s.peek(0))) {
			s.advance(1)
		}
	}
}

func (s *lineScanner) multiline(delim string, escapes bool) {
	s.advance(3)
	for !s.eof() {
		if escapes && s.peek(0) == '\\' {
			s.advance(2)
			continue
		}
		if strings.HasPrefix(s.src[s.pos:], delim) {
			s.advance(3)
			// Up to two more quotes belong to the content (`""""` ends
			// with a quote inside the string).
			for i := 0; i < 2 && s.peek(0) == delim[0]; i++ {
				s.advance(1)
			}
			return
		}
		s.advance(1)
	}
}
