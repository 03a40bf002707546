package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/skills"
)

// TestUntrustedWorkspaceSkills: in an untrusted workspace a project skill's
// `shell:` command and `context: fork` sub-agent are asked about even under
// full autonomy, refused when nobody can be asked, and an "always" answer
// approves only this once; user skills run as configured (§9.1).
func TestUntrustedWorkspaceSkills(t *testing.T) {
	t.Parallel()
	userStamp := &skills.Skill{Name: "user-stamp", Dir: "/home/skills/user-stamp", Source: skills.SourceUser, Description: "Stamps.",
		Shell: &skills.ShellSpec{Command: "date"}, Status: skills.StatusListed, UserInvocable: true}
	tests := []struct {
		name      string
		untrusted bool
		call      string
		approver  *scriptedApprover
		want      string
		wantErr   bool
		ran       bool
		asked     string
	}{
		{"trusted full runs unasked", false, `{"skill":"stamp"}`, nil, "2026-11-23", false, true, ""},
		{"untrusted full without approver refuses", true, `{"skill":"stamp"}`, nil, "comes from this workspace, which is not trusted", true, false, ""},
		{"untrusted full asks", true, `{"skill":"stamp"}`, &scriptedApprover{answers: []Approval{ApproveOnce}}, "2026-11-23", false, true,
			"skill stamp (from the untrusted workspace): date -u"},
		{"untrusted denied", true, `{"skill":"stamp"}`, &scriptedApprover{answers: []Approval{Deny}}, "The user denied running its command.", true, false,
			"skill stamp (from the untrusted workspace): date -u"},
		{"untrusted user skill runs unasked", true, `{"skill":"user-stamp"}`, nil, "2026-11-23", false, true, ""},
		{"untrusted fork without approver refuses", true, `{"skill":"reviewer"}`, nil, "its sub-agent needs the user's approval", true, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ran := false
			env := newEnv(t, []providertest.Response{skillCall(tt.call), {Text: "ok"}}, func(o *Options) {
				runnerSkills(userStamp)(o)
				o.Policy = permissions.Policy{Level: permissions.Full}
				o.UntrustedWorkspace = tt.untrusted
				o.SkillShell = func(context.Context, *skills.Skill, string, string) providers.ToolResult {
					ran = true
					return providers.ToolResult{Content: "2026-11-23"}
				}
				if tt.approver != nil {
					o.Approver = tt.approver
				}
			})
			if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			r := lastResults(env.model.Requests()[1])
			if len(r) != 1 || r[0].IsError != tt.wantErr || !strings.Contains(r[0].Content, tt.want) {
				t.Fatalf("result = %+v, want %q (error %v)", r, tt.want, tt.wantErr)
			}
			if ran != tt.ran {
				t.Errorf("ran = %v, want %v", ran, tt.ran)
			}
			if tt.approver != nil {
				if len(tt.approver.asked) != 1 || tt.approver.asked[0].Summary != tt.asked || !tt.approver.asked[0].Untrusted {
					t.Errorf("asked %+v, want %q", tt.approver.asked, tt.asked)
				}
			}
		})
	}
}

// TestUntrustedAlwaysIsOnce: "always" for an untrusted skill's command does
// not pre-approve the shell tool for the rest of the session.
func TestUntrustedAlwaysIsOnce(t *testing.T) {
	t.Parallel()
	ap := &scriptedApprover{answers: []Approval{ApproveAlways, Deny}}
	env := newEnv(t, []providertest.Response{
		skillCall(`{"skill":"stamp"}`),
		{ToolCalls: []providertest.Call{{Name: "shell", Args: `{"command":"ls"}`}}},
		{Text: "ok"},
	}, func(o *Options) {
		runnerSkills()(o)
		o.Policy = permissions.Policy{Level: permissions.Supervised}
		o.UntrustedWorkspace = true
		o.Approver = ap
		o.SkillShell = func(context.Context, *skills.Skill, string, string) providers.ToolResult {
			return providers.ToolResult{Content: "stamped"}
		}
	})
	if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if len(ap.asked) != 2 {
		t.Fatalf("asked %d times, want 2 (the later shell call is asked again): %+v", len(ap.asked), ap.asked)
	}
}
