package skills

import (
	"strconv"
	"strings"
)

// Markdown files that are not skills but are written like them — Claude
// Code's subagent definitions (.claude/agents/*.md) — are read here, with
// SKILL.md's rules: the same fence rules, the same YAML reader with its
// nesting pre-scan, node budget and lenient repairs, the same body
// cleaning. There is one frontmatter parser in the program; the packages
// that read such files only decide what their keys mean.

// A Frontmatter is the parsed frontmatter of a Markdown file read with
// [ParseMarkdown].
type Frontmatter struct{ m kvList }

// A FrontmatterEntry is one key of a [Frontmatter], as written, with its
// value.
type FrontmatterEntry struct {
	Key string
	// Line is the key's line in the file (0 when unknown).
	Line int
	v    any
}

// A MarkdownNote is a problem met while reading a Markdown file: its line
// in the file (0 when unknown) and what it was. The file was read anyway:
// the part concerned was skipped.
type MarkdownNote struct {
	Line    int
	Message string
}

// ParseMarkdown reads a Markdown file's text as SKILL.md is read: the
// frontmatter, if any, and the body with the blank lines after the fence
// and trailing white space removed. Every problem of the frontmatter is a
// note, and frontmatter that cannot be parsed is ignored whole (with a
// note). bad is set, and nothing else, when data is not text (NUL bytes,
// or not UTF-8); name names the file in that message.
func ParseMarkdown(name string, data []byte) (fm Frontmatter, body string, notes []MarkdownNote, bad string) {
	if msg := checkText(name, data); msg != "" {
		return Frontmatter{}, "", nil, msg
	}
	m, body, fmNotes := parseMarkdown(string(data))
	for _, n := range fmNotes {
		notes = append(notes, MarkdownNote{Line: n.line, Message: n.msg})
	}
	return Frontmatter{m: m}, body, notes, ""
}

// Entries returns the keys in document order; a key written twice appears
// twice (the later one wins, as in YAML). Keys without a value (`key:` or
// `key: null`) are left out, as SKILL.md's are.
func (f Frontmatter) Entries() []FrontmatterEntry {
	out := make([]FrontmatterEntry, 0, len(f.m))
	for _, e := range f.m {
		if e.val != nil {
			out = append(out, FrontmatterEntry{Key: e.key, Line: e.line, v: e.val})
		}
	}
	return out
}

// String returns the value as text (any scalar, as written), trimmed.
func (e FrontmatterEntry) String() (string, error) {
	s, ok := asString(e.v)
	if !ok {
		return "", typeError("string", e.Key, e.v)
	}
	return strings.TrimSpace(s), nil
}

// List returns a sequence of scalars, or a single string split on commas
// when it has one, else on white space outside parentheses (`Read, Grep`,
// `Read Bash(git add:*)`), as SKILL.md's allowed-tools. An empty sequence
// (`[]`) is an empty, non-nil list.
func (e FrontmatterEntry) List() ([]string, error) {
	l, ok := asList(e.v, splitCommaOrSpace)
	if !ok {
		return nil, typeError("list of strings", e.Key, e.v)
	}
	if l == nil {
		l = []string{}
	}
	return l, nil
}

// Int returns a whole number written as a number or as a quoted one.
func (e FrontmatterEntry) Int() (int, error) {
	s, ok := asString(e.v)
	if ok {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			return n, nil
		}
	}
	if n, ok := e.v.(int64); ok && int64(int(n)) == n {
		return int(n), nil
	}
	return 0, typeError("whole number", e.Key, e.v)
}

// CleanLine, CleanText and CleanInstructions apply the control-character
// rules of skill text (controls.go) to text read with [ParseMarkdown]: one
// line of metadata (a name: breaks become spaces), multi-line metadata (a
// description: tabs and newlines kept), and instructions that enter the
// system prompt (bidi controls kept too).
func CleanLine(s string) string         { return cleanLine(s) }
func CleanText(s string) string         { return cleanText(s) }
func CleanInstructions(s string) string { return cleanInstructions(s) }
