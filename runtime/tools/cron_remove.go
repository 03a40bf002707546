package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/cron"
)

//go:embed cron_remove.md
var cronRemoveDescription string

type cronIDArgs struct {
	ID string `json:"id"`
}

func newCronRemove(o CronOptions) Tool {
	run := func(ctx context.Context, a cronIDArgs) providers.ToolResult {
		j, err := o.Store.Remove(ctx, a.ID, o.Workspace)
		if err != nil {
			return jobError(err)
		}
		return textResult(fmt.Sprintf("Removed job %s %q and its run history.", j.ID, j.Name))
	}
	t := newTypedTool("cron_remove", permissions.ClassWrite, cronRemoveDescription, run)
	return withSummary(t, func(a cronIDArgs) string { return "remove job " + a.ID })
}

// jobError words a store error for the model.
func jobError(err error) providers.ToolResult {
	if errors.Is(err, cron.ErrNotFound) {
		return errorResult("%s in this workspace; cron_list shows its jobs.", cronCapitalize(err.Error()))
	}
	return errorResult("%s.", cronCapitalize(err.Error()))
}

func cronCapitalize(s string) string {
	if s == "" {
		return s
	}
	if c := s[0]; c >= 'a' && c <= 'z' {
		return string(c-'a'+'A') + s[1:]
	}
	return s
}
