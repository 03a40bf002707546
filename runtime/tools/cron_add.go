package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/cron"
)

//go:embed cron_add.md
var cronAddDescription string

type cronAddArgs struct {
	Name     string   `json:"name"`
	Schedule string   `json:"schedule"`
	Prompt   string   `json:"prompt,omitempty"`
	Command  string   `json:"command,omitempty"`
	Skills   []string `json:"skills,omitempty" jsonschema:"Skills to activate for the prompt."`
}

// newCronAdd adds a job to the workspace. It is exec-class: the job runs a
// command or an agent turn later, unattended, and the approval of this
// call (which shows the command or prompt) is the approval of those runs.
func newCronAdd(o CronOptions) Tool {
	run := func(ctx context.Context, a cronAddArgs) providers.ToolResult {
		j := cron.Job{Name: a.Name, Schedule: a.Schedule, Prompt: a.Prompt, Command: a.Command, Skills: a.Skills, Workspace: o.Workspace}
		switch {
		case strings.TrimSpace(a.Prompt) != "" && strings.TrimSpace(a.Command) != "":
			return errorResult("Give either prompt or command, not both.")
		case strings.TrimSpace(a.Prompt) != "":
			j.Kind = cron.KindPrompt
		case clawseedCommand(a.Command) != nil:
			// A clawseed command of those a job may run (`memory
			// distill`): run by the job's own clawseed process, not a
			// shell, which could not reach the memory folder.
			j.Kind, j.Args, j.Command = cron.KindClawseed, clawseedCommand(a.Command), ""
			if err := cron.CheckSchedulable(j.Args); err != nil {
				return errorResult("%s.", strings.TrimSuffix(err.Error(), "."))
			}
		case strings.TrimSpace(a.Command) != "":
			j.Kind = cron.KindShell
			if msg := o.checkCommand(a.Command); msg != "" {
				return errorResult("%s", msg)
			}
		default:
			return errorResult("Give a prompt (a task for the agent) or a command (a shell command).")
		}
		added, err := o.Store.Add(ctx, j)
		if err != nil {
			return errorResult("Job not added: %s.", strings.TrimSuffix(err.Error(), "."))
		}
		return textResult(fmt.Sprintf("Added job %s %q: %s, next run %s. %s", added.ID, added.Name, added.Schedule, cronTime(added.NextRun), o.whereJobsRun()))
	}
	t := newTypedTool("cron_add", permissions.ClassExec, cronAddDescription, run)
	t.subject = func(a cronAddArgs) permissions.Subject {
		if clawseedCommand(a.Command) != nil {
			return permissions.Subject{}
		}
		return o.commandSubject(a.Command)
	}
	return withSummary(t, func(a cronAddArgs) string {
		what := "prompt: " + cronLine(a.Prompt, 200)
		if a.Command != "" {
			what = "shell: " + cronLine(a.Command, 200)
		}
		return fmt.Sprintf("add job %q (%s) %s", a.Name, a.Schedule, what)
	})
}

// clawseedCommand returns the arguments of a command line `clawseed ARGS`
// that names a command a job may run ([cron.Schedulable]; words split on
// spaces: those commands take no quoted values), nil for any other line,
// which is a shell job's.
func clawseedCommand(line string) []string {
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "clawseed" || !cron.Schedulable(f[1:]) {
		return nil
	}
	return f[1:]
}
