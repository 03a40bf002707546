package permissions

import (
	"context"
	"testing"
)

// TestDecideSandboxed: under supervised autonomy auto_approve_sandboxed
// allows a sandboxed call unasked, and only that: always_ask still asks,
// an unsandboxed call still asks, read_only still refuses a non-read call,
// full allows regardless, and with the setting off a sandboxed call asks.
func TestDecideSandboxed(t *testing.T) {
	t.Parallel()
	on := Policy{Level: Supervised, AutoApproveSandboxed: true}
	tests := []struct {
		name   string
		policy Policy
		call   Call
		want   Decision
	}{
		{"sandboxed runs unasked", on, Call{Tool: "shell", Class: ClassExec, Sandboxed: true}, Allow},
		{"not sandboxed asks", on, Call{Tool: "shell", Class: ClassExec}, Ask},
		{"setting off asks", Policy{Level: Supervised}, Call{Tool: "shell", Class: ClassExec, Sandboxed: true}, Ask},
		{"zero level is supervised", Policy{AutoApproveSandboxed: true}, Call{Tool: "shell", Class: ClassExec, Sandboxed: true}, Allow},
		{"always_ask beats sandboxed", Policy{Level: Supervised, AutoApproveSandboxed: true, AlwaysAsk: []string{"sh*"}},
			Call{Tool: "shell", Class: ClassExec, Sandboxed: true}, Ask},
		{"always_ask beats sandboxed and pre-approved", Policy{Level: Supervised, AutoApproveSandboxed: true, AlwaysAsk: []string{"shell"}},
			Call{Tool: "shell", Class: ClassExec, Sandboxed: true, PreApproved: true}, Ask},
		{"read_only denies sandboxed exec", Policy{Level: ReadOnly, AutoApproveSandboxed: true}, Call{Tool: "shell", Class: ClassExec, Sandboxed: true}, Deny},
		{"full allows unsandboxed", Policy{Level: Full}, Call{Tool: "shell", Class: ClassExec}, Allow},
		{"full allows with always_ask", Policy{Level: Full, AlwaysAsk: []string{"shell"}}, Call{Tool: "shell", Class: ClassExec, Sandboxed: true}, Allow},
		{"pre-approved without the setting", Policy{Level: Supervised}, Call{Tool: "shell", Class: ClassExec, PreApproved: true}, Allow},
		{"auto_approve without the setting", Policy{Level: Supervised, AutoApprove: []string{"shell"}}, Call{Tool: "shell", Class: ClassExec}, Allow},
	}
	for _, tt := range tests {
		if got := tt.policy.DecideCall(tt.call); got != tt.want {
			t.Errorf("%s: DecideCall(%+v) = %v, want %v", tt.name, tt.call, got, tt.want)
		}
		if !tt.call.Sandboxed {
			if got := tt.policy.Decide(tt.call.Tool, tt.call.Class, tt.call.PreApproved); got != tt.want {
				t.Errorf("%s: Decide differs from DecideCall: %v", tt.name, got)
			}
		}
	}
}

// TestWithNetwork: only a context derived with WithNetwork allows the
// network, and deriving one leaves its parent as it was.
func TestWithNetwork(t *testing.T) {
	t.Parallel()
	parent := context.Background()
	child := WithNetwork(parent)
	if NetworkAllowed(parent) || !NetworkAllowed(child) {
		t.Errorf("NetworkAllowed: parent %v, child %v; want false, true", NetworkAllowed(parent), NetworkAllowed(child))
	}
	grandchild, cancel := context.WithCancel(child)
	defer cancel()
	if !NetworkAllowed(grandchild) {
		t.Error("a context derived from WithNetwork's lost it")
	}
}
