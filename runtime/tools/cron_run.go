package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/cron"
)

//go:embed cron_run.md
var cronRunDescription string

// newCronRun runs a job now and waits for it; exec-class, as the job runs
// a command or an agent turn.
func newCronRun(o CronOptions) Tool {
	run := func(ctx context.Context, a cronIDArgs) providers.ToolResult {
		r, err := o.Store.RunJob(ctx, a.ID, o.Workspace, cron.TriggerManual, o.Run)
		switch {
		case errors.Is(err, cron.ErrRunning):
			return errorResult("Job %s is running already (started elsewhere); cron_runs shows the result when it ends.", a.ID)
		case err != nil && r.Job == "":
			return jobError(err)
		}
		res := providers.ToolResult{Content: "Job " + r.Job + " ran: " + strings.TrimSuffix(describeRun(r), "\n"), IsError: r.Status != cron.StatusOK}
		if err != nil {
			res.Content += "\n(" + err.Error() + ")"
		}
		return res
	}
	t := newTypedTool("cron_run", permissions.ClassExec, cronRunDescription, run)
	return &summaryTool[cronIDArgs]{typedTool: t,
		summary: func(a cronIDArgs) string {
			// The approval question waits for this; a store that does not
			// answer soon leaves the job's id alone in it.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			j, err := o.Store.Get(ctx, a.ID, o.Workspace)
			if err != nil {
				return "run job " + a.ID + " now"
			}
			what := "prompt: " + cronLine(j.Prompt, 200)
			switch j.Kind {
			case cron.KindShell:
				what = "shell: " + cronLine(j.Command, 200)
			case cron.KindClawseed:
				what = cronLine(j.What(), 200)
			}
			return fmt.Sprintf("run job %s %q now (%s)", j.ID, j.Name, what)
		},
		// The agent's per-call limit makes room for a whole run.
		timeout: func(cronIDArgs) time.Duration { return cron.MaxRunTime },
	}
}
