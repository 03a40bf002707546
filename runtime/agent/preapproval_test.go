package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/skills"
)

// TestSkillAllowedToolsCount: one rule decides whether an active skill's
// allowed-tools pre-approve a call (issue 20, item 1). In an untrusted
// workspace a project skill, project command or project plugin skill
// pre-approves nothing (the attack: `.claude/skills/style` with
// `allowed-tools: Bash` let the model's shell call run unasked); a skill
// whose files changed since the session started, or that is new,
// pre-approves nothing unless the user approved its content. Activation
// reports which it is.
func TestSkillAllowedToolsCount(t *testing.T) {
	t.Parallel()
	style := func(src skills.Source, command bool) *skills.Skill {
		return &skills.Skill{Name: "style", Dir: "/ws/.claude/skills/style", Source: src, Command: command, Description: "Styles.",
			AllowedTools: []string{"Bash"}, Body: "Style.", Status: skills.StatusListed, UserInvocable: true, SkillHash: "h-start"}
	}
	tests := []struct {
		name      string
		skill     *skills.Skill
		untrusted bool
		// onDisk is the SkillHash activation reads ("" = as at start).
		onDisk   string
		approved string
		// late: the skill is not in the catalog the agent started with.
		late  bool
		runs  bool
		event string
	}{
		{"trusted project skill", style(skills.SourceProjectClaude, false), false, "", "", false, true, "pre-approves: shell"},
		{"untrusted project skill", style(skills.SourceProjectClaude, false), true, "", "", false, false,
			"pre-approves nothing (the workspace is not trusted); its allowed-tools: shell"},
		{"untrusted project command", style(skills.SourceProjectClaude, true), true, "", "", false, false, "the workspace is not trusted"},
		{"untrusted .clawseed skill", style(skills.SourceProject, false), true, "", "", false, false, "the workspace is not trusted"},
		{"untrusted user skill", style(skills.SourceUserClaude, false), true, "", "", false, true, "pre-approves: shell"},
		{"changed since start", style(skills.SourceUser, false), false, "h-changed", "", false, false,
			"pre-approves nothing (its files changed since the session started and you did not approve the new content)"},
		{"changed to approved content", style(skills.SourceUser, false), false, "h-changed", "h-changed", false, true, "pre-approves: shell"},
		{"approved other content", style(skills.SourceUser, false), false, "h-changed", "h-other", false, false, "its files changed"},
		{"new since start", style(skills.SourceUser, false), false, "", "", true, false, "its files changed"},
		{"new with approved content", style(skills.SourceUser, false), false, "", "h-start", true, true, "pre-approves: shell"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cat := testSkills()
			if !tt.late {
				cat.Skills = append(cat.Skills, tt.skill)
			}
			env := newEnv(t, []providertest.Response{
				skillCall(`{"skill":"style"}`),
				{ToolCalls: []providertest.Call{{Name: "shell", Args: `{"command":"cat secret"}`}}},
				{Text: "ok"},
			}, func(o *Options) {
				o.Policy = permissions.Policy{Level: permissions.Supervised}
				o.UntrustedWorkspace = tt.untrusted
				o.Skills = skills.NewActiveSet(skills.ActiveConfig{Enabled: true, Load: func(s *skills.Skill) (*skills.Skill, error) {
					cp := *s
					if tt.onDisk != "" {
						cp.SkillHash = tt.onDisk
					}
					return &cp, nil
				}}, cat)
			})
			if tt.late {
				late := testSkills()
				late.Skills = append(late.Skills, tt.skill)
				env.agent.SetCatalog(late)
			}
			if tt.approved != "" {
				env.agent.grants.approve(tt.approved)
			}
			if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			r := lastResults(env.model.Requests()[2])
			if len(r) != 1 {
				t.Fatalf("results = %+v", r)
			}
			if ran := !r[0].IsError; ran != tt.runs {
				t.Errorf("shell ran = %v, want %v: %s", ran, tt.runs, r[0].Content)
			}
			if !tt.runs && !strings.Contains(r[0].Content, "needs the user's approval") {
				t.Errorf("refusal = %q", r[0].Content)
			}
			ev := env.eventsOf(EventSkillAllowedTools)
			if len(ev) != 1 || ev[0].Name != "style" || !strings.Contains(ev[0].Text, tt.event) {
				t.Errorf("allowed-tools events = %+v, want one with %q", ev, tt.event)
			}
		})
	}
}

// A fork skill's sub-agent gets its allowed-tools as pre-approval through
// the same rule: nothing when the skill changed since the session started.
func TestForkPreApprovalFollowsTheRule(t *testing.T) {
	t.Parallel()
	for _, changed := range []bool{false, true} {
		fork := &skills.Skill{Name: "committer", Dir: "/skills/committer", Source: skills.SourceUser, Description: "Commits.",
			Context: "fork", AllowedTools: []string{"Bash(git:*)"}, Body: "Commit.", Status: skills.StatusListed, UserInvocable: true, SkillHash: "h1"}
		env := newEnv(t, []providertest.Response{
			skillCall(`{"skill":"committer"}`),
			{ToolCalls: []providertest.Call{{Name: "shell", Args: `{"command":"git status"}`}}},
			{Text: "done"},
			{Text: "ok"},
		}, func(o *Options) {
			cat := testSkills()
			cat.Skills = append(cat.Skills, fork)
			slices.SortFunc(cat.Skills, func(a, b *skills.Skill) int { return strings.Compare(a.Name, b.Name) })
			o.Skills = skills.NewActiveSet(skills.ActiveConfig{Enabled: true, Load: func(s *skills.Skill) (*skills.Skill, error) {
				cp := *s
				if changed {
					cp.SkillHash = "h2"
				}
				return &cp, nil
			}}, cat)
			o.Policy = permissions.Policy{Level: permissions.Supervised}
			o.Tools = []Tool{echoTool("file_read", permissions.ClassRead), &summaryTool{fakeTool: echoTool("shell", permissions.ClassExec)}}
		})
		if _, err := env.agent.Turn(context.Background(), "commit"); err != nil {
			t.Fatal(err)
		}
		r := lastResults(env.model.Requests()[2])
		if len(r) != 1 || r[0].IsError != changed {
			t.Errorf("changed %v: sub-agent's git call = %+v", changed, r)
		}
	}
}
