package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/subagents"
)

// TestAgentWorktreeApproval: making a subagent's worktree (a new branch
// and folder) is a write of git's and goes through the approval path of
// every call: asked under supervised — refused where nobody can answer,
// or when the user says no —, allowed under full autonomy or by
// auto_approve, refused by a deny rule on it (security review F7: it was
// made unasked under supervised, even by `run` without --yes).
func TestAgentWorktreeApproval(t *testing.T) {
	t.Parallel()
	supervised := permissions.Policy{Level: permissions.Supervised}
	tests := []struct {
		name    string
		policy  permissions.Policy
		rules   []string
		answers []Approval // nil: no approver
		made    bool
		refusal string
	}{
		{name: "supervised, nobody to ask", policy: supervised,
			refusal: `Subagent 'isolated' cannot run: isolation "worktree" (a new git worktree and branch) needs the user's approval and this session cannot ask`},
		{name: "supervised, the user says no", policy: supervised, answers: []Approval{Deny},
			refusal: `Subagent 'isolated' cannot run: the user denied its worktree (a new git worktree and branch).`},
		{name: "supervised, the user says yes", policy: supervised, answers: []Approval{ApproveOnce}, made: true},
		{name: "auto_approve git", policy: permissions.Policy{Level: permissions.Supervised, AutoApprove: []string{"git"}}, made: true},
		{name: "full", policy: permissions.Policy{Level: permissions.Full}, made: true},
		{name: "a deny rule", policy: permissions.Policy{Level: permissions.Full}, rules: []string{"deny", "Bash(git worktree *)"},
			refusal: `Subagent 'isolated' cannot run: Tool call denied by the deny rule "Bash(git worktree *)"`},
		{name: "an ask rule", policy: permissions.Policy{Level: permissions.Full}, rules: []string{"ask", "Bash(git worktree *)"},
			answers: []Approval{ApproveOnce}, made: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			made := 0
			var ap *scriptedApprover
			env := newEnv(t, []providertest.Response{
				{ToolCalls: []providertest.Call{callAgent("call_a", "isolated", "Change a.go.")}},
				{Text: "done"},
				{Text: "ok"},
			}, func(o *Options) {
				o.Policy = tt.policy
				o.Rules = parseRules(t, tt.rules...)
				if tt.answers != nil {
					ap = &scriptedApprover{answers: tt.answers}
					o.Approver = ap
				}
				o.Subagents = testSubagents(&subagents.Definition{Name: "isolated", Description: "d", Prompt: "You change code.", Isolation: subagents.IsolationWorktree, Source: skills.SourceBuiltin})
				o.Worktree = func(_ context.Context, label string) (*Worktree, error) {
					made++
					return &Worktree{Path: "/ws/.clawseed/worktrees/x-1", Branch: "clawseed/x-1", Tool: func(t Tool) Tool { return t }}, nil
				}
			})
			if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			if (made == 1) != tt.made || made > 1 {
				t.Errorf("made %d worktrees, want made=%v", made, tt.made)
			}
			if ap != nil {
				if len(ap.asked) != 1 || ap.asked[0].Tool != "git" || ap.asked[0].Class != permissions.ClassWrite ||
					ap.asked[0].Summary != `git worktree add (a new worktree and branch for subagent isolated: a task)` {
					t.Errorf("asked %+v, want one git write about the worktree", ap.asked)
				}
			}
			reqs := env.model.Requests()
			r := lastResults(reqs[len(reqs)-1])
			if tt.refusal != "" && (len(r) != 1 || !r[0].IsError || !strings.Contains(r[0].Content, tt.refusal)) {
				t.Errorf("Agent result = %+v, want %q", r, tt.refusal)
			}
			if tt.made && (len(r) != 1 || r[0].IsError) {
				t.Errorf("Agent result = %+v, want the subagent's", r)
			}
		})
	}
}
