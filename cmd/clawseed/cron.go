package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/cron"
)

func newCronCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cron",
		Short: "Add, list, run and remove scheduled jobs (the cron_* tools add them too)",
		Long: "Scheduled jobs live in $CLAWSEED_HOME/cron ([cron].dir). They run while `clawseed chat` is open,\n" +
			"or when `clawseed cron run-due` runs: put it in the system crontab or a systemd timer (see docs/tools.md).\n" +
			"With [storage] backend = \"postgres\" they live in the database and every `clawseed serve` replica\n" +
			"runs them, each due time once.",
	}
	cmd.AddCommand(
		newCronAddCmd(g, io),
		newCronRunCmd(g, io),
		&cobra.Command{
			Use:   "list",
			Short: "List every job with its schedule, next and last run",
			Args:  cobra.NoArgs,
			RunE:  func(cmd *cobra.Command, _ []string) error { return cronList(cmd.Context(), g, io) },
		},
		newCronRunsCmd(g, io),
		&cobra.Command{
			Use:   "remove ID|NAME",
			Short: "Remove a job and its run history",
			Args:  cobra.ExactArgs(1),
			RunE:  func(cmd *cobra.Command, args []string) error { return cronRemove(cmd.Context(), g, io, args[0]) },
		},
		newCronRunDueCmd(g, io),
		&cobra.Command{
			Use:    "exec",
			Short:  "Run the job given as JSON on stdin in --workspace and print its result (internal)",
			Hidden: true,
			Args:   cobra.NoArgs,
			RunE:   func(cmd *cobra.Command, _ []string) error { return cronExec(cmd.Context(), g, io) },
		},
	)
	return cmd
}

// openCronStore loads the configuration and opens its job store
// ([cron].dir, or the database of [storage]).
func openCronStore(ctx context.Context, g *globalOptions, io *IOStreams) (*config.Config, cron.Jobs, error) {
	cfg, err := loadConfig(g, io.Err)
	if err != nil {
		return nil, nil, err
	}
	store, err := app.OpenCronStore(ctx, cfg, g.proc)
	return cfg, store, err
}

func cronList(ctx context.Context, g *globalOptions, io *IOStreams) error {
	_, store, err := openCronStore(ctx, g, io)
	if err != nil {
		return err
	}
	jobs, err := store.List(ctx, "")
	if err != nil {
		return err
	}
	if len(jobs) == 0 {
		fmt.Fprintln(io.Out, "No jobs. `clawseed cron add` adds one, and a session with the cron_add tool.")
		return nil
	}
	tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tKIND\tSCHEDULE\tNEXT RUN\tLAST RUN\tSTATUS\tWORKSPACE")
	for _, j := range jobs {
		next, last := listTime(j.NextRun), "-"
		if !j.Enabled {
			next = "paused"
		}
		if j.LastRun != nil {
			last = listTime(*j.LastRun)
		}
		status := j.LastStatus
		if status == "" {
			status = "-"
		}
		line := termtext.EscapeLine
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, line(j.Name), j.Kind, line(j.Schedule), next, last, status, line(j.Workspace))
	}
	return tw.Flush()
}

// listTime shows a job time in local time, to the minute.
func listTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04 MST") }

func newCronRunsCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	limit := 10
	cmd := &cobra.Command{
		Use:   "runs ID|NAME",
		Short: "Show a job's recent runs and the end of their output",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, store, err := openCronStore(cmd.Context(), g, io)
			if err != nil {
				return err
			}
			j, runs, err := store.Runs(cmd.Context(), args[0], "", limit)
			if err != nil {
				return usageError(err)
			}
			if len(runs) == 0 {
				fmt.Fprintf(io.Out, "Job %s (%s) has not run yet.\n", j.ID, termtext.EscapeLine(j.Name))
				return nil
			}
			for _, r := range runs {
				fmt.Fprintf(io.Out, "%s  %s  %s  %s", listTime(r.Start), r.Trigger, r.End.Sub(r.Start).Round(time.Second), r.Status)
				if r.Session != "" {
					fmt.Fprintf(io.Out, "  session %s", r.Session)
				}
				fmt.Fprintln(io.Out)
				if out := strings.TrimRight(r.Output, "\n"); out != "" {
					fmt.Fprintln(io.Out, termtext.Escape(indent(out, "    ")))
				}
			}
			return nil
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", limit, "number of runs to show")
	return cmd
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func cronRemove(ctx context.Context, g *globalOptions, io *IOStreams, ref string) error {
	_, store, err := openCronStore(ctx, g, io)
	if err != nil {
		return err
	}
	j, err := store.Remove(ctx, ref, "")
	if errors.Is(err, cron.ErrNotFound) {
		return usageError(err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(io.Out, "Removed job %s (%s).\n", j.ID, termtext.EscapeLine(j.Name))
	return nil
}

func newCronRunDueCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	var now string
	cmd := &cobra.Command{
		Use:   "run-due",
		Short: "Run the jobs that are due, then exit (for the system crontab or a systemd timer)",
		Long: "Run every enabled job whose next run has come, each once, and wait for them. A job that is\n" +
			"running elsewhere (a chat, another run-due) is skipped. Prints one line per job run and nothing\n" +
			"when nothing is due; exits 1 when a job failed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cronRunDue(cmd.Context(), g, io, now) },
	}
	cmd.Flags().StringVar(&now, "now", "", "evaluate schedules as if the time were `TIME` (RFC 3339; it then advances normally), to try a schedule")
	return cmd
}

func cronRunDue(ctx context.Context, g *globalOptions, io *IOStreams, now string) error {
	cfg, store, err := openCronStore(ctx, g, io)
	if err != nil {
		return err
	}
	if !cfg.Cron.Enabled {
		return usageError(errors.New("cron is disabled ([cron].enabled = false)"))
	}
	if now != "" {
		t, err := time.Parse(time.RFC3339, now)
		if err != nil {
			return usageError(fmt.Errorf("--now: %q is not an RFC 3339 time such as 2025-01-31T09:00:00Z", now))
		}
		start := time.Now()
		if c, ok := store.(cron.Clocked); ok {
			c.SetClock(func() time.Time { return t.Add(time.Since(start)) })
		}
	}
	run, err := app.NewJobRunner(cfg.Home)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	outs, err := store.RunDue(ctx, run)
	if err != nil {
		return err
	}
	failed := 0
	for _, o := range outs {
		name := termtext.EscapeLine(o.Job.Name)
		switch {
		case o.Skipped():
			fmt.Fprintf(io.Out, "%s %s: skipped (%v)\n", o.Job.ID, name, o.Err)
		case o.Err != nil && o.Run.Job == "":
			failed++
			fmt.Fprintf(io.Out, "%s %s: not run: %v\n", o.Job.ID, name, o.Err)
		default:
			if o.Run.Status != cron.StatusOK {
				failed++
			}
			fmt.Fprintf(io.Out, "%s %s: %s\n", o.Job.ID, name, o.Run.Status)
			if o.Err != nil {
				fmt.Fprintln(io.Err, "clawseed: "+o.Err.Error())
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d jobs failed (clawseed cron runs ID shows why)", failed, len(outs))
	}
	return nil
}

// cronExec runs one job in this process (the child of app.NewJobRunner's
// runner) and prints its result as JSON.
func cronExec(ctx context.Context, g *globalOptions, io *IOStreams) error {
	var j cron.Job
	if err := json.NewDecoder(io.In).Decode(&j); err != nil {
		return usageError(fmt.Errorf("cron exec: read the job from stdin: %w", err))
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	var res app.JobResult
	cfg, err := loadConfig(g, io.Err)
	switch {
	case err != nil:
		res = app.JobResult{Status: cron.StatusError, Output: err.Error()}
	case j.Kind == cron.KindShell:
		res = app.ExecShellJob(ctx, cfg, j)
	case j.Kind == cron.KindPrompt:
		res = app.ExecPromptJob(ctx, cfg, j, app.Options{Log: newLogger(g, io.Err), Notices: io.Err, Process: g.proc})
	case j.Kind == cron.KindClawseed:
		res = execClawseedJob(ctx, g, j)
	default:
		res = app.JobResult{Status: cron.StatusError, Output: fmt.Sprintf("unknown job kind %q", j.Kind)}
	}
	if ctx.Err() != nil && res.Status != cron.StatusOK {
		res.Status = cron.StatusCancelled
	}
	enc := json.NewEncoder(io.Out)
	enc.SetEscapeHTML(false)
	return enc.Encode(res)
}
