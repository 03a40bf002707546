package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/skills"
)

// sandboxFake is a shell that implements sandboxedTool: a call runs
// sandboxed without network unless its arguments ask for the network
// ("net") or for no sandbox ("bare"), the user's config gives commands the
// network ("online": sandboxed with it, asking nothing), or the sandbox is
// off ("off": not sandboxed, asking nothing, as with [sandbox].enabled =
// false). A call
// with "writes" names a file it writes (fileWriter). It records each call
// it ran, "+net" when the context allowed the network.
type sandboxFake struct {
	mu  sync.Mutex
	ran []string
}

type sandboxArgs struct {
	Command        string
	Net, Bare, Off bool
	Online         bool
	Writes         string
}

func (f *sandboxFake) Spec() providers.ToolSpec {
	return providers.ToolSpec{Name: "shell", Description: "shell", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (f *sandboxFake) Class() permissions.Class { return permissions.ClassExec }

func (f *sandboxFake) Summary(args json.RawMessage) string { return parseSandboxArgs(args).Command }

func (f *sandboxFake) Run(ctx context.Context, args json.RawMessage) providers.ToolResult {
	ran := parseSandboxArgs(args).Command
	if permissions.NetworkAllowed(ctx) {
		ran += "+net"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ran = append(f.ran, ran)
	return providers.ToolResult{Content: "ran " + ran}
}

func (f *sandboxFake) SandboxMode(args json.RawMessage) (permissions.SandboxState, string) {
	a := parseSandboxArgs(args)
	switch {
	case a.Off:
		return permissions.SandboxNone, ""
	case a.Net:
		return permissions.SandboxNetwork, permissions.EscalationNetwork
	case a.Bare:
		return permissions.SandboxNone, permissions.EscalationNoSandbox
	case a.Online:
		return permissions.SandboxNetwork, ""
	}
	return permissions.SandboxNoNetwork, ""
}

func (f *sandboxFake) Writes(args json.RawMessage) []permissions.FileWrite {
	if w := parseSandboxArgs(args).Writes; w != "" {
		return []permissions.FileWrite{{Path: w, Detail: "a redirection"}}
	}
	return nil
}

func parseSandboxArgs(args json.RawMessage) sandboxArgs {
	var a sandboxArgs
	_ = json.Unmarshal(args, &a)
	return a
}

// sh is a shell call; mode is "", "net", "bare", "online", "off", or
// "writes:PATH".
func sh(command, mode string) providertest.Call {
	m := map[string]any{"command": command}
	switch path, isWrite := strings.CutPrefix(mode, "writes:"); {
	case isWrite:
		m["writes"] = path
	case mode != "":
		m[mode] = true
	}
	b, _ := json.Marshal(m)
	return providertest.Call{Name: "shell", Args: string(b)}
}

// TestSandboxedApproval pins the precedence of auto_approve_sandboxed and
// of calls that ask for more than the sandbox gives (issue 21):
// auto_approve_sandboxed runs a sandboxed call unasked under supervised,
// and overrides neither always_ask, nor a control-path write, nor an
// untrusted project skill's command, nor denied_tools or read_only; a call
// that asks for network or no sandbox is asked at every level, after
// "always", under auto_approve and a skill's allowed-tools, and refused
// with the ways to allow it when nobody can be asked.
func TestSandboxedApproval(t *testing.T) {
	t.Parallel()
	supervised := permissions.Policy{Level: permissions.Supervised, AutoApproveSandboxed: true}
	tests := []struct {
		name    string
		policy  permissions.Policy
		answers []Approval // nil: no approver
		pre     []string   // a fork-style PreApproved list
		calls   []providertest.Call
		asked   []string // commands asked about, in order
		ran     []string
		refusal string // in the last call's result
	}{
		{name: "sandboxed runs unasked", policy: supervised,
			calls: []providertest.Call{sh("make test", "")}, ran: []string{"make test"}},
		{name: "setting off asks", policy: permissions.Policy{Level: permissions.Supervised},
			calls: []providertest.Call{sh("make test", "")}, refusal: "Tool call denied: shell needs the user's approval and this session cannot ask"},
		{name: "sandbox off asks", policy: supervised, answers: []Approval{ApproveOnce},
			calls: []providertest.Call{sh("make test", "off")}, asked: []string{"make test"}, ran: []string{"make test"}},
		{name: "always_ask beats it", policy: permissions.Policy{Level: permissions.Supervised, AutoApproveSandboxed: true, AlwaysAsk: []string{"shell"}},
			answers: []Approval{Deny}, calls: []providertest.Call{sh("make test", "")}, asked: []string{"make test"}, refusal: "The user denied the shell call."},
		{name: "a control-path write beats it", policy: supervised, answers: []Approval{Deny},
			calls: []providertest.Call{sh("echo x > .clawseed/config.toml", "writes:.clawseed/config.toml")},
			asked: []string{"echo x > .clawseed/config.toml"}, refusal: "The user denied the shell call."},
		{name: "denied_tools hide it", policy: permissions.Policy{Level: permissions.Supervised, AutoApproveSandboxed: true, Denied: []string{"shell"}},
			calls: []providertest.Call{sh("make test", "")}, refusal: "Unknown tool: shell"},
		{name: "read_only hides it", policy: permissions.Policy{Level: permissions.ReadOnly, AutoApproveSandboxed: true},
			calls: []providertest.Call{sh("make test", "")}, refusal: "Unknown tool: shell"},
		{name: "full runs sandboxed unasked", policy: permissions.Policy{Level: permissions.Full},
			calls: []providertest.Call{sh("make test", "")}, ran: []string{"make test"}},

		// Escalations.
		{name: "network at full, nobody to ask", policy: permissions.Policy{Level: permissions.Full},
			calls: []providertest.Call{sh("curl x", "net"), sh("make", "")}, ran: []string{"make"},
			refusal: "Tool call denied: this shell call asks for network access, beyond what the sandbox allows commands, so the user must approve it each time"},
		{name: "no sandbox at full asks", policy: permissions.Policy{Level: permissions.Full}, answers: []Approval{ApproveOnce},
			calls: []providertest.Call{sh("sudo x", "bare")}, asked: []string{"sudo x"}, ran: []string{"sudo x"}},
		{name: "network under auto_approve asks", policy: permissions.Policy{Level: permissions.Supervised, AutoApprove: []string{"shell"}, AutoApproveSandboxed: true},
			answers: []Approval{Deny}, calls: []providertest.Call{sh("curl x", "net")}, asked: []string{"curl x"}, refusal: "The user denied the shell call."},
		{name: "network under allowed-tools asks", policy: supervised, pre: []string{"Bash"},
			answers: []Approval{ApproveOnce}, calls: []providertest.Call{sh("curl x", "net")}, asked: []string{"curl x"}, ran: []string{"curl x"}},
		{name: "an earlier always does not cover it", policy: permissions.Policy{Level: permissions.Supervised},
			answers: []Approval{ApproveAlways, Deny}, calls: []providertest.Call{sh("ls", ""), sh("ls", ""), sh("curl x", "net")},
			asked: []string{"ls", "curl x"}, ran: []string{"ls", "ls"}, refusal: "The user denied the shell call."},
		{name: "its always is once", policy: supervised,
			answers: []Approval{ApproveAlways, Deny}, calls: []providertest.Call{sh("curl a", "net"), sh("curl b", "net")},
			asked: []string{"curl a", "curl b"}, ran: []string{"curl a"}, refusal: "The user denied the shell call."},
		{name: "read_only refuses it", policy: permissions.Policy{Level: permissions.ReadOnly},
			calls: []providertest.Call{sh("curl x", "net")}, refusal: "Unknown tool: shell"},

		// Allow network for this command.
		{name: "allow network is for that call only", policy: permissions.Policy{Level: permissions.Supervised},
			answers: []Approval{ApproveNetwork, ApproveOnce}, calls: []providertest.Call{sh("npm install", ""), sh("npm test", "")},
			asked: []string{"npm install", "npm test"}, ran: []string{"npm install+net", "npm test"}},
		{name: "allow network not offered runs as asked", policy: permissions.Policy{Level: permissions.Supervised},
			answers: []Approval{ApproveNetwork}, calls: []providertest.Call{sh("make", "off")},
			asked: []string{"make"}, ran: []string{"make"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tool := &sandboxFake{}
			var ap *scriptedApprover
			env := newEnv(t, []providertest.Response{{ToolCalls: tt.calls}, {Text: "ok"}}, func(o *Options) {
				o.Tools = []Tool{tool}
				o.Policy = tt.policy
				o.ControlPath = controlPath
				o.PreApproved = tt.pre
				if tt.answers != nil {
					ap = &scriptedApprover{answers: tt.answers}
					o.Approver = ap
				}
			})
			if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			var asked []string
			if ap != nil {
				for _, r := range ap.asked {
					asked = append(asked, r.Summary)
				}
				if len(ap.answers) != 0 {
					t.Errorf("answers left unused: %v", ap.answers)
				}
			}
			if !slices.Equal(asked, tt.asked) {
				t.Errorf("asked about %q, want %q", asked, tt.asked)
			}
			if !slices.Equal(tool.ran, tt.ran) {
				t.Errorf("ran %q, want %q", tool.ran, tt.ran)
			}
			rs := lastResults(env.model.Requests()[1])
			if tt.refusal != "" && !slices.ContainsFunc(rs, func(r providers.ToolResult) bool {
				return r.IsError && strings.Contains(r.Content, tt.refusal)
			}) {
				t.Errorf("no result holds %q: %+v", tt.refusal, rs)
			}
		})
	}
}

// TestSandboxedRequest: the approval request says how the call runs in the
// sandbox — without network, with it, not at all — what it asks for,
// and offers the network only to a call sandboxed without it. A call with
// the network from the user's config is asked (auto_approve_sandboxed
// covers only calls without it), and says it is sandboxed.
func TestSandboxedRequest(t *testing.T) {
	t.Parallel()
	type shown struct {
		Sandbox         permissions.SandboxState
		Escalation      string
		CanAllowNetwork bool
	}
	tool := &sandboxFake{}
	ap := &scriptedApprover{answers: []Approval{ApproveOnce, ApproveOnce, ApproveOnce, ApproveOnce, ApproveOnce}}
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{sh("a", ""), sh("b", "net"), sh("c", "bare"), sh("d", "off"), sh("e", "online")}}, {Text: "ok"},
	}, func(o *Options) {
		o.Tools = []Tool{tool}
		o.Policy = permissions.Policy{Level: permissions.Supervised}
		o.Approver = ap
	})
	if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	want := []shown{
		{permissions.SandboxNoNetwork, "", true},
		{permissions.SandboxNetwork, permissions.EscalationNetwork, false},
		{permissions.SandboxNone, permissions.EscalationNoSandbox, false},
		{permissions.SandboxNone, "", false},
		{permissions.SandboxNetwork, "", false},
	}
	var got []shown
	for _, r := range ap.asked {
		got = append(got, shown{r.Sandbox, r.Escalation, r.CanAllowNetwork})
	}
	if !slices.Equal(got, want) {
		t.Errorf("requests %+v, want %+v", got, want)
	}
}

