package skills

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// An ignoreRule is one pattern line of a .gitignore file.
type ignoreRule struct {
	negate   bool // `!pattern`: re-include
	dirOnly  bool // `pattern/`: directories only
	basename bool // no `/` inside: matched against the last path element
	kind     ruleKind
	// pattern is a doublestar pattern (gitignore's literal braces escaped);
	// for kindLiteral it is the plain name and for kindSuffix the suffix.
	pattern string
}

// ruleKind selects a fast path: most .gitignore lines are plain names
// (`node_modules`) or extensions (`*.log`), and the workspace walk checks
// every file against every rule.
type ruleKind uint8

const (
	kindGlob    ruleKind = iota
	kindLiteral          // no glob characters at all
	kindSuffix           // `*` followed by a literal without `/`
)

// An ignoreFile holds the rules of one .gitignore; base is its directory
// relative to the workspace, with `/` separators ("" for the root).
type ignoreFile struct {
	base  string
	rules []ignoreRule
}

// parseGitignore parses the text of a .gitignore file (gitignore(5)):
// blank lines and `#` comments are skipped, unescaped trailing spaces are
// trimmed, `!` negates, a trailing `/` matches directories only, a `/` at the
// start or in the middle anchors the pattern to the file's directory (a
// pattern without one matches a name at any depth), and `*`, `?`, `[...]` and
// `**` are globs. Lines that are not valid patterns are ignored, as git does.
func parseGitignore(text string) []ignoreRule {
	var rules []ignoreRule
	for line := range strings.SplitSeq(text, "\n") {
		if r, ok := parseIgnoreLine(line); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

func parseIgnoreLine(line string) (ignoreRule, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	var r ignoreRule
	if line[0] == '!' {
		r.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return ignoreRule{}, false
	}
	if strings.HasPrefix(line, "/") {
		line = strings.TrimLeft(line, "/")
		if line == "" {
			return ignoreRule{}, false
		}
	} else if !strings.Contains(line, "/") {
		r.basename = true
	}
	// `dir/**` matches everything inside dir but not dir itself (so that
	// `!dir/keep` can re-include); doublestar's `dir/**` would match dir.
	if strings.HasSuffix(line, "/**") {
		line += "/*"
	}
	line = escapeBraces(line)
	if !doublestar.ValidatePattern(line) {
		return ignoreRule{}, false
	}
	r.pattern, r.kind = line, classify(line)
	if r.kind == kindSuffix {
		r.pattern = line[1:]
	}
	return r, true
}

// trimTrailingSpaces removes trailing spaces unless escaped with `\`.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") {
		t := strings.TrimSuffix(s, " ")
		if strings.HasSuffix(t, `\`) && !strings.HasSuffix(t, `\\`) {
			return s
		}
		s = t
	}
	return s
}

// escapeBraces escapes `{` and `}`, which gitignore matches literally and
// doublestar reads as alternatives.
func escapeBraces(s string) string {
	if !strings.ContainsAny(s, "{}") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			b.WriteByte(c)
			i++
			b.WriteByte(s[i])
			continue
		}
		if c == '{' || c == '}' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

func classify(p string) ruleKind {
	const meta = `*?[\`
	if !strings.ContainsAny(p, meta) {
		return kindLiteral
	}
	if p[0] == '*' && len(p) > 1 && !strings.ContainsAny(p[1:], meta+"/") {
		return kindSuffix
	}
	return kindGlob
}

// match reports whether the rule matches rel, a path relative to the
// rule's .gitignore directory.
func (r *ignoreRule) match(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	name := rel
	if r.basename {
		name = path.Base(rel)
	}
	switch r.kind {
	case kindLiteral:
		return name == r.pattern
	case kindSuffix:
		return strings.HasSuffix(name, r.pattern) && !strings.Contains(name[:len(name)-len(r.pattern)], "/")
	}
	return doublestar.MatchUnvalidated(r.pattern, name)
}

// ignored reports whether rel (relative to the workspace) is ignored by the
// stack of .gitignore files, outermost first: the last matching rule of the
// deepest file wins, and a `!` rule re-includes.
func ignored(stack []*ignoreFile, rel string, isDir bool) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		f := stack[i]
		sub := rel
		if f.base != "" {
			sub = rel[len(f.base)+1:]
		}
		for j := len(f.rules) - 1; j >= 0; j-- {
			if f.rules[j].match(sub, isDir) {
				return !f.rules[j].negate
			}
		}
	}
	return false
}
