package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

func parseRules(t *testing.T, kinded ...string) []permissions.Rule {
	t.Helper()
	var out []permissions.Rule
	for i := 0; i+1 < len(kinded); i += 2 {
		r, err := permissions.ParseRule(permissions.RuleKind(kinded[i]), kinded[i+1], permissions.RuleBases{Workspace: "/ws", Home: "/home/u"})
		if err != nil {
			t.Fatal(err)
		}
		r.Source = "/ws/.claude/settings.json"
		out = append(out, r)
	}
	return out
}

// TestPermissionRules pins where permission rules meet the autonomy
// policy (authorize): deny refuses whatever else says, ask asks whatever
// else says (refused when nobody can answer, never remembered as
// "always"), allow pre-approves but never past the level, always_ask, a
// control-path write or an escalation, and a prefix rule never covers a
// second command.
func TestPermissionRules(t *testing.T) {
	t.Parallel()
	supervised := permissions.Policy{Level: permissions.Supervised}
	full := permissions.Policy{Level: permissions.Full}
	tests := []struct {
		name    string
		policy  permissions.Policy
		rules   []string
		answers []Approval // nil: no approver
		pre     []string
		calls   []providertest.Call
		asked   []string
		ran     []string
		refusal string
		rule    string // the Rule of the first request
	}{
		{name: "deny at full", policy: full, rules: []string{"deny", "Bash(rm *)"},
			calls: []providertest.Call{sh("rm -rf x", "off"), sh("ls", "off")}, ran: []string{"ls"},
			refusal: `Tool call denied by the deny rule "Bash(rm *)" in /ws/.claude/settings.json.`},
		{name: "deny beats an answer yes", policy: supervised, rules: []string{"deny", "Bash(rm:*)"}, answers: []Approval{},
			calls: []providertest.Call{sh("rm x", "off")}, refusal: `denied by the deny rule "Bash(rm:*)"`},
		{name: "deny beats allowed-tools", policy: supervised, rules: []string{"deny", "Bash"}, pre: []string{"Bash"},
			calls: []providertest.Call{sh("ls", "off")}, refusal: `denied by the deny rule "Bash"`},
		{name: "deny beats auto_approve", policy: permissions.Policy{Level: permissions.Supervised, AutoApprove: []string{"shell"}},
			rules: []string{"deny", "shell(ls)"}, calls: []providertest.Call{sh("ls", "off")}, refusal: `denied by the deny rule "shell(ls)"`},
		{name: "deny beats an escalation", policy: full, rules: []string{"deny", "Bash(curl *)"}, answers: []Approval{},
			calls: []providertest.Call{sh("curl x", "net")}, refusal: `denied by the deny rule`},
		{name: "a hidden line under a deny rule", policy: full, rules: []string{"deny", "Bash(rm *)"},
			calls: []providertest.Call{sh("eval $X", "off")}, refusal: `cannot be checked against the deny rule "Bash(rm *)"`},
		{name: "ask at full asks", policy: full, rules: []string{"ask", "Bash(git push *)"}, answers: []Approval{ApproveOnce},
			calls: []providertest.Call{sh("git push origin", "off")}, asked: []string{"git push origin"}, ran: []string{"git push origin"},
			rule: `ask rule "Bash(git push *)" in /ws/.claude/settings.json`},
		{name: "ask nobody to answer", policy: full, rules: []string{"ask", "Bash(git push *)"},
			calls:   []providertest.Call{sh("git push", "off")},
			refusal: `the ask rule "Bash(git push *)" in /ws/.claude/settings.json asks the user before every such shell call, and this session cannot ask`},
		{name: "ask beats an allow rule", policy: supervised, rules: []string{"allow", "Bash(git *)", "ask", "Bash(git push *)"},
			answers: []Approval{Deny}, calls: []providertest.Call{sh("git status", "off"), sh("git push", "off")},
			asked: []string{"git push"}, ran: []string{"git status"}, refusal: "The user denied the shell call."},
		{name: "ask: always counts once", policy: supervised, rules: []string{"ask", "Bash(git push *)"},
			answers: []Approval{ApproveAlways, Deny}, calls: []providertest.Call{sh("git push a", "off"), sh("git push b", "off")},
			asked: []string{"git push a", "git push b"}, ran: []string{"git push a"}},
		{name: "ask a read-class call", policy: supervised, rules: []string{"ask", "file_read"},
			answers: []Approval{Deny}, calls: []providertest.Call{{Name: "file_read", Args: `{"path":"a"}`}},
			asked: []string{"a"}, refusal: "The user denied the file_read call."},
		{name: "allow skips the prompt", policy: supervised, rules: []string{"allow", "Bash(echo:*)"},
			calls: []providertest.Call{sh("echo hi", "off")}, ran: []string{"echo hi"}},
		{name: "allow never covers a second command", policy: supervised, rules: []string{"allow", "Bash(echo:*)"},
			calls:   []providertest.Call{sh("echo x && rm y", "off")},
			refusal: "Tool call denied: shell needs the user's approval and this session cannot ask"},
		{name: "allow not past always_ask", policy: permissions.Policy{Level: permissions.Supervised, AlwaysAsk: []string{"shell"}},
			rules: []string{"allow", "Bash"}, calls: []providertest.Call{sh("ls", "off")},
			refusal: "Tool call denied: shell needs the user's approval"},
		{name: "allow not past a control write", policy: supervised, rules: []string{"allow", "Bash"},
			calls:   []providertest.Call{sh("echo x > .clawseed/config.toml", "writes:.clawseed/config.toml")},
			refusal: "writes .clawseed/config.toml"},
		{name: "allow not past read_only", policy: permissions.Policy{Level: permissions.ReadOnly}, rules: []string{"allow", "Bash"},
			calls: []providertest.Call{sh("ls", "off")}, refusal: "Unknown tool: shell"},
		{name: "Read deny", policy: full, rules: []string{"deny", "Read(./secrets/**)"},
			calls: []providertest.Call{{Name: "file_read", Args: `{"path":"secrets/key"}`}, {Name: "file_read", Args: `{"path":"docs/a"}`}},
			ran:   []string{"read docs/a"}, refusal: `denied by the deny rule "Read(./secrets/**)"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tool := &sandboxFake{}
			reader := &readFake{}
			var ap *scriptedApprover
			env := newEnv(t, []providertest.Response{{ToolCalls: tt.calls}, {Text: "ok"}}, func(o *Options) {
				o.Tools = []Tool{tool, reader}
				o.Policy = tt.policy
				o.ControlPath = controlPath
				o.PreApproved = tt.pre
				o.Rules = parseRules(t, tt.rules...)
				o.Prompt.Workspace = "/ws"
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
				if tt.rule != "" && (len(ap.asked) == 0 || ap.asked[0].Rule != tt.rule) {
					t.Errorf("request rule = %+v, want %q", ap.asked, tt.rule)
				}
			}
			if !slices.Equal(asked, tt.asked) {
				t.Errorf("asked about %q, want %q", asked, tt.asked)
			}
			ran := append(slices.Clone(tool.ran), reader.ran...)
			if !slices.Equal(ran, tt.ran) {
				t.Errorf("ran %q, want %q", ran, tt.ran)
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

// readFake is file_read: it reports the file it reads, and records the
// files its read filter hides of "a", "secrets/b".
type readFake struct {
	ran    []string
	hidden []string
}

func (f *readFake) Spec() providers.ToolSpec {
	return providers.ToolSpec{Name: "file_read", Description: "read", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (f *readFake) Class() permissions.Class { return permissions.ClassRead }

func (f *readFake) path(args json.RawMessage) string {
	var a struct{ Path string }
	_ = json.Unmarshal(args, &a)
	return a.Path
}

func (f *readFake) Summary(args json.RawMessage) string { return f.path(args) }

func (f *readFake) PermissionSubject(args json.RawMessage) permissions.Subject {
	return permissions.Subject{Reads: []string{f.path(args)}}
}

func (f *readFake) Run(ctx context.Context, args json.RawMessage) providers.ToolResult {
	f.ran = append(f.ran, "read "+f.path(args))
	for _, p := range []string{"/ws/a", "/ws/secrets/b"} {
		if permissions.ReadHidden(ctx, p) {
			f.hidden = append(f.hidden, p)
		}
	}
	return providers.ToolResult{Content: "ok"}
}

// TestPermissionRulesReadFilter: a call that reads gets the filter of the
// files deny and ask rules of reading cover.
func TestPermissionRulesReadFilter(t *testing.T) {
	t.Parallel()
	reader := &readFake{}
	env := newEnv(t, []providertest.Response{{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{"path":"."}`}}}, {Text: "ok"}}, func(o *Options) {
		o.Tools = []Tool{reader}
		o.Rules = parseRules(t, "deny", "Read(./secrets/**)")
		o.Prompt.Workspace = "/ws"
	})
	if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(reader.hidden, []string{"/ws/secrets/b"}) {
		t.Errorf("hidden %q", reader.hidden)
	}
}

