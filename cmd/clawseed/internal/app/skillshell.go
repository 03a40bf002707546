package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
)

// skillShellFunc runs a `shell:` skill and returns its tool result.
type skillShellFunc func(ctx context.Context, s *skills.Skill, args string, sessionID string) providers.ToolResult

// newSkillShell returns the runner of `shell:` skills (§4.11): the skill's
// command — a string run by the shell tool's shell, or a command with args
// run as a vector — runs in the skill directory with the shell tool's
// environment ([autonomy].env_passthrough honoured) plus $ARGUMENTS, the
// CLAWSEED_ variables and their Claude Code aliases; timeout 30 s by
// default, at most 600 s; output capped at [agent].max_tool_output_chars.
// The arguments reach the command only through $ARGUMENTS, never in its
// text. [autonomy].allowed_commands applies as it does to the shell tool,
// with redirections checked by sb (relative ones from the skill directory).
//
// The result is stdout, then stderr after a "[stderr]" line when there is
// any; a non-zero exit is an error ending in "Exit code N", a timeout an
// error saying so. Permission (shell_exec) and approval are the caller's.
func newSkillShell(cfg *config.Config, sb *tools.Sandbox, conf *confinement) skillShellFunc {
	return func(ctx context.Context, s *skills.Skill, args string, sessionID string) providers.ToolResult {
		if s.Shell == nil || s.Shell.Command == "" {
			return providers.ToolResult{Content: fmt.Sprintf("Skill '%s' has no shell command.", s.Name), IsError: true}
		}
		dir := s.Dir
		if dir == "" {
			dir = cfg.Workspace
		}
		spec := tools.CommandSpec{
			Dir:             dir,
			Env:             skills.CommandEnv(s, cfg.Workspace, sessionID, args),
			Environ:         conf.environ(os.Environ()),
			EnvPassthrough:  cfg.Autonomy.EnvPassthrough,
			Timeout:         time.Duration(s.Shell.TimeoutSecs) * time.Second,
			MaxOutput:       cfg.Agent.MaxToolOutputChars,
			AllowedCommands: cfg.Autonomy.AllowedCommands,
			Sandbox:         sb,
			Start:           conf.commands(),
			Output:          providers.ToolOutput(ctx), // the live tail of its call
		}
		if len(s.Shell.Args) > 0 {
			spec.Argv = append([]string{s.Shell.Command}, s.Shell.Args...)
		} else {
			spec.Script = s.Shell.Command
		}
		return skillShellResult(s.Name, tools.RunCommand(ctx, spec))
	}
}

// skillShellResult turns how the command ended into the tool result.
func skillShellResult(name string, r tools.CommandResult) providers.ToolResult {
	switch {
	case r.Refusal != "":
		return providers.ToolResult{Content: fmt.Sprintf("The command of skill '%s' was not run. %s", name, r.Refusal), IsError: true}
	case r.Err != nil:
		return providers.ToolResult{Content: fmt.Sprintf("Cannot run the command of skill '%s': %v.", name, r.Err), IsError: true}
	case r.TimedOut:
		return providers.ToolResult{IsError: true, Content: r.Format(
			fmt.Sprintf("Timed out after %s; the command and its child processes were killed.", r.Timeout))}
	case r.Cancelled:
		return providers.ToolResult{IsError: true, Content: r.Format("Cancelled; the command and its child processes were killed.")}
	case r.ExitCode < 0:
		return providers.ToolResult{IsError: true, Content: r.Format(r.Footer)} // killed by a signal
	case r.ExitCode != 0:
		return providers.ToolResult{IsError: true, Content: r.Format(fmt.Sprintf("Exit code %d", r.ExitCode))}
	}
	out := r.Format("")
	if r.BackgroundNote {
		out = r.Format("[note: background processes kept the output open; later output was not collected]")
	}
	if out == "" {
		out = "(no output)"
	}
	return providers.ToolResult{Content: out}
}

// dynamicRunner returns the [skills.ActiveConfig.RunCommand] of dynamic
// context: the shell tool's shell, [autonomy].allowed_commands and
// environment, as for shell skills, the output capped like a tool result,
// and an error naming how it ended unless it exited with status 0 (ctx
// carries the 30 s limit; the runner's own default is the same).
func dynamicRunner(cfg *config.Config, sb *tools.Sandbox, conf *confinement) func(ctx context.Context, dir, script string, env []string) (string, string, error) {
	return func(ctx context.Context, dir, script string, env []string) (string, string, error) {
		r := tools.RunCommand(ctx, tools.CommandSpec{
			Script:          script,
			Dir:             dir,
			Env:             env,
			Environ:         conf.environ(os.Environ()),
			EnvPassthrough:  cfg.Autonomy.EnvPassthrough,
			Timeout:         skills.DynamicTimeout,
			MaxOutput:       cfg.Agent.MaxToolOutputChars,
			AllowedCommands: cfg.Autonomy.AllowedCommands,
			Sandbox:         sb,
			Start:           conf.commands(),
		})
		switch {
		case r.Refusal != "":
			return "", "", errors.New(strings.TrimSuffix(r.Refusal, "."))
		case r.Err != nil:
			return "", "", fmt.Errorf("cannot run it: %w", r.Err)
		case r.TimedOut:
			return r.Stdout, r.Stderr, fmt.Errorf("timed out after %s", r.Timeout)
		case r.Cancelled:
			return r.Stdout, r.Stderr, context.Canceled
		case r.ExitCode < 0: // killed by a signal: "[signal: killed]"
			return r.Stdout, r.Stderr, fmt.Errorf("%s", strings.Trim(r.Footer, "[]"))
		case r.ExitCode != 0:
			return r.Stdout, r.Stderr, fmt.Errorf("exit code %d", r.ExitCode)
		}
		return r.Stdout, r.Stderr, nil
	}
}
