package tools

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// checkAllowed returns "" when allowed is empty or every command that line
// would run has its name (compared by base name) in allowed, else a refusal
// naming the first command that is not. The line is parsed as bash, so every
// simple command of pipelines, &&/||/; lists, subshells, blocks, functions,
// command and process substitutions is checked; declaration builtins
// (export, local, ...) and let count as commands too. A command name that is
// not a literal word ($CMD, $(...)) cannot be checked and is refused, and so
// is a line that does not parse.
//
// Wrappers such as env, xargs, sudo or sh run what their arguments say:
// allowing them allows anything.
func checkAllowed(line string, allowed []string) string {
	if len(allowed) == 0 {
		return ""
	}
	names := allowedNames(allowed)
	list := strings.Join(names, ", ")
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return fmt.Sprintf("Command refused: it cannot be parsed (%v), so it cannot be checked against [autonomy].allowed_commands (allowed: %s).", err, list)
	}
	var refusal string
	check := func(name string) {
		if refusal == "" && !slices.Contains(names, path.Base(name)) {
			refusal = fmt.Sprintf("Command refused: '%s' is not in [autonomy].allowed_commands (allowed: %s).", name, list)
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if refusal != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true // assignments only
			}
			name, ok := literalWord(n.Args[0])
			if !ok {
				refusal = fmt.Sprintf("Command refused: the command name %s is not a literal word, so it cannot be checked against [autonomy].allowed_commands (allowed: %s).", printWord(n.Args[0]), list)
				return false
			}
			check(name)
		case *syntax.DeclClause:
			check(n.Variant.Value)
		case *syntax.LetClause:
			check("let")
		}
		return true
	})
	return refusal
}

// allowedNames returns the base names of the allowed_commands entries,
// sorted, without blanks and duplicates.
func allowedNames(allowed []string) []string {
	var names []string
	for _, a := range allowed {
		if a = strings.TrimSpace(a); a != "" {
			names = append(names, path.Base(a))
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// literalWord returns the value of a word made only of literal text and
// quotes, with quoting removed.
func literalWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, ""))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false // $'...' escapes: not worth interpreting
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(lit.Value, "$`\"\\\n"))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes shell backslash quoting: before any character when
// special is "" (unquoted text), else only before the characters in special
// (inside double quotes). A backslash-newline disappears entirely.
func unescape(s, special string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (special == "" || strings.IndexByte(special, s[i+1]) >= 0) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// printWord renders a word as shell source, for messages.
func printWord(w *syntax.Word) string {
	var buf bytes.Buffer
	if err := syntax.NewPrinter().Print(&buf, w); err != nil {
		return "(unprintable)"
	}
	return buf.String()
}