// TestPermissionRulesSkill: Skill(name) rules apply to the model's Skill
// calls: deny refuses activation, ask asks (refused with nobody to ask),
// a pattern covers "name args".
func TestPermissionRulesSkill(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		rules   []string
		answers []Approval
		call    string
		want    string
	}{
		{"deny", []string{"deny", "Skill(greeter)"}, nil, `{"skill":"greeter","args":"Ada"}`,
			`Skill 'greeter' was not activated: denied by the deny rule "Skill(greeter)" in /ws/.claude/settings.json.`},
		{"deny other", []string{"deny", "Skill(greet)"}, nil, `{"skill":"greeter"}`,
			"Skill 'greeter' activated. Full instructions have been added to your system prompt."},
		{"ask nobody", []string{"ask", "Skill(greeter *)"}, nil, `{"skill":"greeter","args":"Ada"}`,
			`Skill 'greeter' was not activated: the ask rule "Skill(greeter *)" in /ws/.claude/settings.json asks the user first, and this session cannot ask.`},
		{"ask yes", []string{"ask", "Skill(greeter *)"}, []Approval{ApproveOnce}, `{"skill":"greeter","args":"Ada"}`,
			"Skill 'greeter' activated. Full instructions have been added to your system prompt."},
		{"ask no", []string{"ask", "Skill(greeter Ada)"}, []Approval{Deny}, `{"skill":"greeter","args":"Ada"}`,
			"The user denied activating skill 'greeter'."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, []providertest.Response{skillCall(tt.call), {Text: "ok"}}, func(o *Options) {
				o.Rules = parseRules(t, tt.rules...)
				if tt.answers != nil {
					o.Approver = &scriptedApprover{answers: tt.answers}
				}
			})
			if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			rs := lastResults(env.model.Requests()[1])
			if len(rs) != 1 || rs[0].Content != tt.want {
				t.Errorf("result = %+v, want %q", rs, tt.want)
			}
		})
	}
}

