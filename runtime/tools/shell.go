package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/tools/shellpolicy"
)

//go:embed shell.md
var shellDescription string

// Limits of the shell tool.
const (
	defaultShellTimeout = 60 * time.Second
	maxShellTimeoutSecs = 600
	// shellWaitDelay bounds how long a finished command's background
	// children may keep its output pipes open.
	shellWaitDelay = 2 * time.Second
)

type shellArgs struct {
	Command     string `json:"command" jsonschema:"Command line."`
	TimeoutSecs int    `json:"timeout_secs,omitempty" jsonschema:"Kill after this many seconds (max 600)."`
	Sandbox     string `json:"sandbox,omitempty" jsonschema:"network: let this command use the network; off: run it outside the sandbox. Both ask the user."`
}

// The values of shellArgs.Sandbox.
const (
	sandboxNetwork = "network"
	sandboxOff     = "off"
)

// shell runs a command line in the workspace, with the shell [shellpolicy.FindShell]
// chose when the tool was built.
type shell struct {
	sb          *Sandbox
	sh          shellpolicy.Shell
	timeout     time.Duration
	allowed     []string
	environ     []string
	passthrough []string
	maxOutput   int
	start       Starter
	sandboxed   bool // start confines commands
	network     bool // confined commands have the network ([sandbox].network = "on")
}

func newShell(sb *Sandbox, opts CoreOptions) Tool {
	t := &shell{
		sb:          sb,
		sh:          shellpolicy.FindShell(),
		timeout:     opts.ShellTimeout,
		allowed:     opts.AllowedCommands,
		environ:     opts.Environ,
		passthrough: opts.EnvPassthrough,
		maxOutput:   opts.MaxOutputChars,
		start:       opts.Start,
		sandboxed:   opts.Sandboxed && opts.Start != nil,
		network:     opts.Network,
	}
	desc := strings.ReplaceAll(shellDescription, "{{timeout}}", fmt.Sprintf("%d", int(t.timeout.Seconds())))
	if len(t.allowed) > 0 {
		desc += "\nOnly these commands may be used, in every part of a pipeline or list: " +
			strings.Join(shellpolicy.Names(t.allowed), ", ") + ".\n" +
			"Redirections must name files inside the workspace, and variables such as PATH, IFS or LD_* cannot be set.\n"
	}
	if t.sandboxed {
		desc += "\n" + shellSandboxNote(t.network)
	}
	tt := newTypedTool("shell", permissions.ClassExec, desc, t.run,
		minimum("timeout_secs", 0), maximum("timeout_secs", maxShellTimeoutSecs),
		enum("sandbox", sandboxNetwork, sandboxOff))
	return &shellTool{summaryTool: summaryTool[shellArgs]{typedTool: tt,
		summary: func(a shellArgs) string { return a.Command },
		timeout: func(a shellArgs) time.Duration { return time.Duration(a.TimeoutSecs) * time.Second },
	}, shell: t}
}

// shellSandboxNote tells the model what a confined command may do.
func shellSandboxNote(network bool) string {
	net := "It has no network unless sandbox is \"network\"."
	if network {
		net = "It may use the network."
	}
	return "Commands run in an OS sandbox: they may write only inside the workspace and $TMPDIR (not .git/hooks, .git/config, .clawseed/, .claude/ or .mcp.json), and cannot read forbidden paths or clawseed's own files. " +
		net + " When a command fails for lack of access it needs, call again with sandbox \"network\" or \"off\" (outside the sandbox): the user is asked."
}

// shellTool is the shell tool with its sandbox mode.
type shellTool struct {
	summaryTool[shellArgs]
	shell *shell
}

// SandboxMode implements the agent's sandboxedTool: how a call runs once
// approved — confined without network unless the sandbox is missing (not
// sandboxed), the user's config gives commands the network, or the call
// asks for the network or for no sandbox (its escalation, which the agent
// always asks about). It mirrors run.
func (t *shellTool) SandboxMode(args json.RawMessage) (state permissions.SandboxState, escalation string) {
	var a shellArgs
	_ = json.Unmarshal(args, &a)
	switch {
	case !t.shell.sandboxed:
		return permissions.SandboxNone, ""
	case a.Sandbox == sandboxOff:
		return permissions.SandboxNone, permissions.EscalationNoSandbox
	case t.shell.network:
		return permissions.SandboxNetwork, ""
	case a.Sandbox == sandboxNetwork:
		return permissions.SandboxNetwork, permissions.EscalationNetwork
	}
	return permissions.SandboxNoNetwork, ""
}

