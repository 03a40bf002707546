package tools

import (
	"context"
	"os/exec"
)

// A lineShell is the shell that runs a command line for the model — the
// shell tool's command, a cron shell job, a `shell:` skill's string, a
// skill's dynamic context — and so the grammar the line is checked in
// against [autonomy].allowed_commands. A line is only ever checked in the
// grammar of the shell that will run it: bash and dash read `$'…'`, `[[ … ]]`,
// `(( … ))` or `10>f` differently, so a line checked as bash but run by dash
// could run anything.
type lineShell struct {
	// path is the program: bash's absolute path, or "sh".
	path string
	// posix is set when the line may be read as POSIX sh: sh is dash on
	// Debian and Ubuntu, busybox ash on Alpine, bash elsewhere. The line is
	// then parsed both as bash and as POSIX sh, and accepted only when the
	// two read it the same way (see parseLine).
	posix bool
}

// findLineShell makes the one decision of which shell runs command lines:
// bash when it is on PATH (the line is then checked as bash, and nothing
// else reads it), else sh (checked as both bash and POSIX sh, since sh may
// be either).
func findLineShell() lineShell {
	if p, err := exec.LookPath("bash"); err == nil {
		return lineShell{path: p}
	}
	return lineShell{path: "sh", posix: true}
}

// command returns the process that runs line. bash runs it with no start-up
// files and in privileged mode (-p), in which it also ignores BASH_ENV,
// ENV, SHELLOPTS, BASHOPTS, CDPATH, GLOBIGNORE and functions in its
// environment (which [ScrubbedEnv] leaves out anyway): the checked line is
// all it runs.
func (s lineShell) command(ctx context.Context, line string) *exec.Cmd {
	if s.posix {
		return exec.CommandContext(ctx, s.path, "-c", line)
	}
	return exec.CommandContext(ctx, s.path, "--noprofile", "--norc", "-p", "-c", line)
}

// check returns "" when allowed is empty or line passes [checkLine] in this
// shell's grammar, else the refusal. dir is the directory the line runs in
// ("" for the workspace).
func (s lineShell) check(line string, allowed []string, sb *Sandbox, dir string) string {
	return checkLine(line, allowed, sb, dir, s.posix)
}
