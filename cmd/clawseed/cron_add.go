package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/cron"
)

// cronAddOptions are the flags of `clawseed cron add`.
type cronAddOptions struct {
	name, every, schedule string
	prompt, shell         string
	skills                []string
}

func newCronAddCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	var o cronAddOptions
	cmd := &cobra.Command{
		Use:   "add (--every INTERVAL | --schedule SPEC) (--prompt TEXT | --shell COMMAND | -- COMMAND...)",
		Short: "Schedule a job in this workspace: a prompt, a shell command, or a clawseed command such as `memory distill`",
		Long: "Add a job to $CLAWSEED_HOME/cron ([cron].dir) that runs in this workspace: a prompt (a fresh agent\n" +
			"turn, unattended), a shell command (with the shell tool's allowlist and sandbox), or, after --, a\n" +
			"clawseed command: " + cron.SchedulableList() + ".\n" +
			"Example: clawseed cron add --every 24h -- memory distill",
		RunE: func(cmd *cobra.Command, args []string) error {
			return cronAdd(cmd.Context(), g, io, o, args, cmd.ArgsLenAtDash())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.name, "name", "", "the job's name (default: the clawseed command, else required)")
	f.StringVar(&o.every, "every", "", "run every `INTERVAL` (10m, 2h, 24h, 1d; whole minutes)")
	f.StringVar(&o.schedule, "schedule", "", "run at the times of `SPEC`: five cron fields in local time (\"0 9 * * 1-5\"), @daily, or \"every 2h\"")
	f.StringVar(&o.prompt, "prompt", "", "the task of a prompt job")
	f.StringVar(&o.shell, "shell", "", "the command line of a shell job")
	f.StringSliceVar(&o.skills, "skill", nil, "a skill to activate for a prompt job (repeatable)")
	return cmd
}

// cronAdd makes the job the flags and the words after -- describe.
func cronAdd(ctx context.Context, g *globalOptions, io *IOStreams, o cronAddOptions, args []string, dash int) error {
	if dash < 0 && len(args) > 0 {
		return usageError(fmt.Errorf("unexpected %q: put a clawseed command after --, e.g. `clawseed cron add --every 24h -- memory distill`", args[0]))
	}
	j := cron.Job{Name: o.name, Skills: o.skills}
	switch {
	case o.every != "" && o.schedule != "":
		return usageError(errors.New("give --every or --schedule, not both"))
	case o.every != "":
		j.Schedule = "every " + o.every
	case o.schedule != "":
		j.Schedule = o.schedule
	default:
		return usageError(errors.New("say when the job runs: --every 24h, or --schedule '0 9 * * 1-5'"))
	}
	kinds := 0
	if o.prompt != "" {
		kinds++
		j.Kind, j.Prompt = cron.KindPrompt, o.prompt
	}
	if o.shell != "" {
		kinds++
		j.Kind, j.Command = cron.KindShell, o.shell
	}
	if len(args) > 0 {
		kinds++
		if err := cron.CheckSchedulable(args); err != nil {
			return usageError(err)
		}
		j.Kind, j.Args = cron.KindClawseed, args
		if j.Name == "" {
			j.Name = strings.Join(args, " ")
		}
	}
	switch {
	case kinds != 1:
		return usageError(errors.New("give one of --prompt TEXT, --shell COMMAND or -- COMMAND..."))
	case j.Name == "":
		return usageError(errors.New("--name is required for a prompt or shell job"))
	case len(o.skills) > 0 && j.Kind != cron.KindPrompt:
		return usageError(errors.New("--skill applies to prompt jobs only"))
	}
	cfg, store, err := openCronStore(ctx, g, io)
	if err != nil {
		return err
	}
	if !cfg.Cron.Enabled {
		return usageError(errors.New("cron is disabled ([cron].enabled = false)"))
	}
	j.Workspace = cfg.Workspace
	added, err := store.Add(ctx, j)
	if err != nil {
		return usageError(fmt.Errorf("job not added: %w", err))
	}
	fmt.Fprintf(io.Out, "Added job %s %q (%s): %s, next run %s.\n", added.ID, termtext.EscapeLine(added.Name),
		termtext.EscapeLine(added.What()), termtext.EscapeLine(added.Schedule), listTime(added.NextRun))
	return nil
}

// newCronRunCmd is `clawseed cron run ID|NAME`: a job now, as cron_run.
func newCronRunCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "run ID|NAME",
		Short: "Run a job now and wait for it; exits 1 when the run failed",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, store, err := openCronStore(cmd.Context(), g, io)
			if err != nil {
				return err
			}
			run, err := app.NewJobRunner(cfg.Home)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			r, err := store.RunJob(ctx, args[0], "", cron.TriggerManual, run)
			switch {
			case errors.Is(err, cron.ErrNotFound):
				return usageError(err)
			case err != nil && r.Job == "":
				return err
			}
			fmt.Fprintf(io.Out, "%s: %s (%s)\n", r.Job, r.Status, r.End.Sub(r.Start).Round(time.Second))
			if out := strings.TrimRight(r.Output, "\n"); out != "" {
				fmt.Fprintln(io.Out, termtext.Escape(indent(out, "    ")))
			}
			if err != nil {
				fmt.Fprintln(io.Err, "clawseed: "+err.Error())
			}
			if r.Status != cron.StatusOK {
				return fmt.Errorf("job %s: %s", r.Job, r.Status)
			}
			return nil
		},
	}
}

// execClawseedJob runs a clawseed job's command in this process (the job's
// child process, `cron exec`): a fresh command tree in the job's
// workspace, its output captured as the run's.
func execClawseedJob(ctx context.Context, g *globalOptions, j cron.Job) app.JobResult {
	if err := cron.CheckSchedulable(j.Args); err != nil {
		return app.JobResult{Status: cron.StatusError, Output: err.Error()}
	}
	var out bytes.Buffer
	root := newRootCmd(&IOStreams{In: strings.NewReader(""), Out: &out, Err: &out}, g.proc)
	root.SetArgs(append([]string{"--workspace", j.Workspace}, j.Args...))
	root.SetIn(strings.NewReader(""))
	root.SetOut(&out)
	root.SetErr(&out)
	code := exitCode(root.ExecuteContext(ctx), &out)
	status := cron.StatusOK
	if code != exitOK {
		status = cron.StatusError
		fmt.Fprintf(&out, "[exit code: %d]\n", code)
	}
	return app.JobResult{Status: status, Output: out.String()}
}
