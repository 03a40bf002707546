package repl

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/runtime/agent"
)

// TestApprovePlan: an exit_plan_mode request shows the plan (escaped) and
// takes y, e (the plan typed anew up to a line with only "."; at once:
// the model's), n or t with a reason; other answers are asked again.
func TestApprovePlan(t *testing.T) {
	t.Parallel()
	req := agent.ApprovalRequest{Tool: "exit_plan_mode", Plan: "# Fix\n\n1. Read \x1b[31mmain.go\n2. Fix it"}
	for _, tt := range []struct {
		name  string
		lines []string
		want  agent.ApprovalAnswer
	}{
		{"yes", []string{"y"}, agent.ApprovalAnswer{Decision: agent.ApproveOnce}},
		{"again", []string{"a", "yes"}, agent.ApprovalAnswer{Decision: agent.ApproveOnce}},
		{"edit", []string{"e", "1. Read main.go", "2. Test", " . "}, agent.ApprovalAnswer{Decision: agent.ApproveOnce, Plan: "1. Read main.go\n2. Test"}},
		{"edit kept", []string{"edit", "."}, agent.ApprovalAnswer{Decision: agent.ApproveOnce}},
		{"no", []string{"n"}, agent.ApprovalAnswer{Decision: agent.Deny}},
		{"end of input", nil, agent.ApprovalAnswer{Decision: agent.Deny}},
		{"tell", []string{"t", " add tests "}, agent.ApprovalAnswer{Decision: agent.Deny, Reason: "add tests"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			got, err := NewApprover(&scriptReader{lines: tt.lines}, &out, nil).Approve(t.Context(), req)
			if err != nil || got != tt.want {
				t.Errorf("answers %q: got %+v, %v; want %+v", tt.lines, got, err, tt.want)
			}
			if !strings.HasPrefix(out.String(), "The model's plan:\n  # Fix\n  \n  1. Read \\x1b[31mmain.go\n  2. Fix it\n") {
				t.Errorf("output %q", out.String())
			}
		})
	}
}