// TestAgentCallName pins the one name of the subagent an Agent call runs:
// subagent_type trimmed, general-purpose when left out or blank, the same
// for the rules (PermissionSubject), the approval (Summary) and, spelled
// out by Normalize, the hooks (security review F4).
func TestAgentCallName(t *testing.T) {
	tests := []struct{ args, name, normal string }{
		{`{"prompt":"p","description":"d"}`, "general-purpose", `{"description":"d","prompt":"p","subagent_type":"general-purpose"}`},
		{`{"prompt":"p","subagent_type":"  "}`, "general-purpose", `{"prompt":"p","subagent_type":"general-purpose"}`},
		{`{"prompt":"p","subagent_type":" Explore "}`, "Explore", `{"prompt":"p","subagent_type":"Explore"}`},
		{`{"subagent_type":"Explore","prompt":"p"}`, "Explore", `{"subagent_type":"Explore","prompt":"p"}`},
		{`{"subagent_type":7}`, "general-purpose", `{"subagent_type":7}`}, // refused by the run
	}
	var tool agentCallTool
	for _, tt := range tests {
		args := json.RawMessage(tt.args)
		if got := tool.PermissionSubject(args).Name; got != tt.name {
			t.Errorf("PermissionSubject(%s) = %q, want %q", tt.args, got, tt.name)
		}
		if got := tool.Summary(args); !strings.HasPrefix(got, "subagent "+tt.name+": ") {
			t.Errorf("Summary(%s) = %q, want the name %q", tt.args, got, tt.name)
		}
		if got := string(tool.Normalize(args)); got != tt.normal {
			t.Errorf("Normalize(%s) = %s, want %s", tt.args, got, tt.normal)
		}
	}
}
