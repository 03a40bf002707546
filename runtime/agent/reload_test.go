package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/skills"
)

// TestReloadBeforeRequest: a catalog the reloader hands over is in the next
// request's index, the change is reported once as "+new, -gone, ~changed",
// and requests without a reload keep the same system prompt.
func TestReloadBeforeRequest(t *testing.T) {
	t.Parallel()
	var due []*skills.Catalog
	var wrote []bool
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "shell", Args: `{"command":"touch x"}`}}},
		{Text: "one"},
		{Text: "two"},
	}, func(o *Options) {
		o.Reload = func(_ context.Context, w bool) (*skills.Catalog, bool) {
			wrote = append(wrote, w)
			if len(due) == 0 {
				return nil, false
			}
			cat := due[0]
			due = due[1:]
			return cat, true
		}
	})
	next := testSkills()
	next.Skills = append(next.Skills[:1], &skills.Skill{Name: "fresh", Description: "Brand new.", Body: "x", Status: skills.StatusListed},
		next.Skills[1])
	next.Skills[2] = &skills.Skill{Name: "greeter", Description: "Greets warmly.", Body: "y", Status: skills.StatusListed}
	// searcher is gone; greeter changed; fresh is new; a hidden one is not news.
	next.Skills = append(next.Skills, &skills.Skill{Name: "zz-hidden", Status: skills.StatusHidden, Reason: "no file matches paths", Body: "z"})
	if _, err := env.agent.Turn(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	due = append(due, next)
	if _, err := env.agent.Turn(context.Background(), "second"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	if reqs[0].System != reqs[1].System {
		t.Error("the prompt changed without a reload")
	}
	if !strings.Contains(reqs[2].System, `<skill name="fresh"`) || strings.Contains(reqs[2].System, `name="searcher"`) {
		t.Errorf("reloaded index not in request 3:\n%s", reqs[2].System)
	}
	ev := env.eventsOf(EventSkillsReloaded)
	if len(ev) != 1 || ev[0].Text != "+fresh, -searcher, ~greeter" {
		t.Fatalf("reload events = %+v", ev)
	}
	// The shell call (exec class) succeeded: the check after it says so.
	if len(wrote) != 3 || wrote[0] || !wrote[1] || wrote[2] {
		t.Errorf("wrote flags = %v, want [false true false]", wrote)
	}
}

// TestActivateReloadsChangedSkill: /activate NAME on an active skill whose
// file changed re-reads it (§4.13); otherwise it stays as activated.
func TestActivateReloadsChangedSkill(t *testing.T) {
	t.Parallel()
	body := "Version one."
	env := newEnv(t, nil, func(o *Options) {
		o.Skills = skills.NewActiveSet(skills.ActiveConfig{
			Enabled: true,
			Load: func(s *skills.Skill) (*skills.Skill, error) {
				cp := *s
				cp.Body = body
				return &cp, nil
			},
		}, testSkills())
		o.Policy = permissions.Policy{Level: permissions.Full}
	})
	ctx := context.Background()
	if out := env.agent.ActivateSkill(ctx, "auto-coder", ""); out.IsError {
		t.Fatal(out.Text)
	}
	if out := env.agent.ActivateSkill(ctx, "auto-coder", ""); !strings.Contains(out.Text, "already active") {
		t.Fatalf("unchanged: %q", out.Text)
	}
	body = "Version two."
	out := env.agent.ActivateSkill(ctx, "auto-coder", "")
	if out.IsError || !strings.Contains(out.Text, "reloaded") || !strings.Contains(env.agent.SystemPrompt(), "Version two.") {
		t.Fatalf("changed: %+v\n%s", out, env.agent.SystemPrompt())
	}
}
