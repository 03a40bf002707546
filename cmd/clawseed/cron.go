package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/cron"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
)

// Limits of a job's child process.
const (
	// jobShellTimeout is how long a shell job's command may run: the most
	// the shell tool allows a call.
	jobShellTimeout = 600
	// jobStopGrace is how long a cancelled job has to stop after SIGINT
	// before it is killed.
	jobStopGrace = 10 * time.Second
	// maxJobStdout bounds what is read of a child's result.
	maxJobStdout = 1 << 20
)

func newCronCmd(g *globalOptions, io *IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cron",
		Short: "List, run and remove scheduled jobs (the cron_* tools add them)",
		Long: "Scheduled jobs live in $CLAWSEED_HOME/cron ([cron].dir). They run while `clawseed chat` is open,\n" +
			"or when `clawseed cron run-due` runs: put it in the system crontab or a systemd timer (see the README).",
	}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List every job with its schedule, next and last run",
			Args:  cobra.NoArgs,
			RunE:  func(cmd *cobra.Command, _ []string) error { return cronList(g, io) },
		},
		newCronRunsCmd(g, io),
		&cobra.Command{
			Use:   "remove ID|NAME",
			Short: "Remove a job and its run history",
			Args:  cobra.ExactArgs(1),
			RunE:  func(cmd *cobra.Command, args []string) error { return cronRemove(g, io, args[0]) },
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

// openCronStore loads the configuration for its [cron].dir.
func openCronStore(g *globalOptions) (*config.Config, *cron.Store, error) {
	cfg, err := loadConfig(g)
	if err != nil {
		return nil, nil, err
	}
	return cfg, cronStore(cfg), nil
}

func cronList(g *globalOptions, io *IOStreams) error {
	_, store, err := openCronStore(g)
	if err != nil {
		return err
	}
	jobs, err := store.List("")
	if err != nil {
		return err
	}
	if len(jobs) == 0 {
		fmt.Fprintln(io.Out, "No jobs. A session adds them with the cron_add tool.")
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
			_, store, err := openCronStore(g)
			if err != nil {
				return err
			}
			j, runs, err := store.Runs(args[0], "", limit)
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

func cronRemove(g *globalOptions, io *IOStreams, ref string) error {
	_, store, err := openCronStore(g)
	if err != nil {
		return err
	}
	j, err := store.Remove(ref, "")
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
	cfg, store, err := openCronStore(g)
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
		store.Now = func() time.Time { return t.Add(time.Since(start)) }
	}
	run, err := newJobRunner(cfg.Home)
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
		return &exitError{code: exitFailure, err: fmt.Errorf("%d of %d jobs failed (clawseed cron runs ID shows why)", failed, len(outs))}
	}
	return nil
}

// startCronScheduler runs due jobs while a chat is open ([cron].enabled);
// stop cancels the runs in progress and waits until they are recorded.
func startCronScheduler(ctx context.Context, cfg *config.Config, log *slog.Logger) (stop func()) {
	if !cfg.Cron.Enabled {
		return func() {}
	}
	run, err := newJobRunner(cfg.Home)
	if err != nil {
		log.Warn("Scheduled jobs will not run in this chat", "error", err)
		return func() {}
	}
	sc := &cron.Scheduler{Store: cronStore(cfg), Run: run, OnError: func(err error) { log.Warn("Scheduled job", "error", err) }}
	return sc.Start(ctx)
}

// jobResult is what `cron exec` prints: the run's status, output and
// session.
type jobResult struct {
	Status  string `json:"status"`
	Output  string `json:"output"`
	Session string `json:"session,omitempty"`
}

// newJobRunner returns the runner of every job (scheduler, run-due,
// cron_run): this binary in a child process, `clawseed --workspace W cron
// exec`, given the job on stdin. The child loads the job workspace's own
// configuration, as `clawseed run --workspace W` would, so a job behaves
// the same whichever process starts it, and a crash or a leak in one run
// cannot harm the chat that started it. home is this process's
// CLAWSEED_HOME (absolute), whose trust store decides the job's trust.
func newJobRunner(home string) (cron.Runner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find the clawseed executable to run jobs: %w", err)
	}
	env := jobEnv(os.Environ(), home)
	return func(ctx context.Context, j cron.Job) cron.Result { return runJobProcess(ctx, exe, env, j) }, nil
}

