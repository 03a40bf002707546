package repl

import (
	"bytes"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
)

// TestApproverSandbox: the question says how the call runs in the OS
// sandbox (issue 21) and offers "[w] with network" only for a call
// sandboxed without it; a call that asks for more than the sandbox gives
// is not offered "always"; answers the question does not take are asked
// again; control characters are escaped.
func TestApproverSandbox(t *testing.T) {
	t.Parallel()
	sandboxed := agent.ApprovalRequest{Tool: "shell", Summary: "npm test", Sandboxed: true, CanAllowNetwork: true}
	network := agent.ApprovalRequest{Tool: "shell", Summary: "curl example.com", Escalation: permissions.EscalationNetwork}
	bare := agent.ApprovalRequest{Tool: "shell", Summary: "sudo make install", Escalation: permissions.EscalationNoSandbox}
	tests := []struct {
		name   string
		req    agent.ApprovalRequest
		lines  []string
		want   agent.Approval
		prompt string
		out    string
	}{
		{"sandboxed yes", sandboxed, []string{"y"}, agent.ApproveOnce,
			"Allow shell (sandboxed, no network): npm test? [y]es / [n]o / [a]lways for this tool / [w] with network ", ""},
		{"sandboxed w", sandboxed, []string{"w"}, agent.ApproveNetwork,
			"Allow shell (sandboxed, no network): npm test? [y]es / [n]o / [a]lways for this tool / [w] with network ", ""},
		{"sandboxed with network", sandboxed, []string{" With Network "}, agent.ApproveNetwork,
			"Allow shell (sandboxed, no network): npm test? [y]es / [n]o / [a]lways for this tool / [w] with network ", ""},
		{"sandboxed always", sandboxed, []string{"x", "a"}, agent.ApproveAlways,
			"Allow shell (sandboxed, no network): npm test? [y]es / [n]o / [a]lways for this tool / [w] with network ",
			"Please answer y, n, a or w.\n"},
		{"sandboxed, network not offered", agent.ApprovalRequest{Tool: "shell", Summary: "ls", Sandboxed: true}, []string{"w", "n"}, agent.Deny,
			"Allow shell (sandboxed, no network): ls? [y]es / [n]o / [a]lways for this tool ", "Please answer y, n or a.\n"},
		{"network escalation", network, []string{"a", "w", "y"}, agent.ApproveOnce,
			"Allow shell (asks for network access): curl example.com? [y]es / [n]o ",
			"Please answer y or n (a call that asks for more than the sandbox allows is asked about every time).\n" +
				"Please answer y or n (a call that asks for more than the sandbox allows is asked about every time).\n"},
		{"no sandbox escalation", bare, []string{"no"}, agent.Deny,
			"Allow shell (asks to run without the sandbox): sudo make install? [y]es / [n]o ", ""},
		{"other escalation, escaped", agent.ApprovalRequest{Tool: "sh\x1bell", Summary: "x\x07", Escalation: "the \x1b[31mGPU"}, []string{"y"}, agent.ApproveOnce,
			`Allow sh\x1bell (asks for the \x1b[31mGPU): x\x07? [y]es / [n]o `, ""},
		{"unsandboxed", agent.ApprovalRequest{Tool: "shell", Summary: "ls"}, []string{"w", "y"}, agent.ApproveOnce,
			"Allow shell: ls? [y]es / [n]o / [a]lways for this tool ", "Please answer y, n or a.\n"},
		{"ask rule", agent.ApprovalRequest{Tool: "shell", Summary: "git push", Rule: `ask rule "Bash(git push *)" in /ws/.claude/settings.json`},
			[]string{"a", "y"}, agent.ApproveOnce, "Allow shell: git push? [y]es / [n]o ",
			"(asked by the ask rule \"Bash(git push *)\" in /ws/.claude/settings.json)\n" +
				"Please answer y or n (an ask rule asks about this call every time).\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rd := &scriptReader{lines: tt.lines}
			var out bytes.Buffer
			got, err := NewApprover(rd, &out, nil).Approve(t.Context(), tt.req)
			if err != nil || got != tt.want {
				t.Errorf("answers %q: got %v, %v; want %v", tt.lines, got, err, tt.want)
			}
			for _, p := range rd.prompts {
				if p != tt.prompt {
					t.Errorf("prompt\n got %q\nwant %q", p, tt.prompt)
				}
			}
			if out.String() != tt.out {
				t.Errorf("output %q, want %q", out.String(), tt.out)
			}
		})
	}
}
