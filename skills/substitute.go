package skills

import (
	"slices"
	"strconv"
	"strings"
)

// The variables of [Substitute]'s vars map.
const (
	VarSkillDir  = "CLAWSEED_SKILL_DIR"
	VarSessionID = "CLAWSEED_SESSION_ID"
	VarWorkspace = "CLAWSEED_WORKSPACE"
	// VarPluginRoot is the folder of the Claude Code plugin a skill or
	// command came from; plugins write it ${CLAUDE_PLUGIN_ROOT}.
	VarPluginRoot = "CLAWSEED_PLUGIN_ROOT"
)

// varKey maps a `${...}` name to its vars key; the CLAUDE_ spellings are
// Claude Code's.
func varKey(name string) (string, bool) {
	switch name {
	case VarSkillDir, "CLAUDE_SKILL_DIR":
		return VarSkillDir, true
	case VarSessionID, "CLAUDE_SESSION_ID":
		return VarSessionID, true
	case VarWorkspace, "CLAUDE_PROJECT_DIR":
		return VarWorkspace, true
	case VarPluginRoot, "CLAUDE_PLUGIN_ROOT":
		return VarPluginRoot, true
	}
	return "", false
}

// Substitute applies the §4.9 substitutions to a skill body at activation, in
// one left-to-right pass (substituted text is never scanned again):
//
//   - $ARGUMENTS is args as given.
//   - $ARGUMENTS[N] and $N are word N (0-based) of args split like a shell
//     would (quotes group words, backslash escapes); a missing word is ""
//     for $ARGUMENTS[N], while a bare $N without an Nth word is not a
//     placeholder at all: "costs $45" and LaTeX's "\$45" stay as written.
//   - $name, for each entry of named (the skill's `arguments`), is the word at
//     that entry's position; longer names are tried first.
//   - ${CLAWSEED_SKILL_DIR}, ${CLAWSEED_SESSION_ID}, ${CLAWSEED_WORKSPACE}
//     and ${CLAWSEED_PLUGIN_ROOT}, and Claude Code's ${CLAUDE_SKILL_DIR},
//     ${CLAUDE_SESSION_ID}, ${CLAUDE_PROJECT_DIR} and ${CLAUDE_PLUGIN_ROOT},
//     are the value of the CLAWSEED_ key in vars; a key missing from vars
//     leaves the placeholder untouched (a skill outside a plugin has no
//     plugin root).
//   - \ before a placeholder is an escape: \$ARGUMENTS, \$1, \${CLAWSEED_WORKSPACE}
//     give the placeholder as written, without the backslash. A backslash
//     before any other $ (\$$TOTAL in a shell line, \$HOME) is text and
//     stays.
//
// $ARGUMENTS, $N and $name must not be followed by a letter, digit or
// underscore: $ARGUMENTSX, $5x and $names stay as they are, as does anything
// else after a $ ($HOME, ${PATH}).
//
// The spec's "if the body has no $ARGUMENTS" is read as "if the body used no
// argument placeholder" ($ARGUMENTS, $ARGUMENTS[N], $N or a named one): then,
// when args are not blank, the body (its trailing white space trimmed) gets
// "\n\nARGUMENTS: <args>" appended, so arguments are never silently lost and
// never given twice.
func Substitute(body, args string, named []string, vars map[string]string) string {
	s := newSubstituter(args, named, vars)
	return appendNote(s.text(body), s.argsNote())
}

func newSubstituter(args string, named []string, vars map[string]string) *substituter {
	return &substituter{args: args, named: namedOrder(named), vars: vars}
}

// text substitutes the placeholders of one piece of a body. A body may be
// given in pieces (the text between dynamic-context commands, which are not
// substituted): [substituter.argsNote] then covers them all.
func (s *substituter) text(body string) string {
	var b strings.Builder
	b.Grow(len(body) + len(s.args))
	for i := 0; i < len(body); {
		j := strings.IndexAny(body[i:], `\$`)
		if j < 0 {
			b.WriteString(body[i:])
			break
		}
		b.WriteString(body[i : i+j])
		i += j
		if body[i] == '\\' {
			// Only a placeholder needs escaping: elsewhere the backslash is
			// the author's (`echo "\$$TOTAL"`, LaTeX's `\$`).
			if i+1 < len(body) && body[i+1] == '$' {
				if _, n, _, ok := s.placeholder(body[i+2:]); ok {
					b.WriteString(body[i+1 : i+2+n])
					i += 2 + n
					continue
				}
			}
			b.WriteByte('\\')
			i++
			continue
		}
		if val, n, args, ok := s.placeholder(body[i+1:]); ok {
			b.WriteString(val)
			s.usedArgs = s.usedArgs || args
			i += 1 + n
			continue
		}
		b.WriteByte('$')
		i++
	}
	return b.String()
}

