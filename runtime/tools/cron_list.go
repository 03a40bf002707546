package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

//go:embed cron_list.md
var cronListDescription string

type cronListArgs struct{}

func newCronList(o CronOptions) Tool {
	run := func(ctx context.Context, _ cronListArgs) providers.ToolResult {
		jobs, err := o.Store.List(ctx, o.Workspace)
		if err != nil {
			return errorResult("Cannot list jobs: %s", err)
		}
		if len(jobs) == 0 {
			return textResult("No jobs are scheduled in this workspace.")
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s in this workspace:\n", plural(len(jobs), "job"))
		for _, j := range jobs {
			b.WriteString(describeJob(j))
		}
		return textResult(strings.TrimSuffix(b.String(), "\n"))
	}
	return newTypedTool("cron_list", permissions.ClassRead, cronListDescription, run)
}
