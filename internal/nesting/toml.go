package nesting

// CheckTOML returns an *Error when src nests tables, arrays, inline tables
// and dotted keys deeper than Limit. It reads src once, holds no stack, and
// never fails on malformed text (the TOML decoder reports that later).
//
// Depth is counted in containers: a table header `[a.b]` is two, a key
// `c.d = ` inside it two more, each `[` or `{` of a value one more. That
// counts an inline table once for its key and once for its brace, so it
// over-estimates real depth by at most a factor of two, which a limit of 64
// tolerates for any real configuration.
func CheckTOML(src []byte) error {
	s := tomlScanner{src: src, line: 1, expectKey: true}
	return s.run()
}

type tomlScanner struct {
	src  []byte
	i    int
	line int

	// headerDepth is the depth of the table named by the last header.
	headerDepth int
	// frames holds, for each open `[` or `{` of a value, its kind and its
	// depth. Only the depth of the innermost frame is needed, but frames
	// must be popped, so the scanner keeps a small slice; it never grows
	// past Limit because opening a frame deeper than Limit is the error.
	frames []tomlFrame

	expectKey bool // the next token starts a key (or, at top level, a header)
	inKey     bool
	keyParts  int
}

type tomlFrame struct {
	brace bool // an inline table; else an array
	depth int
}

func (s *tomlScanner) run() error {
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\n':
			s.line++
			s.i++
			if len(s.frames) == 0 {
				s.expectKey, s.inKey = true, false
			}
		case c == ' ' || c == '\t' || c == '\r':
			s.i++
		case c == '#':
			s.skipComment()
		case c == '"' || c == '\'':
			if s.expectKey {
				s.startKey()
			}
			s.skipString()
		case s.expectKey && c == '[' && len(s.frames) == 0:
			if err := s.header(); err != nil {
				return err
			}
		case s.expectKey && c == '}':
			// An empty inline table, or a trailing comma (TOML 1.1).
			s.expectKey, s.inKey = false, false
			s.closeFrame()
		case s.expectKey:
			if c == '.' && s.inKey {
				s.keyParts++
				if s.containerDepth()+s.keyParts > Limit {
					return &Error{Line: s.line, Limit: Limit}
				}
			} else if c == '=' {
				if err := s.endKey(); err != nil {
					return err
				}
			} else if !s.inKey {
				s.startKey()
			}
			s.i++
		default:
			if err := s.value(c); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *tomlScanner) startKey() {
	s.inKey, s.keyParts = true, 1
}

// endKey is called at the `=` of a key: the value sits keyParts levels
// below the container the key is in.
func (s *tomlScanner) endKey() error {
	s.expectKey, s.inKey = false, false
	if s.containerDepth()+s.keyParts > Limit {
		return &Error{Line: s.line, Limit: Limit}
	}
	return nil
}

// containerDepth is the depth of the table or array the scanner is in.
func (s *tomlScanner) containerDepth() int {
	if n := len(s.frames); n > 0 {
		return s.frames[n-1].depth
	}
	return s.headerDepth
}

// valueDepth is the depth at which a value starting now sits.
func (s *tomlScanner) valueDepth() int {
	d := s.containerDepth()
	if n := len(s.frames); n == 0 || s.frames[n-1].brace {
		d += s.keyParts
	}
	return d
}

func (s *tomlScanner) value(c byte) error {
	s.i++
	switch c {
	case '[', '{':
		d := s.valueDepth() + 1
		if d > Limit {
			return &Error{Line: s.line, Limit: Limit}
		}
		s.frames = append(s.frames, tomlFrame{brace: c == '{', depth: d})
		if c == '{' {
			s.expectKey, s.keyParts = true, 0
		}
	case ']', '}':
		s.closeFrame()
	case ',':
		if n := len(s.frames); n > 0 && s.frames[n-1].brace {
			s.expectKey, s.keyParts = true, 0
		}
	}
	return nil
}

func (s *tomlScanner) closeFrame() {
	if n := len(s.frames); n > 0 {
		s.frames = s.frames[:n-1]
	}
	if len(s.frames) > 0 && s.frames[len(s.frames)-1].brace {
		// Back in an inline table: the key that held the closed value is
		// finished; the next key comes after a comma.
		s.keyParts = 0
	}
}

// header reads `[a.b]` or `[[a.b]]` up to its closing bracket.
func (s *tomlScanner) header() error {
	s.i++
	depth := 1
	if s.i < len(s.src) && s.src[s.i] == '[' {
		depth++ // an array of tables: the array and its element
		s.i++
	}
	for s.i < len(s.src) {
		switch c := s.src[s.i]; c {
		case '\n':
			s.headerDepth = depth
			s.expectKey = false
			return s.checkHeader(depth)
		case '"', '\'':
			s.skipString()
			continue
		case '.':
			depth++
		case ']':
			s.headerDepth = depth
			s.expectKey = false
			return s.checkHeader(depth)
		}
		s.i++
		if depth > Limit {
			return &Error{Line: s.line, Limit: Limit}
		}
	}
	return s.checkHeader(depth)
}

func (s *tomlScanner) checkHeader(depth int) error {
	if depth > Limit {
		return &Error{Line: s.line, Limit: Limit}
	}
	return nil
}

func (s *tomlScanner) skipComment() {
	for s.i < len(s.src) && s.src[s.i] != '\n' {
		s.i++
	}
}

// skipString skips a basic or literal string, single- or multi-line,
// counting the lines it spans. An unterminated single-line string ends at
// the end of the line, as the decoder would report it there.
func (s *tomlScanner) skipString() {
	q := s.src[s.i]
	if s.i+2 < len(s.src) && s.src[s.i+1] == q && s.src[s.i+2] == q {
		s.i += 3
		for s.i < len(s.src) {
			c := s.src[s.i]
			switch {
			case c == '\n':
				s.line++
			case c == '\\' && q == '"':
				s.i++
				if s.i < len(s.src) && s.src[s.i] == '\n' {
					s.line++
				}
			case c == q && s.i+2 < len(s.src) && s.src[s.i+1] == q && s.src[s.i+2] == q:
				s.i += 3
				// Up to two more quotes belong to the string's content.
				for k := 0; k < 2 && s.i < len(s.src) && s.src[s.i] == q; k++ {
					s.i++
				}
				return
			}
			s.i++
		}
		return
	}
	s.i++
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\n':
			return
		case c == '\\' && q == '"':
			s.i++
			if s.i < len(s.src) && s.src[s.i] == '\n' {
				return
			}
		case c == q:
			s.i++
			return
		}
		s.i++
	}
}
