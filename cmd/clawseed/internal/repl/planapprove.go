package repl

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/runtime/agent"
)

// planPrompt asks about a plan the model presents (exit_plan_mode).
const planPrompt = "Approve this plan? [y]es / [e]dit it / [n]o, keep planning / [t] no, and tell the model why "

// editEnd ends the lines of an edited plan.
const editEnd = "."

// approvePlan asks about the plan of an exit_plan_mode request: shown
// whole, then yes (plan mode ends), edit (the plan typed anew, line by
// line up to a line holding only "."; an empty edit keeps the model's),
// no, or no with a reason.
func (a *Approver) approvePlan(ctx context.Context, req agent.ApprovalRequest) (agent.ApprovalAnswer, error) {
	fmt.Fprintln(a.out, "The model's plan:")
	fmt.Fprint(a.out, PlanLines(req.Plan))
	for {
		line, err := a.read(ctx, planPrompt)
		if err != nil {
			return agent.ApprovalAnswer{Decision: agent.Deny}, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return agent.ApprovalAnswer{Decision: agent.ApproveOnce}, nil
		case "n", "no", "":
			return agent.ApprovalAnswer{Decision: agent.Deny}, nil
		case "t":
			reason, err := a.read(ctx, reasonPrompt)
			if err != nil {
				return agent.ApprovalAnswer{Decision: agent.Deny}, err
			}
			return agent.ApprovalAnswer{Decision: agent.Deny, Reason: strings.TrimSpace(reason)}, nil
		case "e", "edit":
			plan, err := a.readPlan(ctx)
			if err != nil {
				return agent.ApprovalAnswer{Decision: agent.Deny}, err
			}
			return agent.ApprovalAnswer{Decision: agent.ApproveOnce, Plan: plan}, nil
		}
		fmt.Fprintln(a.out, "Please answer y, e, n or t.")
	}
}

// readPlan reads an edited plan, up to a line holding only ".".
func (a *Approver) readPlan(ctx context.Context) (string, error) {
	fmt.Fprintln(a.out, "Type the plan as it should be; a line with only \".\" ends it (at once: keep the model's).")
	var lines []string
	for {
		line, err := a.read(ctx, "plan> ")
		if err != nil {
			return "", err
		}
		if strings.TrimSpace(line) == editEnd {
			return strings.TrimSpace(strings.Join(lines, "\n")), nil
		}
		lines = append(lines, line)
	}
}

// PlanLines renders a plan for the terminal, each line indented and
// escaped (the model wrote it).
func PlanLines(plan string) string {
	var b strings.Builder
	for line := range strings.Lines(strings.TrimSpace(plan)) {
		b.WriteString("  " + termtext.EscapeLine(strings.TrimRight(line, "\r\n")) + "\n")
	}
	return b.String()
}
