package skills

import (
	"strings"
)

// fastFrontmatter parses the simple frontmatter almost every skill has
// (top-level `key: value` lines whose values are plain or quoted strings and
// one-line flow or block lists of them) without the YAML library, which is
// about ten times slower and dominated discovery time. ok is false as soon as
// anything falls outside that subset; the caller then uses the YAML parser.
// On the subset both give the same result, which FuzzFrontmatter checks.
func fastFrontmatter(fm string) (m kvList, ok bool) {
	if !fastSafeText(fm) {
		return nil, false
	}
	lines := strings.Split(strings.TrimSuffix(fm, "\n"), "\n")
	for i := 0; i < len(lines); {
		line := lines[i]
		if isBlankOrComment(line) {
			i++
			continue
		}
		key, rest, ok := fastKey(line)
		if !ok {
			return nil, false
		}
		e := kv{key: key, line: i + 1 + fmLineOffset}
		i++
		switch {
		case rest == "" || rest[0] == '#':
			items, next, ok := fastBlockSeq(lines, i)
			if !ok {
				return nil, false
			}
			if items != nil {
				e.val = items
			}
			i = next
		case rest[0] == '[':
			items, ok := fastFlowSeq(rest)
			if !ok {
				return nil, false
			}
			e.val = items
		default:
			s, ok := fastBlockScalar(rest)
			if !ok {
				return nil, false
			}
			e.val = s
		}
		m = append(m, e)
	}
	return m, true
}

// fastSafeText rejects characters with special YAML meaning or that YAML
// refuses: tabs, CR, control characters, and the Unicode line breaks and BOM.
func fastSafeText(s string) bool {
	for _, r := range s {
		switch {
		case r == '\n':
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
			return false
		case r == 0x2028, r == 0x2029, r == 0xfeff, r == 0xfffe, r == 0xffff, r == '\\':
			return false
		}
	}
	return true
}

func isBlankOrComment(line string) bool {
	t := strings.TrimLeft(line, " ")
	return t == "" || t[0] == '#'
}

// fastKey splits `key: rest` at column 0; rest has its leading spaces removed.
func fastKey(line string) (key, rest string, ok bool) {
	i := strings.IndexByte(line, ':')
	if i <= 0 || line[0] == '-' {
		return "", "", false
	}
	for _, c := range []byte(line[:i]) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return "", "", false
		}
	}
	rest = line[i+1:]
	if rest != "" && rest[0] != ' ' {
		return "", "", false
	}
	return line[:i], strings.TrimLeft(rest, " "), true
}

// fastBlockSeq reads `- item` lines starting at lines[i]. It returns nil
// items (and i) when there is no sequence, which makes the key null.
func fastBlockSeq(lines []string, i int) (items []any, next int, ok bool) {
	indent := -1
	next = i
	for j := i; j < len(lines); j++ {
		line := lines[j]
		if isBlankOrComment(line) {
			continue
		}
		t := strings.TrimLeft(line, " ")
		n := len(line) - len(t)
		if indent < 0 {
			if !strings.HasPrefix(t, "- ") {
				break // no sequence: the next key (or bad indentation, seen by the caller)
			}
			indent = n
		}
		if n != indent || !strings.HasPrefix(t, "- ") {
			if n < indent || (n == 0 && indent == 0) {
				break
			}
			return nil, 0, false
		}
		v, ok := fastBlockScalar(strings.TrimLeft(t[2:], " "))
		if !ok {
			return nil, 0, false
		}
		items = append(items, v)
		next = j + 1
	}
	if indent < 0 {
		return nil, i, true
	}
	return items, next, true
}

// fastBlockScalar reads a quoted or plain scalar that is the rest of a line.
func fastBlockScalar(s string) (any, bool) {
	if s == "" {
		return nil, false
	}
	if s[0] == '"' || s[0] == '\'' {
		text, rest, ok := fastQuoted(s)
		if !ok || !onlyComment(rest) {
			return nil, false
		}
		return yamlScalar{text: text, tag: "!!str"}, true
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, " ")
	if !plainString(s, false) {
		return nil, false
	}
	return yamlScalar{text: s, tag: "!!str"}, true
}

// fastFlowSeq reads a one-line `[a, "b", 'c']`.
func fastFlowSeq(s string) ([]any, bool) {
	items := []any{}
	i := 1
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			return nil, false
		}
		if s[i] == ']' {
			return items, onlyComment(s[i+1:])
		}
		var text string
		if s[i] == '"' || s[i] == '\'' {
			t, rest, ok := fastQuoted(s[i:])
			if !ok {
				return nil, false
			}
			text, i = t, len(s)-len(rest)
		} else {
			j := i
			for j < len(s) && s[j] != ',' && s[j] != ']' {
				j++
			}
			text = strings.TrimRight(s[i:j], " ")
			if !plainString(text, true) {
				return nil, false
			}
			i = j
		}
		items = append(items, yamlScalar{text: text, tag: "!!str"})
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i < len(s) && s[i] == ',' {
			i++
			for i < len(s) && s[i] == ' ' {
				i++
			}
			if i < len(s) && s[i] == ',' {
				return nil, false // an empty item
			}
			continue
		}
		if i >= len(s) || s[i] != ']' {
			return nil, false
		}
	}
}

// fastQuoted reads a single- or double-quoted scalar closed on this line.
// Double-quoted scalars with escapes are left to the YAML parser
// (fastSafeText already refused backslashes).
func fastQuoted(s string) (text, rest string, ok bool) {
	q := s[0]
	if q == '"' {
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return "", "", false
		}
		return s[1 : 1+end], s[2+end:], true
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), s[i+1:], true
	}
	return "", "", false
}

// onlyComment reports whether rest (after a value) is blank or a comment.
func onlyComment(rest string) bool {
	t := strings.TrimLeft(rest, " ")
	return t == "" || (t[0] == '#' && len(t) < len(rest))
}

// plainString reports whether s is a plain scalar that YAML reads as exactly
// this string: not empty, no indicator at the start, no ": " or " #" inside,
// and nothing that could resolve to a number, boolean, null or timestamp.
func plainString(s string, flow bool) bool {
	if s == "" {
		return false
	}
	if s[0] >= '0' && s[0] <= '9' {
		return isDottedVersion(s)
	}
	if strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@`+.~<=") {
		return false
	}
	if strings.Contains(s, ": ") || strings.HasSuffix(s, ":") || strings.Contains(s, " #") {
		return false
	}
	if flow && strings.ContainsAny(s, "[]{}#:") {
		return false
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return false
	}
	return true
}

// isDottedVersion matches versions like 1.2.0 or 2.0.1rc1: with two dots and
// no '-', they are neither numbers nor timestamps, so YAML reads a string.
func isDottedVersion(s string) bool {
	if strings.Count(s, ".") < 2 || strings.HasSuffix(s, ".") {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.') {
			return false
		}
	}
	return true
}
