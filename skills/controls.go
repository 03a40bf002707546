package skills

import (
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// Skill text reaches two readers that control characters fool: a terminal,
// where an ESC starts a sequence that can retitle the window, clear the
// screen or hide what follows, and the model, whose index must stay
// well-formed XML (a NUL is not allowed in XML at all). So:
//
//   - metadata (every string a skill's frontmatter or manifest.toml sets) is
//     cleaned once, when the Skill is built ([cleanSkill]): C0 and C1 controls,
//     DEL and whole escape sequences are dropped, and so are the bidi
//     overrides and isolates that make a terminal show text in another order
//     than the model reads it;
//   - the body is instructions and is kept as written in Skill.Body (so that
//     `skills show` can show it, escaped), but its controls except tab and
//     newline are dropped where it enters the system prompt ([renderBlock]).
//
// Printing for a terminal escapes whatever is left (internal/termtext).

// A cleanMode says what [stripControls] keeps besides ordinary text.
type cleanMode uint8

const (
	// keepBreaks keeps tabs and newlines (multi-line text) and drops the
	// other white-space controls (CR, VT, FF); without it all of them become
	// spaces, so that a one-line field stays on one line.
	keepBreaks cleanMode = 1 << iota
	// keepFormat keeps bidi controls and the noncharacters U+FFFE and U+FFFF
	// (the body, which is instructions in any script and is not XML).
	keepFormat
)

// The three uses of stripControls.
const (
	lineMode         cleanMode = 0                       // one-line metadata: names, triggers, ...
	textMode                   = keepBreaks              // multi-line metadata: description, ...
	instructionsMode           = keepBreaks | keepFormat // the body in the system prompt
)

// cleanLine cleans one-line metadata; cleanText multi-line metadata;
// cleanInstructions a body.
func cleanLine(s string) string         { return stripControls(s, lineMode) }
func cleanText(s string) string         { return stripControls(s, textMode) }
func cleanInstructions(s string) string { return stripControls(s, instructionsMode) }

// stripControls drops from s the control characters mode does not keep, and
// every escape sequence (ESC or a C1 introducer with its parameters) as a
// whole, so that `\e[31m` leaves nothing behind rather than `[31m`. Bytes that
// are not UTF-8 become U+FFFD. It returns s itself when there is nothing to
// drop, which is the common case.
func stripControls(s string, mode cleanMode) string {
	i := firstUnclean(s, mode)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case '\t' <= r && r <= '\r': // white space: tab, LF, VT, FF, CR
			switch {
			case mode&keepBreaks == 0:
				b.WriteByte(' ')
			case r == '\t' || r == '\n':
				b.WriteByte(byte(r))
			}
		case isIntroducer(r):
			size = sequenceLen(s[i:], size)
		case unclean(r, mode):
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnclean returns the index of the first byte stripControls would
// change, or -1.
func firstUnclean(s string, mode cleanMode) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && (mode&keepBreaks == 0 || (c != '\t' && c != '\n')) || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unclean(r, mode) {
			return i
		}
		i += size
	}
	return -1
}

// unclean reports whether r is dropped in mode (tab and newline aside).
func unclean(r rune, mode cleanMode) bool {
	switch {
	case r < 0x20, 0x7f <= r && r <= 0x9f:
		return true
	case mode&keepFormat != 0:
		return false
	}
	return isBidiControl(r) || r == 0xfffe || r == 0xffff
}

// isBidiControl reports whether r is a bidi embedding, override or isolate
// (U+202A–U+202E, U+2066–U+2069): the characters of "Trojan Source" text.
func isBidiControl(r rune) bool {
	return 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069
}

// isIntroducer reports whether r starts an escape sequence: ESC, or one of
// the C1 controls that open a control sequence (CSI) or a control string
// (DCS, SOS, OSC, PM, APC).
func isIntroducer(r rune) bool {
	switch r {
	case 0x1b, 0x9b, 0x90, 0x98, 0x9d, 0x9e, 0x9f:
		return true
	}
	return false
}

// sequenceLen returns the length in bytes of the escape sequence at the start
// of s, whose introducer is n bytes long. A sequence that is not complete
// counts as its introducer alone, so that no text is lost to a stray ESC.
func sequenceLen(s string, n int) int {
	csi, from := s[0] != 0x1b && strings.HasPrefix(s, "\u009b"), n
	if s[0] == 0x1b {
		if len(s) < 2 {
			return n
		}
		switch c := s[1]; {
		case c == '[':
			csi, from = true, 2
		case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
			from = 2
		case 0x20 <= c && c <= 0x2f: // intermediates, then a final byte
			j := 2
			for j < len(s) && 0x20 <= s[j] && s[j] <= 0x2f {
				j++
			}
			if j < len(s) && 0x30 <= s[j] && s[j] <= 0x7e {
				return j + 1
			}
			return n
		case 0x30 <= c && c <= 0x7e: // a two-byte escape such as ESC 7
			return 2
		default:
			return n
		}
	}
	if csi { // parameters, intermediates, a final byte
		j := from
		for j < len(s) && 0x30 <= s[j] && s[j] <= 0x3f {
			j++
		}
		for j < len(s) && 0x20 <= s[j] && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && 0x40 <= s[j] && s[j] <= 0x7e {
			return j + 1
		}
		return n
	}
	// A control string (OSC, DCS, ...) runs to BEL, ESC \ or ST. Any other
	// control ends it unfinished, which also keeps the scan linear: no byte
	// is scanned for two introducers.
	for j := from; j < len(s); j++ {
		switch c := s[j]; {
		case c == 0x07:
			return j + 1
		case c == 0x1b && j+1 < len(s) && s[j+1] == '\\':
			return j + 2
		case strings.HasPrefix(s[j:], "\u009c"):
			return j + len("\u009c")
		case c < 0x20 || c == 0x7f || c == 0xc2 && j+1 < len(s) && 0x80 <= s[j+1] && s[j+1] <= 0x9f:
			return n
		}
	}
	return n
}

