package trust

import "strings"

// positions says on which line things are in a trust file, for error
// messages: each top-level key or table header, and each [[workspace]]
// header with the keys under it. The TOML decoder keeps no position per
// array element, hence this line-oriented scan; it is exact for the files
// clawseed writes and their hand edits, and where it cannot place a key
// (an inline array of tables) the error falls back to a nearby line.
type positions struct {
	top   map[string]int
	elems []map[string]int // "" is the [[workspace]] header's line
}

// line is the line of key in the i-th entry, else of its header, else of
// the workspace key; 0 when unknown.
func (p positions) line(i int, key string) int {
	if i < len(p.elems) {
		if l, ok := p.elems[i][key]; ok {
			return l
		}
		return p.elems[i][""]
	}
	return p.top["workspace"]
}

func locate(src string) positions {
	p := positions{top: map[string]int{}}
	cur := p.top
	closing := "" // the delimiter of a multi-line string still open
	for i, line := range strings.Split(src, "\n") {
		n := i + 1
		if closing != "" {
			j := strings.Index(line, closing)
			if j < 0 {
				continue
			}
			closing = openString(line[j+len(closing):])
			continue
		}
		t := strings.TrimLeft(line, " \t")
		switch {
		case strings.HasPrefix(t, "[["):
			name := headerName(t[2:])
			if name == "workspace" {
				cur = map[string]int{"": n}
				p.elems = append(p.elems, cur)
				continue
			}
			setOnce(p.top, name, n)
			cur = map[string]int{}
		case strings.HasPrefix(t, "["):
			setOnce(p.top, headerName(t[1:]), n)
			cur = map[string]int{}
		default:
			k, rest, ok := keyOf(t)
			if ok {
				setOnce(cur, k, n)
				t = rest
			}
			closing = openString(t)
		}
	}
	return p
}

func setOnce(m map[string]int, k string, line int) {
	if _, ok := m[k]; !ok {
		m[k] = line
	}
}

// headerName is the first part of a table header's name.
func headerName(s string) string {
	if end := strings.IndexByte(s, ']'); end >= 0 {
		s = s[:end]
	}
	name, _ := firstKey(strings.TrimSpace(s))
	return name
}

// keyOf splits a key/value line into its first key part and the value.
func keyOf(t string) (key, value string, ok bool) {
	key, rest := firstKey(t)
	if key == "" {
		return "", "", false
	}
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, ".") {
		return "", "", false
	}
	_, value, ok = strings.Cut(rest, "=")
	return key, value, ok
}

// firstKey reads a bare or quoted key part at the start of s.
func firstKey(s string) (key, rest string) {
	if s != "" && (s[0] == '"' || s[0] == '\'') {
		if end := strings.IndexByte(s[1:], s[0]); end >= 0 {
			return s[1 : end+1], s[end+2:]
		}
		return "", s
	}
	end := 0
	for end < len(s) && isBare(s[end]) {
		end++
	}
	return s[:end], s[end:]
}

func isBare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// openString scans the rest of a line and returns the delimiter of a
// multi-line string it leaves open ("" when none).
func openString(s string) string {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '#':
			return ""
		case strings.HasPrefix(s[i:], `"""`), strings.HasPrefix(s[i:], `'''`):
			delim := s[i : i+3]
			end := strings.Index(s[i+3:], delim)
			if end < 0 {
				return delim
			}
			i += 3 + end + 2
		case s[i] == '"':
			i++
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case s[i] == '\'':
			if end := strings.IndexByte(s[i+1:], '\''); end >= 0 {
				i += end + 1
			} else {
				i = len(s)
			}
		}
	}
	return ""
}
