package toolview

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// maxArgCells caps one value in a header's key=value list, so that one
// long argument does not hide the others.
const maxArgCells = 60

// args are a call's arguments: a JSON object's members in the order the
// call gives them. A key given twice has its last value, as the tools
// decode it (encoding/json), at its first place.
type args struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseArgs reads raw as a JSON object; ok is false for anything else.
func parseArgs(raw json.RawMessage) (args, bool) {
	a := args{vals: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(raw)) == 0 {
		return a, true // no arguments: the agent sends {} for them
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return a, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return a, false
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return a, false
		}
		if _, seen := a.vals[key]; !seen {
			a.keys = append(a.keys, key)
		}
		a.vals[key] = v
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return a, false
	}
	if _, err := dec.Token(); err == nil {
		return a, false // more after the object
	}
	return a, true
}

// str returns the first of keys that is given, as the string it holds
// (decoded: \u0026 is &), or as compact JSON when it holds something else;
// "" when none is given or it is null.
func (a args) str(keys ...string) string {
	for _, k := range keys {
		if v, ok := a.vals[k]; ok {
			return valueText(v)
		}
	}
	return ""
}

// text is str for prose (a prompt, a description, a query): its runs of
// white space, newlines included, are one space.
func (a args) text(keys ...string) string {
	return strings.Join(strings.Fields(a.str(keys...)), " ")
}

// strs returns an array of strings (other elements as compact JSON).
func (a args) strs(key string) []string {
	var vs []json.RawMessage
	if json.Unmarshal(a.vals[key], &vs) != nil {
		if s := a.str(key); s != "" {
			return []string{s}
		}
		return nil
	}
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, valueText(v))
	}
	return out
}

// flag reports whether key is true.
func (a args) flag(key string) bool {
	var b bool
	return json.Unmarshal(a.vals[key], &b) == nil && b
}

// valueText is a JSON value as it reads: a string decoded, null as "",
// anything else as compact JSON with Go's HTML escapes undone.
func valueText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	v = bytes.TrimSpace(v)
	if string(v) == "null" {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, v) == nil {
		v = b.Bytes()
	}
	return unescapeHTML(string(v))
}

// keyValues is the compact form of arguments a header has no verb for:
// "key=value" pairs in the call's order, each value cut to maxArgCells,
// a string with spaces (or empty) quoted.
func (a args) keyValues(skip ...string) string {
	var parts []string
	for _, k := range a.keys {
		if contains(skip, k) {
			continue
		}
		v := a.vals[k]
		s := strings.Join(strings.Fields(valueText(v)), " ")
		if isJSONString(v) && (s == "" || strings.ContainsAny(s, " =\"")) {
			s = `"` + s + `"`
		}
		parts = append(parts, k+"="+cut(s, maxArgCells))
	}
	return strings.Join(parts, " ")
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

func isJSONString(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '"'
}

// unescapeHTML undoes the escapes Go's encoding/json puts in JSON text for
// HTML's sake (\u0026 for &, \u003c for <, \u003e for >): valid JSON of the
// same value either way, and what a reader expects to see. An escaped
// backslash before "u0026" is left alone.
func unescapeHTML(s string) string {
	if !strings.Contains(s, `\u00`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		if s[i+1] == 'u' && i+6 <= len(s) {
			if r, err := strconv.ParseUint(s[i+2:i+6], 16, 16); err == nil && (r == '&' || r == '<' || r == '>') {
				b.WriteByte(byte(r))
				i += 5
				continue
			}
		}
		b.WriteString(s[i : i+2]) // an escape pair: \\ must not start another
		i++
	}
	return b.String()
}
