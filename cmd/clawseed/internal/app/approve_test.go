package app

import (
	"errors"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
)

// TestYesApprover: run --yes approves the model's calls once — a control
// write, a call that asks for network or for no sandbox, a sandboxed call
// (without granting it the network) — and refuses an untrusted project
// skill's command.
func TestYesApprover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  agent.ApprovalRequest
		want agent.Approval
		err  error
	}{
		{"plain", agent.ApprovalRequest{Tool: "shell"}, agent.ApproveOnce, nil},
		{"network escalation", agent.ApprovalRequest{Tool: "shell", Escalation: permissions.EscalationNetwork}, agent.ApproveOnce, nil},
		{"no sandbox escalation", agent.ApprovalRequest{Tool: "shell", Escalation: permissions.EscalationNoSandbox}, agent.ApproveOnce, nil},
		{"sandboxed, network offered", agent.ApprovalRequest{Tool: "shell", Sandbox: permissions.SandboxNoNetwork, CanAllowNetwork: true}, agent.ApproveOnce, nil},
		{"control write", agent.ApprovalRequest{Tool: "file_write", Writes: []agent.ControlWrite{{Path: ".clawseed/config.toml"}}}, agent.ApproveOnce, nil},
		{"untrusted skill", agent.ApprovalRequest{Tool: "shell", Untrusted: true, Escalation: permissions.EscalationNetwork}, agent.Deny, ErrUntrustedYes},
	}
	for _, tt := range tests {
		got, err := YesApprover{}.Approve(t.Context(), tt.req)
		if got.Decision != tt.want || got.Reason != "" || !errors.Is(err, tt.err) {
			t.Errorf("%s: got %v, %v; want %v, %v", tt.name, got, err, tt.want, tt.err)
		}
	}
}