func (t *shell) run(ctx context.Context, args shellArgs) providers.ToolResult {
	if strings.TrimSpace(args.Command) == "" {
		return errorResult("command must not be empty.")
	}
	if msg := t.sh.Check(args.Command, shellpolicy.Policy{Allowed: t.allowed, Files: t.sb.shellFiles()}); msg != "" {
		return errorResult("%s", msg)
	}
	timeout := t.timeout
	if args.TimeoutSecs > 0 {
		timeout = time.Duration(args.TimeoutSecs) * time.Second
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd := t.sh.Command(runCtx, args.Command)
	cmd.Dir = t.sb.workspace()
	cmd.Env = ScrubbedEnv(t.environ, t.passthrough)
	stdout, stderr := newHeadTail(t.maxOutput), newHeadTail(t.maxOutput)
	captureOutput(cmd, stdout, stderr, providers.ToolOutput(ctx)) // the live tail of a UI
	cmd.WaitDelay = shellWaitDelay
	isolate(cmd)

	// The agent asked the user before a call escalates (SandboxMode).
	var err error
	confined, network := false, false
	if args.Sandbox == sandboxOff {
		err = cmd.Run()
	} else {
		network = t.network || args.Sandbox == sandboxNetwork || permissions.NetworkAllowed(ctx)
		confined = t.sandboxed
		err = t.start.run(runCtx, cmd, network)
	}
	var footer string
	failed := true
	switch {
	case ctx.Err() != nil:
		footer = "[cancelled; the command and its child processes were killed]"
	case runCtx.Err() != nil:
		footer = fmt.Sprintf("[timed out after %s; the command and its child processes were killed]", timeout)
	case cmd.ProcessState == nil:
		return errorResult("Cannot run command: %v.", err)
	default:
		footer, failed = exitFooter(cmd.ProcessState)
		if errors.Is(err, exec.ErrWaitDelay) {
			footer = "[note: background processes kept the output open; later output was not collected]\n" + footer
		}
		if failed && confined && sandboxRefusal(stderr.String()) {
			footer += "\n" + sandboxHint(network)
		}
	}
	return providers.ToolResult{Content: formatShell(stdout, stderr, footer, t.maxOutput), IsError: failed}
}

// exitFooter describes how the process ended; failed is true unless it
// exited with status 0.
func exitFooter(ps interface {
	ExitCode() int
	String() string
}) (string, bool) {
	code := ps.ExitCode()
	if code < 0 {
		return "[" + ps.String() + "]", true // e.g. "signal: killed"
	}
	return fmt.Sprintf("[exit code: %d]", code), code != 0
}

// formatShell joins stdout, "[stderr]" and stderr, and the footer, sharing
// maxOutput between the two streams (stderr gets at least a third when both
// are long).
//
// The whole result fits maxOutput characters, so that the agent's cap does
// not cut it a second time: the streams get what is left after the footer,
// the stderr label and a truncation note for each. (With a tiny maxOutput
// they keep at least half of it; the agent's cap then merges the notes.)
func formatShell(stdout, stderr *headTail, footer string, maxOutput int) string {
	reserve := utf8.RuneCountInString(footer) + len("\n[stderr]\n") + 2*len(providers.TruncationNote(math.MaxInt64))
	maxOutput = max(maxOutput-reserve, maxOutput/2)
	outLen, errLen := int(min(stdout.Len(), int64(maxOutput))), int(min(stderr.Len(), int64(maxOutput)))
	outBudget, errBudget := outLen, errLen
	if outLen+errLen > maxOutput {
		errBudget = min(errLen, maxOutput/3)
		outBudget = min(outLen, maxOutput-errBudget)
		errBudget = min(errLen, maxOutput-outBudget)
	}
	var parts []string
	if s := strings.TrimRight(stdout.render(outBudget), "\n"); s != "" {
		parts = append(parts, s)
	}
	if s := strings.TrimRight(stderr.render(errBudget), "\n"); s != "" {
		parts = append(parts, "[stderr]\n"+s)
	}
	return strings.Join(append(parts, footer), "\n")
}

// sandboxRefusals are what programs print when the sandbox refused them a
// file or the network.
var sandboxRefusals = []string{"Permission denied", "Read-only file system", "Operation not permitted",
	"Network is unreachable", "Could not resolve host", "Temporary failure in name resolution", "Connection refused"}

// sandboxRefusal reports whether a failed command's stderr looks like the
// sandbox refused it something.
func sandboxRefusal(stderr string) bool {
	for _, s := range sandboxRefusals {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// sandboxHint tells the model how a confined command that was refused
// something may get it.
func sandboxHint(network bool) string {
	if network {
		return `[the command ran in the OS sandbox: it may write only in the workspace and $TMPDIR; if it must write elsewhere, call again with sandbox "off" (the user is asked)]`
	}
	return `[the command ran in the OS sandbox without network; it may write only in the workspace and $TMPDIR; if it needs the network call again with sandbox "network", to write elsewhere with sandbox "off" (the user is asked)]`
}