// rawSkillFields are the Skill fields cleanSkill leaves alone: file paths,
// which must name the files as they are (terminal output escapes them), the
// body (see above), and what discovery decides rather than reads.
var rawSkillFields = map[string]bool{
	"Dir": true, "RealDir": true, "Root": true, "Bound": true, "ManifestPath": true, "SkillPath": true,
	"Body": true, "Source": true, "Status": true, "Reason": true,
}

// textSkillFields are the fields that may hold several lines.
var textSkillFields = map[string]bool{
	"Description": true, "WhenToUse": true, "Compatibility": true, "Metadata": true,
}

// cleanSkill cleans every string s holds, at any depth (lists, the shell
// spec, requires, metadata), except those of rawSkillFields. It walks the
// struct generically so that a field added later is cleaned too. Values are
// replaced, never changed in place, as they may be shared with the parsed
// files' field sets. A string that changes is trimmed again, and a list that
// changes loses its empty and repeated items.
func cleanSkill(s *Skill) {
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if rawSkillFields[f.Name] || !f.IsExported() {
			continue
		}
		mode := lineMode
		if textSkillFields[f.Name] {
			mode = textMode
		}
		if nv, ok := cleanReflect(v.Field(i), mode); ok {
			v.Field(i).Set(nv)
		}
	}
}

// cleanReflect returns the cleaned copy of v and true, or false when v is
// already clean.
func cleanReflect(v reflect.Value, mode cleanMode) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.String:
		c := stripControls(v.String(), mode)
		if c == v.String() {
			return v, false
		}
		nv := reflect.New(v.Type()).Elem()
		nv.SetString(strings.TrimSpace(c))
		return nv, true
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.String {
			return cleanInterface(v, mode)
		}
		return cleanStrings(v, mode)
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		elem, ok := cleanReflect(v.Elem(), mode)
		if !ok {
			return v, false
		}
		nv := reflect.New(elem.Type())
		nv.Elem().Set(elem)
		return nv, true
	case reflect.Struct:
		var nv reflect.Value
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			c, ok := cleanReflect(v.Field(i), lineMode)
			if !ok {
				continue
			}
			if !nv.IsValid() {
				nv = reflect.New(v.Type()).Elem()
				nv.Set(v)
			}
			nv.Field(i).Set(c)
		}
		return nv, nv.IsValid()
	case reflect.Map, reflect.Interface:
		return cleanInterface(v, mode)
	}
	return v, false
}

// cleanStrings cleans a slice of strings that needs it, dropping the items
// left empty and the duplicates cleaning may have made (lists such as os are
// unions, made before).
func cleanStrings(v reflect.Value, mode cleanMode) (reflect.Value, bool) {
	for i := range v.Len() {
		if firstUnclean(v.Index(i).String(), mode) < 0 {
			continue
		}
		out := make([]string, 0, v.Len())
		for j := range v.Len() {
			item := v.Index(j).String()
			if c := stripControls(item, mode); c != item {
				item = strings.TrimSpace(c)
			}
			if item == "" || slices.Contains(out, item) {
				continue
			}
			out = append(out, item)
		}
		return reflect.ValueOf(out).Convert(v.Type()), true
	}
	return v, false
}

// cleanInterface cleans a value of a generic type (Metadata) with cleanAny.
func cleanInterface(v reflect.Value, mode cleanMode) (reflect.Value, bool) {
	if !v.CanInterface() || (v.Kind() == reflect.Interface || v.Kind() == reflect.Map) && v.IsNil() {
		return v, false
	}
	c, ok := cleanAny(v.Interface(), mode)
	if !ok {
		return v, false
	}
	nv := reflect.New(v.Type()).Elem()
	nv.Set(reflect.ValueOf(c))
	return nv, true
}

// cleanAny cleans the generic values of Skill.Metadata: strings, lists and
// maps (whose keys are one-line), at any depth. Strings are not trimmed: they
// are values as written.
func cleanAny(x any, mode cleanMode) (any, bool) {
	switch x := x.(type) {
	case string:
		c := stripControls(x, mode)
		return c, c != x
	case []any:
		var out []any
		for i, e := range x {
			c, ok := cleanAny(e, mode)
			if ok && out == nil {
				out = slices.Clone(x)
			}
			if out != nil {
				out[i] = c
			}
		}
		return out, out != nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		changed := false
		for k, e := range x {
			keys = append(keys, k)
			if _, ok := cleanAny(e, mode); ok || firstUnclean(k, lineMode) >= 0 {
				changed = true
			}
		}
		if !changed {
			return x, false
		}
		// In key order, so that two keys cleaned to the same one always
		// resolve the same way.
		slices.Sort(keys)
		out := make(map[string]any, len(x))
		for _, k := range keys {
			c, _ := cleanAny(x[k], mode)
			out[cleanLine(k)] = c
		}
		return out, true
	}
	return x, false
}