// TestEscalationRefusalSaysHow: the refusal of an escalation nobody can
// approve names --yes, chat, and the setting of the user's own config
// that allows it for every command.
func TestEscalationRefusalSaysHow(t *testing.T) {
	t.Parallel()
	for esc, want := range map[string]string{
		permissions.EscalationNetwork:   `run with --yes to approve such calls, answer the question in ` + "`clawseed chat`" + `, or set [sandbox].network = "on" in your own config file`,
		permissions.EscalationNoSandbox: `or run it with --no-sandbox, or set [sandbox].enabled = false in your own config file`,
	} {
		if got := escalationCannotAsk("shell", esc); !strings.Contains(got, want) || !strings.Contains(got, "asks for "+esc) {
			t.Errorf("escalationCannotAsk(%q) = %s\nwant it to contain %s", esc, got, want)
		}
	}
}

// TestSandboxedUntrustedSkill: auto_approve_sandboxed does not run an
// untrusted project skill's command unasked.
func TestSandboxedUntrustedSkill(t *testing.T) {
	t.Parallel()
	ran := false
	env := newEnv(t, []providertest.Response{skillCall(`{"skill":"stamp"}`), {Text: "ok"}}, func(o *Options) {
		runnerSkills()(o)
		o.Tools = append(o.Tools[:0:0], &sandboxFake{})
		o.Policy = permissions.Policy{Level: permissions.Supervised, AutoApproveSandboxed: true}
		o.UntrustedWorkspace = true
		o.SkillShell = func(context.Context, *skills.Skill, string, string) providers.ToolResult {
			ran = true
			return providers.ToolResult{Content: "stamped"}
		}
	})
	if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	r := lastResults(env.model.Requests()[1])
	if ran || len(r) != 1 || !strings.Contains(r[0].Content, "comes from this workspace, which is not trusted") {
		t.Errorf("ran %v, result %+v", ran, r)
	}
}
