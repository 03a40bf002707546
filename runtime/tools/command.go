package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/clawseed/clawseed/runtime/tools/shellpolicy"
)

// Limits of [RunCommand].
const (
	// DefaultCommandTimeout is used when CommandSpec.Timeout is 0 (§4.11).
	DefaultCommandTimeout = 30 * time.Second
	// MaxCommandTimeout is the longest a command may run (§4.11).
	MaxCommandTimeout = maxShellTimeoutSecs * time.Second
)

// A CommandSpec is one command run by [RunCommand] outside the shell tool:
// a `shell:` skill or a dynamic-context line of a skill body. It gets the
// shell tool's treatment — the same shell, the same [autonomy].allowed_commands
// check, the children's environment, its own process group killed on timeout
// or cancellation, head+tail output cap.
type CommandSpec struct {
	// Script is run by the shell tool's shell ([shellpolicy.FindShell])
	// when Argv is empty.
	Script string
	// Argv, when set, is run as a vector (Argv[0] looked up on PATH).
	Argv []string
	// Dir is the working directory.
	Dir string
	// Env are KEY=VALUE entries added after the scrub (so a skill's
	// $ARGUMENTS reaches the command even if its name looked secret).
	Env []string
	// Environ is the environment the scrub starts from (nil = os.Environ()).
	Environ []string
	// EnvPassthrough is [autonomy].env_passthrough.
	EnvPassthrough []string
	// Timeout is 0 for [DefaultCommandTimeout]; it is clamped to
	// [MaxCommandTimeout].
	Timeout time.Duration
	// MaxOutput caps each stream, in characters (0 = the tools' default).
	MaxOutput int
	// AllowedCommands is [autonomy].allowed_commands: when set, Script is
	// checked as the shell tool checks a line, and Argv as the command it
	// names, with redirections resolved against Dir and checked by Sandbox;
	// a command that fails the check does not run (Refusal says why).
	AllowedCommands []string
	Sandbox         *Sandbox
	// Start starts the command (nil: unconfined), with the network when
	// Network is set.
	Start   Starter
	Network bool
	// Stdin is the command's standard input (a hook's event JSON); nil
	// gives it none.
	Stdin []byte
	// Output, when set, gets the command's output as it is produced: a
	// `shell:` skill passes its call's live-output function
	// (providers.ToolOutput); hooks and dynamic context pass none. The
	// result is the same either way.
	Output func(chunk string)
}

// A CommandResult is how a command ended and what it printed.
type CommandResult struct {
	// Stdout and Stderr are the captured streams, each cut to MaxOutput
	// characters (the first two thirds and the last third, with a
	// truncation note in between).
	Stdout, Stderr string
	// ExitCode is the exit status, or -1 when the process was killed by a
	// signal, timed out, was cancelled or did not start.
	ExitCode int
	// TimedOut is true when the timeout killed the command; Cancelled when
	// ctx did.
	TimedOut, Cancelled bool
	// Timeout is the effective timeout.
	Timeout time.Duration
	// Err is set when the command could not be started at all.
	Err error
	// Refusal is set when [autonomy].allowed_commands refused the command,
	// which then did not run: "Command refused: ...".
	Refusal string
	// Footer describes the end in the shell tool's words, e.g.
	// "[exit code: 3]" or "[timed out after 30s; ...]".
	Footer string
	// BackgroundNote is true when background processes kept the output
	// pipes open past the command's end (their later output is lost).
	BackgroundNote bool

	stdout, stderr *headTail
	maxOutput      int
}

// OK reports whether the command ran and exited with status 0.
func (r CommandResult) OK() bool {
	return r.Err == nil && !r.TimedOut && !r.Cancelled && r.ExitCode == 0
}

// Format joins stdout, a "[stderr]" label and stderr, and footer as the
// shell tool does, sharing the output budget between the streams so that the
// whole text fits it. An empty footer adds nothing.
func (r CommandResult) Format(footer string) string {
	if r.stdout == nil {
		return footer
	}
	s := formatShell(r.stdout, r.stderr, footer, r.maxOutput)
	if footer == "" {
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}

// RunCommand runs spec and waits for it, at most its timeout. It never
// returns an error for a command that failed: the result says how it ended.
func RunCommand(ctx context.Context, spec CommandSpec) CommandResult {
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = DefaultCommandTimeout
	}
	timeout = min(timeout, MaxCommandTimeout)
	maxOut := spec.MaxOutput
	if maxOut <= 0 {
		maxOut = defaultMaxOutput
	}
	res := CommandResult{ExitCode: -1, Timeout: timeout, maxOutput: maxOut,
		stdout: newHeadTail(maxOut), stderr: newHeadTail(maxOut)}
	if spec.Script == "" && len(spec.Argv) == 0 {
		res.Err = errors.New("empty command")
		res.Footer = "[cannot run command: empty command]"
		return res
	}
	sh := shellpolicy.FindShell()
	if res.Refusal = spec.check(sh); res.Refusal != "" {
		res.Footer = "[" + res.Refusal + "]"
		return res
	}

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var cmd *exec.Cmd
	if len(spec.Argv) > 0 {
		cmd = exec.CommandContext(runCtx, spec.Argv[0], spec.Argv[1:]...)
	} else {
		cmd = sh.Command(runCtx, spec.Script)
	}
	cmd.Dir = spec.Dir
	environ := spec.Environ
	if environ == nil {
		environ = os.Environ()
	}
	cmd.Env = append(ScrubbedEnv(environ, spec.EnvPassthrough), spec.Env...)
	captureOutput(cmd, res.stdout, res.stderr, spec.Output)
	if spec.Stdin != nil {
		cmd.Stdin = bytes.NewReader(spec.Stdin)
	}
	cmd.WaitDelay = shellWaitDelay
	isolate(cmd)

	err := spec.Start.run(runCtx, cmd, spec.Network)
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		// A deadline of the caller's is a timeout like our own (below).
		res.Cancelled = true
		res.Footer = "[cancelled; the command and its child processes were killed]"
	case runCtx.Err() != nil:
		res.TimedOut = true
		res.Footer = fmt.Sprintf("[timed out after %s; the command and its child processes were killed]", timeout)
	case cmd.ProcessState == nil:
		res.Err = err
		res.Footer = fmt.Sprintf("[cannot run command: %v]", err)
	default:
		res.ExitCode = cmd.ProcessState.ExitCode()
		res.Footer, _ = exitFooter(cmd.ProcessState)
		if errors.Is(err, exec.ErrWaitDelay) {
			res.BackgroundNote = true
			res.Footer = "[note: background processes kept the output open; later output was not collected]\n" + res.Footer
		}
	}
	res.Stdout, res.Stderr = res.stdout.String(), res.stderr.String()
	return res
}

// check applies [autonomy].allowed_commands: Script as a line of sh, Argv
// as the command it names ([shellpolicy.Policy.CheckArgv]).
func (spec CommandSpec) check(sh shellpolicy.Shell) string {
	p := shellpolicy.Policy{Allowed: spec.AllowedCommands, Files: spec.Sandbox.shellFiles(), Dir: spec.Dir}
	if len(spec.Argv) == 0 {
		return sh.Check(spec.Script, p)
	}
	return p.CheckArgv(spec.Argv)
}
