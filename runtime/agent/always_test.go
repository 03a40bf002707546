package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// TestAlwaysIsExact: an "always" answer approves for the session exactly
// the command approved (a session allow rule), never the whole tool; the
// request says what "always" covers, and leaves it out where it would
// change nothing or the call is asked every time; a "no" with a reason
// reaches the model.
func TestAlwaysIsExact(t *testing.T) {
	t.Parallel()
	supervised := permissions.Policy{Level: permissions.Supervised}
	tests := []struct {
		name    string
		policy  permissions.Policy
		answers []Approval
		reason  string
		calls   []providertest.Call
		asked   []string // commands asked about, in order
		always  []string // each request's Always
		ran     []string
		refusal string // in a result
		rules   []string
	}{
		{name: "always covers that command only", policy: supervised,
			answers: []Approval{ApproveAlways, Deny},
			calls:   []providertest.Call{sh("go test ./...", "off"), sh("go test ./...", "off"), sh("rm -rf build", "off")},
			asked:   []string{"go test ./...", "rm -rf build"}, always: []string{"`go test ./...`", "`rm -rf build`"},
			ran: []string{"go test ./...", "go test ./..."}, refusal: "The user denied the shell call.", rules: []string{"Bash(go test ./...)"}},
		{name: "not another command of the same tool", policy: supervised,
			answers: []Approval{ApproveAlways, ApproveOnce},
			calls:   []providertest.Call{sh("ls", "off"), sh("ls -la", "off")},
			asked:   []string{"ls", "ls -la"}, always: []string{"`ls`", "`ls -la`"}, ran: []string{"ls", "ls -la"}, rules: []string{"Bash(ls)"}},
		{name: "a line that cannot be read is not offered always", policy: supervised,
			answers: []Approval{ApproveAlways, ApproveOnce},
			calls:   []providertest.Call{sh("ls; rm x", "off"), sh("ls; rm x", "off")},
			asked:   []string{"ls; rm x", "ls; rm x"}, always: []string{"", ""}, ran: []string{"ls; rm x", "ls; rm x"}},
		{name: "always_ask: not offered", policy: permissions.Policy{Level: permissions.Supervised, AlwaysAsk: []string{"shell"}},
			answers: []Approval{ApproveAlways, ApproveOnce},
			calls:   []providertest.Call{sh("ls", "off"), sh("ls", "off")},
			asked:   []string{"ls", "ls"}, always: []string{"", ""}, ran: []string{"ls", "ls"}},
		{name: "an escalation: not offered", policy: supervised,
			answers: []Approval{ApproveAlways, ApproveOnce},
			calls:   []providertest.Call{sh("curl x", "net"), sh("curl x", "net")},
			asked:   []string{"curl x", "curl x"}, always: []string{"", ""}, ran: []string{"curl x", "curl x"}},
		{name: "a reason reaches the model", policy: supervised, answers: []Approval{Deny}, reason: "run make test instead",
			calls: []providertest.Call{sh("go test ./...", "off")}, asked: []string{"go test ./..."}, always: []string{"`go test ./...`"},
			refusal: "The user denied the shell call. The user says: run make test instead"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tool := &sandboxFake{}
			ap := &scriptedApprover{answers: tt.answers, reason: tt.reason}
			env := newEnv(t, []providertest.Response{{ToolCalls: tt.calls}, {Text: "ok"}}, func(o *Options) {
				o.Tools = []Tool{tool}
				o.Policy = tt.policy
				o.Approver = ap
			})
			if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			var asked, always []string
			for _, r := range ap.asked {
				asked, always = append(asked, r.Summary), append(always, r.Always)
			}
			if !slices.Equal(asked, tt.asked) || !slices.Equal(always, tt.always) {
				t.Errorf("asked about %q offering always %q, want %q offering %q", asked, always, tt.asked, tt.always)
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
			var rules []string
			for _, r := range env.agent.AlwaysRules() {
				rules = append(rules, r.Text)
			}
			if !slices.Equal(rules, tt.rules) {
				t.Errorf("session rules %q, want %q", rules, tt.rules)
			}
			env.agent.Reset(context.Background())
			if n := len(env.agent.AlwaysRules()); n != 0 {
				t.Errorf("/clear kept %d session rules", n)
			}
		})
	}
}
