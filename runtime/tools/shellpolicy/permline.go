package shellpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/clawseed/clawseed/permissions"
)

// Permission rules (`Bash(git status:*)`, `deny: Bash(rm *)`) are matched
// against each simple command a line runs. The line is read by the walk
// that checks [autonomy].allowed_commands (checkLine), in the grammar of
// the shell that runs it, so that the two never disagree about what a
// line runs: the simple commands of pipelines and lists, subshells,
// substitutions, eval and sh -c strings, and what env, xargs, find -exec
// and the wrappers run are all recorded; what the walk would refuse under
// an allowlist (a line that does not parse, PATH=..., eval of a variable)
// is a line that may run commands nobody can see.

// A cmdRecord collects a line's simple commands for permission rules.
type cmdRecord struct {
	commands     [][]permissions.Word
	unapprovable string
}

func (r *cmdRecord) add(words []permissions.Word) { r.commands = append(r.commands, words) }

// record adds one simple command: its name and arguments, literal where
// the shell keeps them as written. A word the shell computes (variables,
// substitutions), expands (unquoted patterns, braces) or that xargs or
// find fill in is unknown, and xargs may append unknown words.
func (c *allowCheck) record(name *syntax.Word, args []*syntax.Word) {
	words := make([]permissions.Word, 0, len(args)+2)
	for _, w := range append([]*syntax.Word{name}, args...) {
		s, ok := literalWord(w)
		if !ok || hasUnquotedPattern(w) || c.subst != "" && strings.Contains(s, c.subst) {
			words = append(words, permissions.Word{Unknown: true})
			continue
		}
		words = append(words, permissions.Word{Text: s})
	}
	if c.appends {
		words = append(words, permissions.Word{Unknown: true})
	}
	c.rec.add(words)
}

// againstRules rewords a refusal of the allowlist walk for permission
// rules.
func againstRules(msg string) string {
	msg = strings.TrimPrefix(msg, "Command refused: ")
	msg = strings.ReplaceAll(msg, "With [autonomy].allowed_commands set, ", "")
	msg = strings.ReplaceAll(msg, "with [autonomy].allowed_commands set, ", "")
	return strings.ReplaceAll(msg, "[autonomy].allowed_commands", "permission rules")
}

// Line reads line for permission rules, in this shell's grammar: its
// simple commands, whether it writes files outside what p.Files allows
// (Unapprovable: it is never pre-approved), and whether it may run
// commands the walk cannot see (Hidden). p.Allowed is not used.
func (s Shell) Line(line string, p Policy) *permissions.ShellLine {
	f, err := parseLine(line, s.posix)
	if err != nil {
		return &permissions.ShellLine{Hidden: unparsable(err, false)}
	}
	rec := &cmdRecord{}
	c := &allowCheck{files: p.Files, dir: p.Dir, posix: s.posix, rec: rec}
	c.scan(f)
	syntax.Walk(f, c.visit)
	out := &permissions.ShellLine{Commands: rec.commands, Unapprovable: rec.unapprovable}
	if c.refusal != "" {
		out.Hidden = againstRules(c.refusal)
	}
	return out
}
