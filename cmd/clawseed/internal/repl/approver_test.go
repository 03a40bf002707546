package repl

import (
	"bytes"
	"errors"
	"io"
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
	sandboxed := agent.ApprovalRequest{Tool: "shell", Summary: "npm test", Sandbox: permissions.SandboxNoNetwork, CanAllowNetwork: true, Always: "`npm test`"}
	network := agent.ApprovalRequest{Tool: "shell", Summary: "curl example.com", Sandbox: permissions.SandboxNetwork, Escalation: permissions.EscalationNetwork}
	bare := agent.ApprovalRequest{Tool: "shell", Summary: "sudo make install", Sandbox: permissions.SandboxNone, Escalation: permissions.EscalationNoSandbox}
	tests := []struct {
		name   string
		req    agent.ApprovalRequest
		lines  []string
		want   agent.Approval
		prompt string
		out    string
	}{
		{"sandboxed yes", sandboxed, []string{"y"}, agent.ApproveOnce,
			"Allow shell (sandboxed, no network): npm test? [y]es / [n]o / [a]lways allow `npm test` this session / [w] with network / [t] no, and tell the model why ", ""},
		{"sandboxed w", sandboxed, []string{"w"}, agent.ApproveNetwork,
			"Allow shell (sandboxed, no network): npm test? [y]es / [n]o / [a]lways allow `npm test` this session / [w] with network / [t] no, and tell the model why ", ""},
		{"sandboxed with network", sandboxed, []string{" With Network "}, agent.ApproveNetwork,
			"Allow shell (sandboxed, no network): npm test? [y]es / [n]o / [a]lways allow `npm test` this session / [w] with network / [t] no, and tell the model why ", ""},
		{"sandboxed always", sandboxed, []string{"x", "a"}, agent.ApproveAlways,
			"Allow shell (sandboxed, no network): npm test? [y]es / [n]o / [a]lways allow `npm test` this session / [w] with network / [t] no, and tell the model why ",
			"Please answer y, n, a, w or t.\n"},
		{"sandboxed, network not offered", agent.ApprovalRequest{Tool: "shell", Summary: "ls", Sandbox: permissions.SandboxNoNetwork, Always: "`ls`"}, []string{"w", "n"}, agent.Deny,
			"Allow shell (sandboxed, no network): ls? [y]es / [n]o / [a]lways allow `ls` this session / [t] no, and tell the model why ", "Please answer y, n, a or t.\n"},
		{"network escalation", network, []string{"a", "w", "y"}, agent.ApproveOnce,
			"Allow shell (asks for network access): curl example.com? [y]es / [n]o / [t] no, and tell the model why ",
			"Please answer y, n or t (a call that asks for more than the sandbox allows is asked about every time).\n" +
				"Please answer y, n or t (a call that asks for more than the sandbox allows is asked about every time).\n"},
		{"no sandbox escalation", bare, []string{"no"}, agent.Deny,
			"Allow shell (asks to run without the sandbox): sudo make install? [y]es / [n]o / [t] no, and tell the model why ", ""},
		{"other escalation, escaped", agent.ApprovalRequest{Tool: "sh\x1bell", Summary: "x\x07", Escalation: "the \x1b[31mGPU"}, []string{"y"}, agent.ApproveOnce,
			`Allow sh\x1bell (asks for the \x1b[31mGPU): x\x07? [y]es / [n]o / [t] no, and tell the model why `, ""},
		{"sandboxed, with the network of the config", agent.ApprovalRequest{Tool: "shell", Summary: "npm install", Sandbox: permissions.SandboxNetwork, Always: "`npm install`"}, []string{"w", "y"}, agent.ApproveOnce,
			"Allow shell (sandboxed, with network): npm install? [y]es / [n]o / [a]lways allow `npm install` this session / [t] no, and tell the model why ", "Please answer y, n, a or t.\n"},
		{"not sandboxed", agent.ApprovalRequest{Tool: "shell", Summary: "ls", Sandbox: permissions.SandboxNone, Always: "`ls`"}, []string{"w", "y"}, agent.ApproveOnce,
			"Allow shell (not sandboxed): ls? [y]es / [n]o / [a]lways allow `ls` this session / [t] no, and tell the model why ", "Please answer y, n, a or t.\n"},
		{"a tool that starts no command", agent.ApprovalRequest{Tool: "file_write", Summary: "a.go", Always: "writes to a.go"}, []string{"y"}, agent.ApproveOnce,
			"Allow file_write: a.go? [y]es / [n]o / [a]lways allow writes to a.go this session / [t] no, and tell the model why ", ""},
		{"always not offered", agent.ApprovalRequest{Tool: "shell", Summary: "ls; rm x"}, []string{"a", "y"}, agent.ApproveOnce,
			"Allow shell: ls; rm x? [y]es / [n]o / [t] no, and tell the model why ", "Please answer y, n or t.\n"},
		{"always label escaped", agent.ApprovalRequest{Tool: "file_edit", Summary: "a\x1b.go", Always: "edits to a\x1b.go"}, []string{"a"}, agent.ApproveAlways,
			`Allow file_edit: a\x1b.go? [y]es / [n]o / [a]lways allow edits to a\x1b.go this session / [t] no, and tell the model why `, ""},
		{"ask rule", agent.ApprovalRequest{Tool: "shell", Summary: "git push", Rule: `ask rule "Bash(git push *)" in /ws/.claude/settings.json`},
			[]string{"a", "y"}, agent.ApproveOnce, "Allow shell: git push? [y]es / [n]o / [t] no, and tell the model why ",
			"(asked by the ask rule \"Bash(git push *)\" in /ws/.claude/settings.json)\n" +
				"Please answer y, n or t (an ask rule asks about this call every time).\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rd := &scriptReader{lines: tt.lines}
			var out bytes.Buffer
			got, err := NewApprover(rd, &out, nil).Approve(t.Context(), tt.req)
			if err != nil || got.Decision != tt.want || got.Reason != "" {
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

// TestApproverTell: `t` denies and asks for the reason on a second line,
// which the answer carries to the model; an empty reason is a plain no,
// and Ctrl-C at the reason interrupts the turn.
func TestApproverTell(t *testing.T) {
	t.Parallel()
	req := agent.ApprovalRequest{Tool: "shell", Summary: "go test ./...", Always: "`go test ./...`"}
	tests := []struct {
		name    string
		lines   []string
		want    agent.ApprovalAnswer
		err     error
		prompts int
	}{
		{"reason", []string{"t", "  use make test  "}, agent.ApprovalAnswer{Decision: agent.Deny, Reason: "use make test"}, nil, 2},
		{"tell", []string{"TELL", "no"}, agent.ApprovalAnswer{Decision: agent.Deny, Reason: "no"}, nil, 2},
		{"empty reason", []string{"t", ""}, agent.ApprovalAnswer{Decision: agent.Deny}, nil, 2},
		{"end of input", []string{"t"}, agent.ApprovalAnswer{Decision: agent.Deny}, nil, 2},
		{"interrupt", []string{"t", "^C"}, agent.ApprovalAnswer{Decision: agent.Deny}, ErrInterrupt, 2},
		{"plain no", []string{"n"}, agent.ApprovalAnswer{Decision: agent.Deny}, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rd := &scriptReader{lines: tt.lines}
			ap := NewApprover(rd, io.Discard, nil)
			interrupted := false
			ap.Interrupt = func() { interrupted = true }
			got, err := ap.Approve(t.Context(), req)
			if got != tt.want || !errors.Is(err, tt.err) || interrupted != (tt.err != nil) {
				t.Errorf("got %+v, %v (interrupted %v); want %+v, %v", got, err, interrupted, tt.want, tt.err)
			}
			if len(rd.prompts) != tt.prompts || tt.prompts == 2 && rd.prompts[1] != reasonPrompt {
				t.Errorf("prompts %q", rd.prompts)
			}
		})
	}
}
