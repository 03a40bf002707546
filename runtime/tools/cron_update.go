package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/cron"
)

//go:embed cron_update.md
var cronUpdateDescription string

type cronUpdateArgs struct {
	ID       string    `json:"id"`
	Name     *string   `json:"name,omitempty"`
	Schedule *string   `json:"schedule,omitempty"`
	Prompt   *string   `json:"prompt,omitempty"`
	Command  *string   `json:"command,omitempty"`
	Skills   *[]string `json:"skills,omitempty"`
	Enabled  *bool     `json:"enabled,omitempty"`
}

// newCronUpdate changes a job. Like cron_add it is exec-class: it can
// change what runs unattended.
func newCronUpdate(o CronOptions) Tool {
	run := func(ctx context.Context, a cronUpdateArgs) providers.ToolResult {
		if a.Name == nil && a.Schedule == nil && a.Prompt == nil && a.Command == nil && a.Skills == nil && a.Enabled == nil {
			return errorResult("Nothing to change: give at least one of name, schedule, prompt, command, skills, enabled.")
		}
		if a.Command != nil {
			if msg := o.checkCommand(*a.Command); msg != "" {
				return errorResult("%s", msg)
			}
		}
		j, err := o.Store.Update(ctx, a.ID, o.Workspace, func(j *cron.Job) error { return a.apply(j) })
		if err != nil {
			return jobError(err)
		}
		return textResult("Updated job:\n" + strings.TrimSuffix(describeJob(j), "\n"))
	}
	t := newTypedTool("cron_update", permissions.ClassExec, cronUpdateDescription, run)
	t.subject = func(a cronUpdateArgs) permissions.Subject {
		if a.Command == nil {
			return permissions.Subject{}
		}
		return o.commandSubject(*a.Command)
	}
	return withSummary(t, func(a cronUpdateArgs) string { return "update job " + a.ID + ": " + a.changes() })
}

// apply sets the fields given; a job keeps its kind.
func (a cronUpdateArgs) apply(j *cron.Job) error {
	switch {
	case (a.Prompt != nil || a.Command != nil) && j.Kind == cron.KindClawseed:
		return fmt.Errorf("job %s runs a clawseed command: remove it and add a prompt or shell job", j.ID)
	case a.Prompt != nil && j.Kind != cron.KindPrompt:
		return fmt.Errorf("job %s is a shell job: change its command, or remove it and add a prompt job", j.ID)
	case (a.Command != nil) && j.Kind != cron.KindShell:
		return fmt.Errorf("job %s is a prompt job: change its prompt, or remove it and add a shell job", j.ID)
	case a.Skills != nil && j.Kind != cron.KindPrompt:
		return errors.New("skills apply to prompt jobs only")
	}
	setGiven(&j.Name, a.Name)
	setGiven(&j.Schedule, a.Schedule)
	setGiven(&j.Prompt, a.Prompt)
	setGiven(&j.Command, a.Command)
	setGiven(&j.Skills, a.Skills)
	setGiven(&j.Enabled, a.Enabled)
	return nil
}

// changes lists the fields given, for the approval prompt.
func (a cronUpdateArgs) changes() string {
	var parts []string
	add := func(k string, v *string) {
		if v != nil {
			parts = append(parts, fmt.Sprintf("%s=%q", k, cronLine(*v, 200)))
		}
	}
	add("name", a.Name)
	add("schedule", a.Schedule)
	add("prompt", a.Prompt)
	add("command", a.Command)
	if a.Skills != nil {
		parts = append(parts, "skills="+strings.Join(*a.Skills, ","))
	}
	if a.Enabled != nil {
		parts = append(parts, fmt.Sprintf("enabled=%t", *a.Enabled))
	}
	return strings.Join(parts, " ")
}

func setGiven[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
