package shellpolicy

import (
	"context"
	"os/exec"
)

// A Shell is the shell that runs a command line for the model — the shell
// tool's command, a cron shell job, a `shell:` skill's string, a skill's
// dynamic context — and so the grammar the line is checked in against
// [autonomy].allowed_commands. A line is only ever checked in the grammar
// of the shell that will run it: bash and dash read `$'…'`, `[[ … ]]`,
// `(( … ))` or `10>f` differently, so a line checked as bash but run by
// dash could run anything. That is why one value both checks a line
// ([Shell.Check]) and makes the process that runs it ([Shell.Command]).
// Get one from [FindShell].
type Shell struct {
	// path is the program: bash's absolute path, or "sh".
	path string
	// posix is set when the line may be read as POSIX sh: sh is dash on
	// Debian and Ubuntu, busybox ash on Alpine, bash elsewhere. The line is
	// then parsed both as bash and as POSIX sh, and accepted only when the
	// two read it the same way (see parseLine).
	posix bool
}

// FindShell makes the one decision of which shell runs command lines: bash
// when it is on PATH (the line is then checked as bash, and nothing else
// reads it), else sh (checked as both bash and POSIX sh, since sh may be
// either).
func FindShell() Shell {
	if p, err := exec.LookPath("bash"); err == nil {
		return Shell{path: p}
	}
	return Shell{path: "sh", posix: true}
}

// Command returns the process that runs line. bash runs it with no start-up
// files and in privileged mode (-p), in which it also ignores BASH_ENV,
// ENV, SHELLOPTS, BASHOPTS, CDPATH, GLOBIGNORE and functions in its
// environment (which tools.ScrubbedEnv leaves out anyway): the checked
// line is all it runs.
func (s Shell) Command(ctx context.Context, line string) *exec.Cmd {
	if s.posix {
		return exec.CommandContext(ctx, s.path, "-c", line)
	}
	return exec.CommandContext(ctx, s.path, "--noprofile", "--norc", "-p", "-c", line)
}

// Check returns "" when p allows line in this shell's grammar (always when
// p.Allowed is empty), else the refusal: one sentence for the model that
// starts with "Command refused: ".
func (s Shell) Check(line string, p Policy) string {
	return checkLine(line, p, s.posix)
}
