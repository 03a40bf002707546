package skills

import (
	"fmt"
	"strings"
)

// ParseRule reads a Claude Code rule file (.claude/rules/*.md): Markdown
// with an optional YAML frontmatter whose `paths` globs (a list, or one
// string split on commas or else whitespace, as a skill's `paths`) say when
// the rule applies; no globs, it always does. The frontmatter is parsed as
// a SKILL.md's is (bounded nesting and aliases, unquoted-colon repair), so
// a rule and a skill with the same `paths` gate alike ([WorkspaceFiles]).
//
// body is the text after the frontmatter, BOM and CRLF normalised. err is
// set when the frontmatter had to be ignored (invalid YAML, `paths` not a
// list of strings): body is still the text after it, and paths is nil.
func ParseRule(text string) (paths []string, body string, err error) {
	fm, body, ok := splitFrontmatter(normaliseText(text))
	body = cleanBody(body)
	if !ok {
		if notes := unclosedFrontmatter(text); len(notes) > 0 {
			return nil, body, fmt.Errorf("line %d: %s", notes[0].line, notes[0].msg)
		}
		return nil, body, nil
	}
	m, _, err := parseFrontmatterYAML(fm)
	if err != nil {
		if fe, ok := err.(*fmError); ok && fe.line > 0 {
			return nil, body, fmt.Errorf("line %d: invalid YAML frontmatter ignored: %s", fe.line, fe.msg)
		}
		return nil, body, fmt.Errorf("invalid YAML frontmatter ignored: %w", err)
	}
	v, ok := m.get("paths")
	if !ok || v == nil {
		return nil, body, nil
	}
	l, ok := asList(v, splitCommaOrSpace)
	if !ok {
		return nil, body, fmt.Errorf("paths must be a list of strings; the rule applies everywhere")
	}
	for _, g := range l {
		if g = strings.TrimSpace(g); g != "" {
			paths = append(paths, g)
		}
	}
	return paths, body, nil
}

// MatchingGlob returns the first of globs, in their order, that some file
// matches ([WorkspaceFiles.Match] for one glob): what `config show` names
// as the reason a rule was loaded.
func (w *WorkspaceFiles) MatchingGlob(globs []string) (string, bool) {
	for _, g := range globs {
		if w.matchOne(g) {
			return g, true
		}
	}
	return "", false
}
