package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/cron"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
)

// A job runs in a child process of this binary: `clawseed --workspace W
// cron exec`, given the job as JSON on stdin, which prints a [JobResult]
// (the command is cmd/clawseed's; [ExecShellJob] and [ExecPromptJob] run
// the job in it).

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

// StartScheduler runs due jobs while a chat is open ([cron].enabled); stop
// cancels the runs in progress and waits until they are recorded. On the
// postgres backend the jobs are the `clawseed serve` replicas' to run
// ([StartJobs]), or `clawseed cron run-due`'s, not a chat's.
func StartScheduler(ctx context.Context, cfg *config.Config, log *slog.Logger) (stop func()) {
	if !cfg.Cron.Enabled || cfg.Storage.Backend == config.StoragePostgres {
		return func() {}
	}
	run, err := NewJobRunner(cfg.Home)
	if err != nil {
		log.Warn("Scheduled jobs will not run in this chat", "error", err)
		return func() {}
	}
	sc := &cron.Scheduler{Store: cronFiles(cfg), Run: run, OnError: func(err error) { log.Warn("Scheduled job", "error", err) }}
	return sc.Start(ctx)
}

// JobResult is what `cron exec` prints: the run's status, output and
// session.
type JobResult struct {
	Status  string `json:"status"`
	Output  string `json:"output"`
	Session string `json:"session,omitempty"`
}

// NewJobRunner returns the runner of every job (scheduler, run-due,
// cron_run): this binary in a child process, `clawseed --workspace W cron
// exec`, given the job on stdin. The child loads the job workspace's own
// configuration, as `clawseed run --workspace W` would, so a job behaves
// the same whichever process starts it, and a crash or a leak in one run
// cannot harm the chat that started it. home is this process's
// CLAWSEED_HOME (absolute), whose trust store decides the job's trust.
func NewJobRunner(home string) (cron.Runner, error) {
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
		if strings.EqualFold(name, TrustEnv) || strings.EqualFold(name, "CLAWSEED_HOME") {
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
	var res JobResult
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

// ExecShellJob runs a shell job's command with the shell tool of the job
// workspace's configuration: its allowlist, scrubbed environment and
// output cap. Its approval was the approval of cron_add or cron_update
// (which show the command); a configuration that would not even show the
// shell tool to a model (read_only autonomy, denied_tools) does not run it.
func ExecShellJob(ctx context.Context, cfg *config.Config, j cron.Job) JobResult {
	level, err := permissions.ParseLevel(cfg.Autonomy.Level)
	if err != nil {
		return JobResult{Status: cron.StatusError, Output: err.Error()}
	}
	policy := permissions.Policy{Level: level, Allowed: cfg.Agent.AllowedTools, Denied: cfg.Agent.DeniedTools}
	if !policy.Visible("shell", permissions.ClassExec) {
		return JobResult{Status: cron.StatusError, Output: "The shell tool is not available in this workspace's configuration (autonomy, allowed_tools or denied_tools), so shell jobs do not run here."}
	}
	sb := newSandbox(cfg, &skills.Catalog{})
	// The job runs in the OS sandbox like the shell tool's commands.
	conf := newConfinement(cfg, sb.Control)
	if conf.refused() {
		return JobResult{Status: cron.StatusError, Output: "The shell job was " + conf.errRequired().Error() + "."}
	}
	if err := conf.makeTemp(); err != nil {
		return JobResult{Status: cron.StatusError, Output: err.Error()}
	}
	defer conf.close()
	shell := tools.NewShell(sb, tools.CoreOptions{
		AllowedCommands: cfg.Autonomy.AllowedCommands,
		ShellTimeout:    jobShellTimeout * time.Second,
		MaxOutputChars:  cfg.Agent.MaxToolOutputChars,
		EnvPassthrough:  cfg.Autonomy.EnvPassthrough,
		Environ:         conf.environ(os.Environ()),
		Start:           conf.commands(),
		StartReadOnly:   conf.readOnlyStarter(),
		Sandboxed:       conf.active(),
		Network:         conf.network,
	})
	args, _ := json.Marshal(map[string]any{"command": j.Command})
	r := shell.Run(ctx, args)
	status := cron.StatusOK
	if r.IsError {
		status = cron.StatusError
	}
	return JobResult{Status: status, Output: r.Content}
}

// ExecPromptJob runs a prompt job as one turn of a new session in the job's
// workspace, as `clawseed run` does without --yes: nobody can approve, so
// calls that need approval are denied. The job's skills are activated
// first; one that cannot be is an error, not a turn without it. o gives
// the log, the notices (where a session file that could not be saved is
// also reported) and the process; its approver, sink and session choice
// are not used.
func ExecPromptJob(ctx context.Context, cfg *config.Config, j cron.Job, o Options) JobResult {
	s, err := Build(ctx, cfg, Options{Sink: func(agent.Event) {}, Log: o.Log, Notices: o.Notices, Process: o.Process})
	if err != nil {
		return JobResult{Status: cron.StatusError, Output: err.Error()}
	}
	defer s.Shutdown()
	for _, name := range j.Skills {
		if out := s.agent.ActivateSkill(ctx, name, ""); out.IsError {
			return JobResult{Status: cron.StatusError, Output: out.Text, Session: s.sessionID}
		}
	}
	prompt := fmt.Sprintf("[Scheduled job %q, running unattended: nobody can answer questions or approve tool calls.]\n\n%s", j.Name, j.Prompt)
	res, turnErr := s.agent.Turn(ctx, prompt)
	if err := s.Close(); err != nil {
		fmt.Fprintln(o.Notices, "clawseed: session not saved: "+err.Error())
	}
	out := JobResult{Status: cron.StatusOK, Output: res.Final, Session: s.sessionID}
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
