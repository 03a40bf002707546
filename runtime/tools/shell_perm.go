package tools

import (
	"encoding/json"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/tools/shellpolicy"
)

// Permission rules see a shell line as the simple commands it runs, read
// by the walk that checks [autonomy].allowed_commands
// ([shellpolicy.Shell.Line]), so that the two never disagree.

// ShellLine reads a command line as the shell tool's shell will run it,
// for permission rules: a `shell:` skill's command or a cron job's, run
// in dir ("" for the workspace of sb).
func ShellLine(line string, sb *Sandbox, dir string) *permissions.ShellLine {
	return shellpolicy.FindShell().Line(line, shellpolicy.Policy{Files: sb.shellFiles(), Dir: dir})
}

// PermissionSubject implements the agent's permission subject for shell:
// the simple commands of the line.
func (t *shellTool) PermissionSubject(args json.RawMessage) permissions.Subject {
	a, err := t.decode(args)
	if err != nil {
		return permissions.Subject{}
	}
	return permissions.Subject{Shell: t.shell.sh.Line(a.Command, shellpolicy.Policy{Files: t.shell.sb.shellFiles()})}
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
	argv, err := t.commandNow(a)
	if err != nil {
		return permissions.Subject{}
	}
	return permissions.Subject{Shell: &permissions.ShellLine{Commands: [][]permissions.Word{permissions.Words(append([]string{"git"}, argv...)...)}}}
}