// jobEnv is the environment of a job's process: this process's, but trust
// reaches the job's workspace only through the trust store. --trust is
// never passed, CLAWSEED_TRUST_WORKSPACE (which trusted the workspace of
// the process that starts jobs, perhaps for all of a chat, and every
// workspace's jobs run from there) is removed, and CLAWSEED_HOME is
// this process's home as an absolute path: the child runs in the job's
// workspace, where a relative CLAWSEED_HOME would name a home of the
// workspace's making, trust store included.
func jobEnv(environ []string, home string) []string {
	env := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.EqualFold(name, trustEnv) || strings.EqualFold(name, "CLAWSEED_HOME") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "CLAWSEED_HOME="+home)
}

func runJobProcess(ctx context.Context, exe string, env []string, j cron.Job) cron.Result {
	in, err := json.Marshal(j)
	if err != nil {
		return cron.Result{Status: cron.StatusError, Output: err.Error()}
	}
	cmd := exec.CommandContext(ctx, exe, "--workspace", j.Workspace, "cron", "exec")
	cmd.Args[0] = "clawseed"
	cmd.Dir, cmd.Env = j.Workspace, env
	cmd.Stdin = bytes.NewReader(in)
	stdout := &capped{limit: maxJobStdout}
	stderr := &capped{limit: maxJobStdout, tail: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// Cancelled, the child gets SIGINT and finishes its turn or command the
	// way `clawseed run` does on Ctrl-C; it is killed if it lingers.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = jobStopGrace
	detach(cmd)
	runErr := cmd.Run()
	var res jobResult
	if err := json.Unmarshal(stdout.buf.Bytes(), &res); err == nil && res.Status != "" {
		return cron.Result{Status: res.Status, Output: res.Output, Session: res.Session}
	}
	out := strings.TrimSpace(stderr.String())
	if runErr != nil {
		out = strings.TrimSpace(out + "\n[" + runErr.Error() + "]")
	}
	status := cron.StatusError
	if ctx.Err() != nil {
		status = cron.StatusCancelled
	}
	return cron.Result{Status: status, Output: out}
}

// capped keeps the first (or, with tail, the last) limit bytes written.
type capped struct {
	buf   bytes.Buffer
	limit int
	tail  bool
}

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	c.buf.Write(p)
	if over := c.buf.Len() - c.limit; over > 0 {
		if c.tail {
			c.buf.Next(over)
		} else {
			c.buf.Truncate(c.limit)
		}
	}
	return n, nil
}

func (c *capped) String() string { return c.buf.String() }

