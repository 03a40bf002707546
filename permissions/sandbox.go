package permissions

import "context"

// What a call asks for beyond the OS sandbox (issue 21): the escalation a
// sandboxed tool reports for it (runtime/agent's sandboxedTool). Such a
// call is asked about every time, whatever the autonomy level,
// auto_approve or an earlier "always" say. Another short phrase is shown
// as "asks for PHRASE".
const (
	// EscalationNetwork: the call asks to use the network, which the
	// sandbox keeps off.
	EscalationNetwork = "network access"
	// EscalationNoSandbox: the call asks to run outside the sandbox.
	EscalationNoSandbox = "no sandbox"
)

// SandboxState is how one call of a tool that starts commands runs in the
// OS sandbox (issue 21), once approved: the approval prompt says so, and
// only [SandboxNoNetwork] without an escalation may run unasked
// (auto_approve_sandboxed).
type SandboxState int

const (
	// SandboxUnknown: the tool starts no command, or does not say.
	SandboxUnknown SandboxState = iota
	// SandboxNone: the command runs without the sandbox (it is off, this
	// platform has none, or the call asks to leave it).
	SandboxNone
	// SandboxNoNetwork: confined, without network.
	SandboxNoNetwork
	// SandboxNetwork: confined, with the network ([sandbox].network = "on",
	// or the call asks for it).
	SandboxNetwork
)

// networkKey is the context key of [WithNetwork].
type networkKey struct{}

// WithNetwork returns a context that lets the one tool call run with it
// use the network in the sandbox: the user answered "allow network for
// this command". The agent derives it for that call only.
func WithNetwork(ctx context.Context) context.Context {
	return context.WithValue(ctx, networkKey{}, true)
}

// NetworkAllowed reports whether ctx comes from [WithNetwork]: the call
// running with it may use the network whatever [sandbox].network says.
func NetworkAllowed(ctx context.Context) bool {
	on, _ := ctx.Value(networkKey{}).(bool)
	return on
}
