package nesting

// plainStart reports whether c (followed by the character at next) starts a
// plain scalar.
func (s *yamlScanner) plainStart(c byte, next int) bool {
	switch c {
	case '-':
		return !s.isBlank(next)
	case '?', ':':
		return len(s.flows) == 0 && !s.blankz(next)
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	return !s.blankz(s.pos)
}

// plain skips a plain scalar, which may go on over more-indented lines
// (yaml_parser_scan_plain_scalar).
func (s *yamlScanner) plain() {
	indent := s.indent() + 1
	leadingBlanks := false
	for s.pos < len(s.src) {
		s.steps++
		if s.col == 0 && s.documentMarker() || s.at(s.pos) == '#' {
			break
		}
		for !s.blankz(s.pos) {
			c := s.at(s.pos)
			if c == ':' && s.blankz(s.pos+1) || len(s.flows) > 0 && isFlowIndicator(c) {
				break
			}
			leadingBlanks = false
			s.advance()
		}
		if !s.isBlank(s.pos) && !s.isBreak(s.pos) {
			break
		}
		for s.isBlank(s.pos) || s.isBreak(s.pos) {
			if s.isBlank(s.pos) {
				if leadingBlanks && s.col < indent && s.at(s.pos) == '\t' {
					return // a tab in the indentation: libyaml fails
				}
				s.advance()
			} else {
				s.lineBreak()
				leadingBlanks = true
			}
		}
		if len(s.flows) == 0 && s.col < indent {
			break
		}
	}
	if leadingBlanks {
		s.allowKey = true
	}
}

func isFlowIndicator(c byte) bool {
	switch c {
	case ',', '?', '[', ']', '{', '}':
		return true
	}
	return false
}

// quoted skips a single- or double-quoted scalar, over any number of lines.
func (s *yamlScanner) quoted(single bool) {
	s.advance()
	for s.pos < len(s.src) {
		s.steps++
		if s.col == 0 && s.documentMarker() {
			return // libyaml fails
		}
		switch c := s.at(s.pos); {
		case single && c == '\'' && s.at(s.pos+1) == '\'':
			s.advanceN(2)
		case single && c == '\'', !single && c == '"':
			s.advance()
			return
		case !single && c == '\\' && s.isBreak(s.pos+1):
			s.advance()
			s.lineBreak()
		case !single && c == '\\':
			s.advanceN(2)
		case s.isBreak(s.pos):
			s.lineBreak()
		default:
			s.advance()
		}
	}
}

// blockScalar skips a literal or folded scalar: its header, then every line
// indented at least as far as its content (yaml_parser_scan_block_scalar).
func (s *yamlScanner) blockScalar() {
	s.advance()
	increment := 0
	for range 2 { // chomping and indentation indicators, in either order
		switch c := s.at(s.pos); {
		case c == '+' || c == '-':
			s.advance()
		case c >= '1' && c <= '9' && increment == 0:
			increment = int(c - '0')
			s.advance()
		}
	}
	for s.isBlank(s.pos) {
		s.advance()
	}
	if s.at(s.pos) == '#' {
		s.skipToBreak()
	}
	if !s.isBreak(s.pos) {
		return // not at the end of the line: libyaml fails (or the stream ends)
	}
	s.lineBreak()
	indent := 0
	if increment > 0 {
		indent = max(s.indent(), 0) + increment
	}
	if !s.blockBreaks(&indent) {
		return
	}
	for s.col == indent && s.pos < len(s.src) {
		s.skipToBreak()
		if s.pos < len(s.src) {
			s.lineBreak()
		}
		if !s.blockBreaks(&indent) {
			return
		}
	}
}

// blockBreaks skips the indentation and empty lines before block scalar
// content and, when indent is 0, sets it from them. It reports false where
// libyaml fails (a tab in the indentation).
func (s *yamlScanner) blockBreaks(indent *int) bool {
	maxIndent := 0
	for {
		s.steps++
		for (*indent == 0 || s.col < *indent) && s.at(s.pos) == ' ' {
			s.advance()
		}
		maxIndent = max(maxIndent, s.col)
		if (*indent == 0 || s.col < *indent) && s.at(s.pos) == '\t' {
			return false
		}
		if !s.isBreak(s.pos) {
			break
		}
		s.lineBreak()
	}
	if *indent == 0 {
		*indent = max(maxIndent, s.indent()+1, 1)
	}
	return true
}