// cronExec runs one job in this process (the child of runJobProcess) and
// prints its result as JSON.
func cronExec(ctx context.Context, g *globalOptions, io *IOStreams) error {
	var j cron.Job
	if err := json.NewDecoder(io.In).Decode(&j); err != nil {
		return usageError(fmt.Errorf("cron exec: read the job from stdin: %w", err))
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	var res jobResult
	cfg, err := loadConfig(g)
	switch {
	case err != nil:
		res = jobResult{Status: cron.StatusError, Output: err.Error()}
	case j.Kind == cron.KindShell:
		res = execShellJob(ctx, cfg, j)
	case j.Kind == cron.KindPrompt:
		res = execPromptJob(ctx, cfg, g, io, j)
	default:
		res = jobResult{Status: cron.StatusError, Output: fmt.Sprintf("unknown job kind %q", j.Kind)}
	}
	if ctx.Err() != nil && res.Status != cron.StatusOK {
		res.Status = cron.StatusCancelled
	}
	enc := json.NewEncoder(io.Out)
	enc.SetEscapeHTML(false)
	return enc.Encode(res)
}

// execShellJob runs a shell job's command with the shell tool of the job
// workspace's configuration: its allowlist, scrubbed environment and
// output cap. Its approval was the approval of cron_add or cron_update
// (which show the command); a configuration that would not even show the
// shell tool to a model (read_only autonomy, denied_tools) does not run it.
func execShellJob(ctx context.Context, cfg *config.Config, j cron.Job) jobResult {
	level, err := permissions.ParseLevel(cfg.Autonomy.Level)
	if err != nil {
		return jobResult{Status: cron.StatusError, Output: err.Error()}
	}
	policy := permissions.Policy{Level: level, Allowed: cfg.Agent.AllowedTools, Denied: cfg.Agent.DeniedTools}
	if !policy.Visible("shell", permissions.ClassExec) {
		return jobResult{Status: cron.StatusError, Output: "The shell tool is not available in this workspace's configuration (autonomy, allowed_tools or denied_tools), so shell jobs do not run here."}
	}
	sb := newSandbox(cfg, &skills.Catalog{})
	// The job runs in the OS sandbox like the shell tool's commands.
	conf := newConfinement(cfg, sb.Control)
	if conf.refused() {
		return jobResult{Status: cron.StatusError, Output: "The shell job was " + conf.errRequired().Error() + "."}
	}
	if err := conf.makeTemp(); err != nil {
		return jobResult{Status: cron.StatusError, Output: err.Error()}
	}
	defer conf.close()
	var shell tools.Tool
	for _, t := range tools.Core(sb, tools.CoreOptions{
		AllowedCommands: cfg.Autonomy.AllowedCommands,
		ShellTimeout:    jobShellTimeout * time.Second,
		MaxOutputChars:  cfg.Agent.MaxToolOutputChars,
		EnvPassthrough:  cfg.Autonomy.EnvPassthrough,
		Environ:         conf.environ(os.Environ()),
		Start:           conf.commands(),
		StartReadOnly:   conf.readOnlyStarter(),
		Sandboxed:       conf.active(),
		Network:         conf.network,
	}) {
		if t.Spec().Name == "shell" {
			shell = t
		}
	}
	args, _ := json.Marshal(map[string]any{"command": j.Command})
	r := shell.Run(ctx, args)
	status := cron.StatusOK
	if r.IsError {
		status = cron.StatusError
	}
	return jobResult{Status: status, Output: r.Content}
}

// execPromptJob runs a prompt job as one turn of a new session in the job's
// workspace, as `clawseed run` does without --yes: nobody can approve, so
// calls that need approval are denied. The job's skills are activated
// first; one that cannot be is an error, not a turn without it.
func execPromptJob(ctx context.Context, cfg *config.Config, g *globalOptions, io *IOStreams, j cron.Job) jobResult {
	a, err := buildApp(ctx, cfg, appOptions{Sink: func(agent.Event) {}, Log: newLogger(g, io.Err), Notices: io.Err})
	if err != nil {
		return jobResult{Status: cron.StatusError, Output: err.Error()}
	}
	defer a.shutdown()
	for _, name := range j.Skills {
		if out := a.agent.ActivateSkill(ctx, name, ""); out.IsError {
			return jobResult{Status: cron.StatusError, Output: out.Text, Session: a.sessionID}
		}
	}
	prompt := fmt.Sprintf("[Scheduled job %q, running unattended: nobody can answer questions or approve tool calls.]\n\n%s", j.Name, j.Prompt)
	res, turnErr := a.agent.Turn(ctx, prompt)
	if err := a.Close(); err != nil {
		fmt.Fprintln(io.Err, "clawseed: session not saved: "+err.Error())
	}
	out := jobResult{Status: cron.StatusOK, Output: res.Final, Session: a.sessionID}
	if res.Status != agent.StatusOK {
		out.Status = cron.StatusError
		if turnErr != nil {
			out.Output = strings.TrimSpace(out.Output + "\n[" + res.Status + ": " + turnErr.Error() + "]")
		} else {
			out.Output = strings.TrimSpace(out.Output + "\n[" + res.Status + "]")
		}
	}
	return out
}
