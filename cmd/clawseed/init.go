package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
)

// initOptions are the flags of `clawseed init`.
type initOptions struct {
	global        *globalOptions
	io            *IOStreams
	Yes           bool
	MaxIterations int
	Focus         string
}

func newInitCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	opts := &initOptions{global: g, io: io}
	cmd := &cobra.Command{
		Use:   "init [FOCUS]",
		Short: "Let the model survey the project and write AGENTS.md (or improve it, or CLAUDE.md's content)",
		Long: "Run one turn in which the model surveys the workspace (build and test commands, architecture,\n" +
			"conventions) and writes AGENTS.md at its root, the instructions every later session reads; an existing\n" +
			"AGENTS.md or CLAUDE.md is improved rather than replaced. FOCUS adds what to pay attention to.\n" +
			"AGENTS.md is a file that decides what clawseed does, so writing it is asked (with its content shown)\n" +
			"on a terminal; --yes approves it, and without a terminal it is refused unless --yes is given.",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Focus = strings.Join(args, " ")
			return initRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Yes, "yes", false, "approve every tool call that would need approval, writing AGENTS.md included")
	cmd.Flags().IntVar(&opts.MaxIterations, "max-iterations", 0, "maximum model requests in the turn (default [agent].max_tool_iterations)")
	return cmd
}

// initRun builds a session as `run` does and runs one turn with the
// built-in /init prompt. The answer goes to stdout, progress to stderr,
// and a last line says whether AGENTS.md was written.
func initRun(ctx context.Context, opts *initOptions) error {
	cfg, err := loadConfig(opts.global, opts.io.Err)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	run := &runOptions{global: opts.global, io: opts.io, Output: "text", MaxIterations: opts.MaxIterations, Yes: opts.Yes}
	o := app.Options{
		Sink: runSink(run, nil), MaxIterations: opts.MaxIterations, Log: newLogger(opts.global, opts.io.Err), Notices: opts.io.Err,
		Process: opts.global.proc,
	}
	switch {
	case opts.Yes:
		o.Approver = app.YesApprover{}
	case isTerminal(stdinFile(opts.io.In)):
		// The write of AGENTS.md is asked with its content, as in chat.
		o.Approver = repl.NewApprover(repl.NewPlainReader(opts.io.In, opts.io.Err, nil), opts.io.Err, nil)
	}
	s, err := app.Build(ctx, cfg, o)
	if err != nil {
		return err
	}
	defer s.Shutdown()
	target := filepath.Join(cfg.Workspace, "AGENTS.md")
	before, _ := os.ReadFile(target)
	ag := s.Agent()
	base := ag.UsageByModel()
	res, turnErr := ag.Turn(ctx, agent.InitPrompt(opts.Focus))
	if err := s.Close(); err != nil {
		fmt.Fprintln(opts.io.Err, "clawseed: session not saved: "+err.Error())
	}
	if after, err := os.ReadFile(target); err == nil && !bytes.Equal(before, after) {
		fmt.Fprintf(opts.io.Err, "clawseed: wrote %s (%d bytes)\n", target, len(after))
	} else if turnErr == nil {
		fmt.Fprintf(opts.io.Err, "clawseed: %s was not changed%s\n", target, initHint(opts))
	}
	return finishRun(run, s, nil, res, providers.UsageSince(ag.UsageByModel(), base), turnErr)
}

// initHint says how to let the model write AGENTS.md when nobody could be
// asked.
func initHint(opts *initOptions) string {
	if opts.Yes || isTerminal(stdinFile(opts.io.In)) {
		return ""
	}
	return " (without a terminal, writing it needs --yes)"
}
