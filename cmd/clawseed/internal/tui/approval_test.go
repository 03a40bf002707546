package tui

import (
	"context"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
)

// An approval says how a command runs in the OS sandbox (issue 21):
// sandboxed without network (offering it for this call), sandboxed with
// the network the user's config gives, not sandboxed, or what the call
// asks beyond the sandbox.
func TestApprovalSandboxNote(t *testing.T) {
	for _, tc := range []struct {
		name   string
		req    agent.ApprovalRequest
		want   string
		golden string
	}{
		{"no network", agent.ApprovalRequest{Sandbox: permissions.SandboxNoNetwork, CanAllowNetwork: true}, "(sandboxed, no network)", "approval-sandboxed"},
		{"with network", agent.ApprovalRequest{Sandbox: permissions.SandboxNetwork}, "(sandboxed, with network)", ""},
		{"not sandboxed", agent.ApprovalRequest{Sandbox: permissions.SandboxNone}, "(not sandboxed)", ""},
		{"asks for the network", agent.ApprovalRequest{Sandbox: permissions.SandboxNetwork, Escalation: permissions.EscalationNetwork}, "(asks for network access)", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, 72, 16, Options{})
			req := tc.req
			req.Tool, req.Args = "shell", `{"command":"npm test"}`
			got := make(chan agent.ApprovalAnswer, 1)
			go func() {
				a, _ := h.ui.Approve(context.Background(), req)
				got <- a
			}()
			screen := h.waitFor(tc.want)
			if tc.golden != "" {
				h.golden(tc.golden, screen)
			}
			h.typeText("n")
			if a := <-got; a.Decision != agent.Deny {
				t.Fatalf("answer %+v", a)
			}
		})
	}
}
