package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

//go:embed cron_runs.md
var cronRunsDescription string

type cronRunsArgs struct {
	ID    string `json:"id"`
	Limit int    `json:"limit,omitempty" jsonschema:"Default 5."`
}

func newCronRuns(o CronOptions) Tool {
	run := func(ctx context.Context, a cronRunsArgs) providers.ToolResult {
		limit := a.Limit
		if limit <= 0 {
			limit = 5
		}
		j, runs, err := o.Store.Runs(ctx, a.ID, o.Workspace, limit)
		if err != nil {
			return jobError(err)
		}
		if len(runs) == 0 {
			return textResult(fmt.Sprintf("Job %s %q has not run yet; next run %s.", j.ID, j.Name, cronTime(j.NextRun)))
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Last %s of job %s %q, oldest first:\n", plural(len(runs), "run"), j.ID, j.Name)
		for _, r := range runs {
			b.WriteString(describeRun(r))
		}
		return textResult(strings.TrimSuffix(b.String(), "\n"))
	}
	return newTypedTool("cron_runs", permissions.ClassRead, cronRunsDescription, run,
		maximum("limit", 50))
}
