package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/cron"
	"github.com/clawseed/clawseed/runtime/tools/shellpolicy"
)

// CronOptions configures [CronTools].
type CronOptions struct {
	// Store is the job store ([cron].dir, or the database of
	// [storage].backend = "postgres").
	Store cron.Jobs
	// Workspace is the session's workspace: jobs are added to it, and the
	// tools see and change only its jobs.
	Workspace string
	// Run runs one job (cron_run). It is the same runner the scheduler
	// uses, so a job run from a tool behaves as a scheduled one.
	Run cron.Runner
	// AllowedCommands and Sandbox check a shell job's command when it is
	// added or changed, as the shell tool would check it (the run checks
	// again, under the job workspace's configuration then).
	AllowedCommands []string
	Sandbox         *Sandbox
	// RunNote tells the model what runs the jobs ("" = a chat or the
	// system crontab).
	RunNote string
}

// whereJobsRun is the sentence of cron_add's result that says what runs
// the jobs.
func (o CronOptions) whereJobsRun() string {
	if o.RunNote != "" {
		return o.RunNote
	}
	return "Jobs run while clawseed chat is open, or from the system crontab with `clawseed cron run-due`."
}

// CronTools returns cron_add, cron_list, cron_remove, cron_run, cron_runs
// and cron_update, sorted by name (cron_run only with a Run). They manage
// the job store; jobs run through the runner (in cmd/clawseed, a child
// process per run).
func CronTools(opts CronOptions) []Tool {
	list := []Tool{newCronAdd(opts), newCronList(opts), newCronRemove(opts)}
	if opts.Run != nil {
		list = append(list, newCronRun(opts))
	}
	return append(list, newCronRuns(opts), newCronUpdate(opts))
}

// commandSubject is what permission rules see of a call that adds or
// changes a shell job: the job's command line, which runs later
// unattended (the zero Subject for a prompt job).
func (o CronOptions) commandSubject(command string) permissions.Subject {
	if strings.TrimSpace(command) == "" {
		return permissions.Subject{}
	}
	sb := o.Sandbox
	if sb == nil {
		sb = &Sandbox{Workspace: o.Workspace}
	}
	return permissions.Subject{Shell: ShellLine(command, sb, "")}
}

// checkCommand refuses a shell job's command that the shell tool would
// refuse under [autonomy].allowed_commands.
func (o CronOptions) checkCommand(command string) string {
	sb := o.Sandbox
	if sb == nil {
		sb = &Sandbox{Workspace: o.Workspace}
	}
	if msg := shellpolicy.FindShell().Check(command, shellpolicy.Policy{Allowed: o.AllowedCommands, Files: sb.shellFiles()}); msg != "" {
		return "The job's command would be refused: " + msg
	}
	return ""
}

// cronTime formats a time of the job store for the model: local time to
// the minute, with the zone.
func cronTime(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Local().Format("2006-01-02 15:04 MST")
}

// describeJob renders a job in a few lines.
func describeJob(j cron.Job) string {
	var b strings.Builder
	if j.Enabled {
		fmt.Fprintf(&b, "%s %q (%s job, enabled)\n  schedule: %s; next run %s", j.ID, j.Name, j.Kind, j.Schedule, cronTime(j.NextRun))
	} else {
		fmt.Fprintf(&b, "%s %q (%s job, paused)\n  schedule: %s", j.ID, j.Name, j.Kind, j.Schedule)
	}
	if j.LastRun != nil {
		fmt.Fprintf(&b, "; last run %s: %s", cronTime(*j.LastRun), cronOrDash(j.LastStatus))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  %s\n", cronLine(j.What(), 300))
	if len(j.Skills) > 0 {
		fmt.Fprintf(&b, "  skills: %s\n", strings.Join(j.Skills, ", "))
	}
	return b.String()
}

// describeRun renders one run: when, how long, how it ended, its output.
func describeRun(r cron.Run) string {
	head := fmt.Sprintf("%s (%s, %s): %s", cronTime(r.Start), r.Trigger, r.End.Sub(r.Start).Round(time.Second), r.Status)
	if r.Session != "" {
		head += "; session " + r.Session
	}
	out := strings.TrimRight(r.Output, "\n")
	if out == "" {
		return head + "\n"
	}
	return head + "\n" + out + "\n"
}

// cronLine shortens s to one line of at most n characters.
func cronLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func cronOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