// argsNote returns the "ARGUMENTS: <args>" line to append when no piece used
// an argument placeholder and args are not blank, else "".
func (s *substituter) argsNote() string {
	if s.usedArgs || strings.TrimSpace(s.args) == "" {
		return ""
	}
	return "ARGUMENTS: " + s.args
}

// appendNote appends note to out after a blank line (out's trailing white
// space trimmed); an empty note leaves out as it is.
func appendNote(out, note string) string {
	if note == "" {
		return out
	}
	out = strings.TrimRight(out, " \t\r\n")
	if out != "" {
		out += "\n\n"
	}
	return out + note
}

// namedArg is one entry of a skill's `arguments` and its word position.
type namedArg struct {
	name string
	pos  int
}

// namedOrder returns the named arguments longest first (so $file_path wins
// over $file), the first of duplicate names only.
func namedOrder(named []string) []namedArg {
	out := make([]namedArg, 0, len(named))
	for i, n := range named {
		if n != "" && !slices.ContainsFunc(out, func(a namedArg) bool { return a.name == n }) {
			out = append(out, namedArg{n, i})
		}
	}
	slices.SortStableFunc(out, func(a, b namedArg) int { return len(b.name) - len(a.name) })
	return out
}

type substituter struct {
	args     string
	named    []namedArg
	vars     map[string]string
	words    []string
	split    bool
	usedArgs bool
}

// word returns word n of args ("" when there is none).
func (s *substituter) word(n int) string {
	if s.hasWord(n) {
		return s.words[n]
	}
	return ""
}

// hasWord reports whether args has a word n, splitting them on first use.
func (s *substituter) hasWord(n int) bool {
	if !s.split {
		s.words, s.split = SplitWords(s.args), true
	}
	return n >= 0 && n < len(s.words)
}

// placeholder recognises the placeholder that rest (the text after a $)
// starts with, and returns its value, its length and whether it is an
// argument placeholder (which counts as using the arguments).
func (s *substituter) placeholder(rest string) (val string, n int, args, ok bool) {
	if strings.HasPrefix(rest, "{") {
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return "", 0, false, false
		}
		key, known := varKey(rest[1:end])
		if !known {
			return "", 0, false, false
		}
		v, set := s.vars[key]
		return v, end + 1, false, set
	}
	if after, found := strings.CutPrefix(rest, "ARGUMENTS"); found {
		if inner, bracket := strings.CutPrefix(after, "["); bracket {
			if d := leadingDigits(inner); d > 0 && strings.HasPrefix(inner[d:], "]") {
				return s.word(atoiOrMax(inner[:d])), len("ARGUMENTS[") + d + 1, true, true
			}
		}
		if !identAt(after, 0) {
			return s.args, len("ARGUMENTS"), true, true
		}
	}
	if d := leadingDigits(rest); d > 0 {
		// A bare $N names an argument only when there is an Nth word:
		// otherwise it is text — a price ($45), LaTeX (\$45) — and stays as
		// written, backslash included.
		n := atoiOrMax(rest[:d])
		if identAt(rest, d) || !s.hasWord(n) {
			return "", 0, false, false
		}
		return s.word(n), d, true, true
	}
	for _, a := range s.named {
		if strings.HasPrefix(rest, a.name) && !identAt(rest, len(a.name)) {
			return s.word(a.pos), len(a.name), true, true
		}
	}
	return "", 0, false, false
}

// identAt reports whether s[i] exists and is an ASCII letter, digit or underscore.
func identAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func leadingDigits(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}

// atoiOrMax parses a run of digits; a number too large for an int is an index
// past any word.
func atoiOrMax(digits string) int {
	n, err := strconv.Atoi(digits)
	if err != nil {
		return -1
	}
	return n
}

// SplitWords splits args into words as a POSIX shell would, without
// expansions: blanks separate words, single quotes keep everything literally,
// double quotes keep everything but \" \\ \$ \` (backslash escapes), and a
// backslash outside quotes escapes the next character. An unterminated quote
// runs to the end.
func SplitWords(args string) []string {
	var (
		words  []string
		cur    strings.Builder
		inWord bool
	)
	for i := 0; i < len(args); i++ {
		c := args[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			continue
		case '\\':
			if i+1 < len(args) {
				i++
			}
			cur.WriteByte(args[i])
		case '\'':
			end := strings.IndexByte(args[i+1:], '\'')
			if end < 0 {
				end = len(args) - i - 1
			}
			cur.WriteString(args[i+1 : i+1+end])
			i += end + 1
		case '"':
			for i++; i < len(args) && args[i] != '"'; i++ {
				if args[i] == '\\' && i+1 < len(args) && strings.IndexByte("\"\\$`", args[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(args[i])
			}
		default:
			cur.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
