package tools

import (
	"encoding/json"
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

// shellLine reads line (run in dir, "" for the workspace) for permission
// rules, in this shell's grammar.
func (s lineShell) shellLine(line string, sb *Sandbox, dir string) *permissions.ShellLine {
	f, err := parseLine(line, s.posix)
	if err != nil {
		return &permissions.ShellLine{Hidden: unparsable(err, false)}
	}
	rec := &cmdRecord{}
	c := &allowCheck{sb: sb, dir: dir, posix: s.posix, rec: rec}
	c.scan(f)
	syntax.Walk(f, c.visit)
	out := &permissions.ShellLine{Commands: rec.commands, Unapprovable: rec.unapprovable}
	if c.refusal != "" {
		out.Hidden = againstRules(c.refusal)
	}
	return out
}

// ShellLine reads a command line as the shell tool's shell will run it,
// for permission rules: a `shell:` skill's command or a cron job's, run
// in dir ("" for the workspace of sb).
func ShellLine(line string, sb *Sandbox, dir string) *permissions.ShellLine {
	return findLineShell().shellLine(line, sb, dir)
}

// PermissionSubject implements the agent's permission subject for shell:
// the simple commands of the line.
func (t *shellTool) PermissionSubject(args json.RawMessage) permissions.Subject {
	a, err := t.decode(args)
	if err != nil {
		return permissions.Subject{}
	}
	return permissions.Subject{Shell: t.shell.sh.shellLine(a.Command, t.shell.sb, "")}
}

// PathForms returns the absolute forms of a path a tool names, for
// permission rules: as named (~ expanded, relative to the workspace), and
// with the symbolic links of its existing part resolved when that differs
// (a deny rule matches either; an allow rule must match both).
func (sb *Sandbox) PathForms(p string) []string {
	abs := sb.absolute(p)
	if real := realOrSelf(abs); real != abs {
		return []string{abs, real}
	}
	return []string{abs}
}

// PermissionSubject implements the agent's permission subject for git:
// the command it runs, as one simple command, so that `Bash(git commit:*)`
// covers the git tool's commit as it covers the shell's.
func (t *gitTool) PermissionSubject(args json.RawMessage) permissions.Subject {
	a, err := t.decode(args)
	if err != nil {
		return permissions.Subject{}
	}
	argv, err := t.command(a)
	if err != nil {
		return permissions.Subject{}
	}
	return permissions.Subject{Shell: &permissions.ShellLine{Commands: [][]permissions.Word{permissions.Words(append([]string{"git"}, argv...)...)}}}
}
