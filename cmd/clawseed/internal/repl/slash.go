package repl

import (
	"strings"
	"unicode"

	"github.com/clawseed/clawseed/skills"
)

// ParseSlash decides whether a line of chat input, or the prompt of
// `clawseed run`, is a slash command, for both. The rule:
//
//   - The line's first word (up to the first space, tab or newline) is
//     "/NAME", where NAME could name a command: empty, or a skill name
//     ([skills.ValidName]: a letter or digit, then letters, digits, '.',
//     '_', ':' or '-'; built-in commands and MCP prompts
//     mcp__SERVER__PROMPT have such names too). Then the line is a command:
//     ok is true, name is NAME and args the rest of the line, trimmed.
//   - Any other line is text for the model, sent as typed: it does not
//     start with "/", or its first word holds a character no command name
//     has, such as a second "/" (a path: "/etc/hosts: what is this?",
//     "/usr/bin/env is weird") or "?" ("/?").
//
// Whether NAME exists is the caller's question. A known command runs; an
// unknown one is refused with a suggestion and nothing is sent: a mistyped
// skill name must not become a prompt the model acts on.
func ParseSlash(line string) (name, args string, ok bool) {
	rest, ok := strings.CutPrefix(line, "/")
	if !ok {
		return "", "", false
	}
	name, args = rest, ""
	if i := strings.IndexFunc(rest, unicode.IsSpace); i >= 0 {
		name, args = rest[:i], strings.TrimSpace(rest[i:])
	}
	if name != "" && !skills.ValidName(name) {
		return "", "", false
	}
	return name, args, true
}

// didYouMean is " Did you mean /X?" for the known command closest to name,
// or "".
func didYouMean(name string, known []string) string {
	if m := skills.Suggest(name, known); m != "" {
		return " Did you mean /" + m + "?"
	}
	return ""
}
