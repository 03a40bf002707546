package tools

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
)

// TestShellSandboxMode: what the shell tool tells the agent about a call
// (issue 21), for each sandbox state and argument.
func TestShellSandboxMode(t *testing.T) {
	start := Starter(func(_ context.Context, cmd *exec.Cmd, network bool) (func() error, error) {
		return cmd.Wait, cmd.Start()
	})
	cases := []struct {
		name       string
		opts       CoreOptions
		args       string
		state      permissions.SandboxState
		escalation string
	}{
		{"no sandbox", CoreOptions{}, `{"command":"ls"}`, permissions.SandboxNone, ""},
		{"no sandbox, network asked", CoreOptions{}, `{"command":"ls","sandbox":"network"}`, permissions.SandboxNone, ""},
		{"no sandbox, off asked", CoreOptions{}, `{"command":"ls","sandbox":"off"}`, permissions.SandboxNone, ""},
		{"starter without a sandbox", CoreOptions{Start: start}, `{"command":"ls"}`, permissions.SandboxNone, ""},
		{"sandboxed", CoreOptions{Start: start, Sandboxed: true}, `{"command":"ls"}`, permissions.SandboxNoNetwork, ""},
		{"network asked", CoreOptions{Start: start, Sandboxed: true}, `{"command":"ls","sandbox":"network"}`, permissions.SandboxNetwork, permissions.EscalationNetwork},
		{"off asked", CoreOptions{Start: start, Sandboxed: true}, `{"command":"ls","sandbox":"off"}`, permissions.SandboxNone, permissions.EscalationNoSandbox},
		{"network on in config", CoreOptions{Start: start, Sandboxed: true, Network: true}, `{"command":"ls"}`, permissions.SandboxNetwork, ""},
		{"network on, network asked", CoreOptions{Start: start, Sandboxed: true, Network: true}, `{"command":"ls","sandbox":"network"}`, permissions.SandboxNetwork, ""},
		{"network on, off asked", CoreOptions{Start: start, Sandboxed: true, Network: true}, `{"command":"ls","sandbox":"off"}`, permissions.SandboxNone, permissions.EscalationNoSandbox},
	}
	for _, c := range cases {
		sh := newShell(&Sandbox{Workspace: t.TempDir()}, c.opts).(*shellTool)
		s, e := sh.SandboxMode(json.RawMessage(c.args))
		if s != c.state || e != c.escalation {
			t.Errorf("%s: got (%v, %q), want (%v, %q)", c.name, s, e, c.state, c.escalation)
		}
	}
}

// TestShellStartsThroughTheStarter: a call runs through the starter with
// the network it may have: none by default, the network when the call
// asked for it (and was approved) or the user allowed it for the call, and
// not through the starter at all with sandbox "off".
func TestShellStartsThroughTheStarter(t *testing.T) {
	type seen struct {
		called, network bool
	}
	for _, c := range []struct {
		name string
		args string
		ctx  func(context.Context) context.Context
		want seen
	}{
		{"default", `{"command":"true"}`, nil, seen{true, false}},
		{"network asked", `{"command":"true","sandbox":"network"}`, nil, seen{true, true}},
		{"network allowed by the user", `{"command":"true"}`, permissions.WithNetwork, seen{true, true}},
		{"off", `{"command":"true","sandbox":"off"}`, nil, seen{false, false}},
	} {
		var got seen
		start := Starter(func(_ context.Context, cmd *exec.Cmd, network bool) (func() error, error) {
			got = seen{true, network}
			return cmd.Wait, cmd.Start()
		})
		sh := newShell(&Sandbox{Workspace: t.TempDir()}, CoreOptions{Start: start, Sandboxed: true, Environ: []string{"PATH=/usr/bin:/bin"}, MaxOutputChars: 1000, ShellTimeout: 10e9})
		ctx := context.Background()
		if c.ctx != nil {
			ctx = c.ctx(ctx)
		}
		res := sh.Run(ctx, json.RawMessage(c.args))
		if res.IsError || got != c.want {
			t.Errorf("%s: result %q, starter %+v, want %+v", c.name, res.Content, got, c.want)
		}
	}
}

// TestShellSandboxHint: a confined command refused something gets a
// sentence saying how to ask for more.
func TestShellSandboxHint(t *testing.T) {
	start := Starter(func(_ context.Context, cmd *exec.Cmd, network bool) (func() error, error) {
		return cmd.Wait, cmd.Start()
	})
	sh := newShell(&Sandbox{Workspace: t.TempDir()}, CoreOptions{Start: start, Sandboxed: true, Environ: []string{"PATH=/usr/bin:/bin"}, MaxOutputChars: 1000, ShellTimeout: 10e9})
	res := sh.Run(context.Background(), json.RawMessage(`{"command":"echo 'x: Permission denied' >&2; exit 1"}`))
	if !strings.Contains(res.Content, `call again with sandbox "network"`) {
		t.Errorf("no hint: %q", res.Content)
	}
	res = sh.Run(context.Background(), json.RawMessage(`{"command":"echo 'other failure' >&2; exit 1"}`))
	if strings.Contains(res.Content, "OS sandbox") {
		t.Errorf("hint on an unrelated failure: %q", res.Content)
	}
}
