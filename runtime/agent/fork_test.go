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
	"github.com/clawseed/clawseed/skills"
)

// runnerSkills adds a fork skill and a shell skill to the test catalog.
func runnerSkills(extra ...*skills.Skill) func(*Options) {
	return func(o *Options) {
		cat := testSkills()
		cat.Skills = append(cat.Skills,
			&skills.Skill{Name: "reviewer", Dir: "/skills/reviewer", Source: skills.SourceProject, Description: "Reviews.",
				Context: "fork", Body: "Review PR $ARGUMENTS carefully.", Status: skills.StatusListed, UserInvocable: true},
			&skills.Skill{Name: "stamp", Dir: "/skills/stamp", Source: skills.SourceProject, Description: "Stamps.",
				Shell: &skills.ShellSpec{Command: "date -u"}, Status: skills.StatusListed, UserInvocable: true},
		)
		cat.Skills = append(cat.Skills, extra...)
		slices.SortFunc(cat.Skills, func(a, b *skills.Skill) int { return strings.Compare(a.Name, b.Name) })
		o.Skills.SetCatalog(cat)
	}
}

func TestForkSkillRunsSubAgent(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{
		skillCall(`{"skill":"reviewer","args":"123"}`),
		// The sub-agent: one tool call, then its answer.
		{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{"path":"a.go"}`}}, Usage: &providers.Usage{InputTokens: 100, OutputTokens: 10}},
		{Text: "LGTM with one nit.", Usage: &providers.Usage{InputTokens: 120, OutputTokens: 5}},
		// The main model sees the result.
		{Text: "The review says LGTM."},
	}, func(o *Options) {
		runnerSkills()(o)
		o.Recorder = &memRecorder{}
	})
	res, err := env.agent.Turn(context.Background(), "review PR 123")
	if err != nil {
		t.Fatal(err)
	}
	if res.Final != "The review says LGTM." {
		t.Fatalf("final = %q", res.Final)
	}
	reqs := env.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	sub := reqs[1]
	if !strings.Contains(sub.System, `<active_skill name="reviewer">`) || !strings.Contains(sub.System, "Review PR 123 carefully.") {
		t.Errorf("sub-agent system prompt lacks the skill body:\n%s", sub.System)
	}
	if strings.Contains(sub.System, "<available_skills>") {
		t.Error("sub-agent system prompt has the skill index")
	}
	var names []string
	for _, s := range sub.Tools {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "file_read" {
		t.Errorf("sub-agent tools = %v, want only the read-class file_read (no Skill, no shell)", names)
	}
	if got := sub.Messages[0].Text(); !strings.HasSuffix(got, "] 123") {
		t.Errorf("sub-agent user message = %q", got)
	}
	results := lastResults(reqs[3])
	if len(results) != 1 || results[0].IsError || results[0].Content != "Result of skill 'reviewer':\nLGTM with one nit." {
		t.Fatalf("Skill result = %+v", results)
	}
	// The sub-agent's transcript is not in the main history.
	for _, m := range env.agent.History() {
		if strings.Contains(m.Text(), "LGTM with one nit.") && m.Role == providers.RoleAssistant {
			t.Error("sub-agent answer leaked into the main history")
		}
	}
	if u := env.agent.Usage(); u.InputTokens < 220 {
		t.Errorf("session usage %+v does not include the fork's", u)
	}
	rec := env.agent.opts.Recorder.(*memRecorder)
	if len(rec.forks) != 1 || rec.forks[0].Skill != "reviewer" || rec.forks[0].Status != StatusOK || len(rec.forks[0].Messages) != 4 {
		t.Fatalf("fork records = %+v", rec.forks)
	}
	var parented int
	for _, ev := range env.eventsOf(EventToolCall) {
		if ev.Name == "file_read" {
			if ev.Parent == "" {
				t.Error("sub-agent tool call without parent")
			}
			parented++
		}
	}
	if parented != 1 {
		t.Errorf("%d sub-agent tool calls seen", parented)
	}
	if env.agent.Skills().IsActive("reviewer") {
		t.Error("a fork skill became active")
	}
}

func TestForkAllowedToolsAndPreApproval(t *testing.T) {
	t.Parallel()
	fork := &skills.Skill{Name: "committer", Dir: "/skills/committer", Source: skills.SourceProject, Description: "Commits.",
		Context: "fork", AllowedTools: []string{"Bash(git:*)"}, Body: "Commit.", Status: skills.StatusListed, UserInvocable: true}
	env := newEnv(t, []providertest.Response{
		skillCall(`{"skill":"committer"}`),
		{ToolCalls: []providertest.Call{{Name: "shell", Args: `{"command":"git status"}`}}},
		{Text: "done"},
		{Text: "ok"},
	}, func(o *Options) {
		runnerSkills(fork)(o)
		o.Policy = permissions.Policy{Level: permissions.Supervised}
		o.Tools = []Tool{echoTool("file_read", permissions.ClassRead), &summaryTool{fakeTool: echoTool("shell", permissions.ClassExec)}}
	})
	if _, err := env.agent.Turn(context.Background(), "commit"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	var names []string
	for _, s := range reqs[1].Tools {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "shell" {
		t.Errorf("fork tools = %v, want [shell]", names)
	}
	// No approver, supervised: only the skill's allowed-tools let git run.
	if r := lastResults(reqs[2]); len(r) != 1 || r[0].IsError {
		t.Fatalf("pre-approved git call = %+v", r)
	}
	if got := sub(lastResults(reqs[3])); got != "Result of skill 'committer':\ndone" {
		t.Errorf("result = %q", got)
	}
}

func sub(r []providers.ToolResult) string {
	if len(r) == 0 {
		return ""
	}
	return r[0].Content
}

// summaryTool gives a fake shell the shell tool's summary: the command.
type summaryTool struct{ *fakeTool }

func (s *summaryTool) Summary(args json.RawMessage) string {
	var a struct{ Command string }
	json.Unmarshal(args, &a)
	return a.Command
}

func TestForkCannotNest(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{
		skillCall(`{"skill":"reviewer"}`),
		// The sub-agent tries to call Skill: it has no such tool.
		{ToolCalls: []providertest.Call{{Name: "Skill", Args: `{"skill":"reviewer"}`}}},
		{Text: "could not"},
		{Text: "ok"},
	}, runnerSkills())
	if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	if r := lastResults(reqs[2]); len(r) != 1 || !r[0].IsError || !strings.Contains(r[0].Content, "Unknown tool: Skill") {
		t.Fatalf("nested Skill call = %+v", r)
	}
}

func TestForkCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	env := newEnv(t, []providertest.Response{
		skillCall(`{"skill":"reviewer"}`),
		{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{}`}}},
	}, func(o *Options) {
		runnerSkills()(o)
		o.Tools = []Tool{&fakeTool{name: "file_read", class: permissions.ClassRead, run: func(context.Context, json.RawMessage) providers.ToolResult {
			cancel()
			return providers.ToolResult{Content: "x"}
		}}}
	})
	res, err := env.agent.Turn(ctx, "go")
	if err == nil || res.Status != StatusCancelled {
		t.Fatalf("status %q err %v", res.Status, err)
	}
	h := env.agent.History()
	results := h[len(h)-1].ToolResults()
	if len(results) != 1 || results[0].Content != cancelledText {
		t.Fatalf("history ends with %+v", h[len(h)-1])
	}
}

func TestShellSkill(t *testing.T) {
	t.Parallel()
	var ran []string
	shell := func(_ context.Context, s *skills.Skill, args, session string) providers.ToolResult {
		ran = append(ran, s.Name+"|"+args+"|"+session)
		return providers.ToolResult{Content: "2026-11-23"}
	}
	tests := []struct {
		name    string
		level   permissions.Level
		tools   bool
		want    string
		wantErr bool
		ran     bool
	}{
		{"full runs", permissions.Full, true, "2026-11-23", false, true},
		{"read_only refuses", permissions.ReadOnly, true, "Failed to activate skill 'stamp': Skill 'stamp' runs a shell command, and shell is not allowed at autonomy level read_only.", true, false},
		{"supervised without approver refuses", permissions.Supervised, true, "needs the user's approval", true, false},
		{"no shell tool", permissions.Full, false, "requires permission 'shell_exec'", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran = nil
			env := newEnv(t, []providertest.Response{skillCall(`{"skill":"stamp","args":"x y"}`), {Text: "ok"}}, func(o *Options) {
				runnerSkills()(o)
				o.Policy = permissions.Policy{Level: tt.level}
				o.SkillShell = shell
				o.SessionID = "sess-9"
				if !tt.tools {
					o.Tools = o.Tools[:1]
				}
			})
			if _, err := env.agent.Turn(context.Background(), "stamp it"); err != nil {
				t.Fatal(err)
			}
			r := lastResults(env.model.Requests()[1])
			if len(r) != 1 || r[0].IsError != tt.wantErr || !strings.Contains(r[0].Content, tt.want) {
				t.Fatalf("result = %+v, want %q (error %v)", r, tt.want, tt.wantErr)
			}
			if (len(ran) == 1) != tt.ran {
				t.Fatalf("ran = %v", ran)
			}
			if tt.ran && ran[0] != "stamp|x y|sess-9" {
				t.Errorf("ran %q", ran[0])
			}
		})
	}
}

func TestInvokeSkillByUser(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{{Text: "Sub says hi."}}, runnerSkills())
	send, out := env.agent.InvokeSkill(context.Background(), "reviewer", "7")
	if out.IsError || send != "/reviewer 7\n\nResult of skill 'reviewer':\nSub says hi." {
		t.Fatalf("send %q out %+v", send, out)
	}
	if len(env.agent.History()) != 0 {
		t.Error("the fork wrote to the main history")
	}
	send, out = env.agent.InvokeSkill(context.Background(), "greeter", "Ada")
	if out.IsError || send != "Ada" || !env.agent.Skills().IsActive("greeter") {
		t.Fatalf("inline invocation: %q %+v", send, out)
	}
	if out := env.agent.ActivateSkill(context.Background(), "reviewer", ""); !out.IsError || !strings.Contains(out.Text, "invoke it with /reviewer") {
		t.Fatalf("/activate of a fork skill = %+v", out)
	}
}

// TestSkillSearchBeyondIndex: when the budget leaves skills out of the
// index, the Skill tool offers search; the model finds an unlisted skill
// and activates it by its exact name; the system prompt changes only by
// the activation.
func TestSkillSearchBeyondIndex(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "Skill", Args: `{"skill":"","action":"search","query":"a skill that greets"}`}}},
		skillCall(`{"skill":"greeter","args":"Ada"}`),
		{Text: "done"},
	}, func(o *Options) { o.IndexBudget = 1 })
	if idx := env.agent.Index(); idx.Listed >= idx.Total {
		t.Fatalf("index lists %d of %d; the test needs a truncated one", idx.Listed, idx.Total)
	}
	if _, err := env.agent.Turn(context.Background(), "say hi"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	var spec providers.ToolSpec
	for _, s := range reqs[0].Tools {
		if s.Name == "Skill" {
			spec = s
		}
	}
	if !strings.HasSuffix(spec.Description, `Use action "search" with a query to find skills not listed.`) || !strings.Contains(string(spec.Schema), `"search"`) {
		t.Fatalf("Skill spec not searchable: %s %s", spec.Description, spec.Schema)
	}
	if r := sub(lastResults(reqs[1])); !strings.Contains(r, "\ngreeter — Greets.") {
		t.Fatalf("search result = %q", r)
	}
	if reqs[1].System != reqs[0].System {
		t.Error("search changed the system prompt")
	}
	if !strings.Contains(reqs[2].System, `<active_skill name="greeter">`) {
		t.Error("the unlisted skill was not activated")
	}
}

// TestForkModelCurrent: ForkModel is given the session's model as it is
// when the fork runs (after /model), so that a name that changes only the
// model id keeps the rest of it.
func TestForkModelCurrent(t *testing.T) {
	t.Parallel()
	var got []string
	env := newEnv(t, []providertest.Response{
		skillCall(`{"skill":"pinned"}`),
		{Text: "forked"},
		{Text: "done"},
	}, func(o *Options) {
		runnerSkills(&skills.Skill{Name: "pinned", Dir: "/skills/pinned", Source: skills.SourceProject, Description: "Pinned.",
			Context: "fork", Model: "small", Body: "Do it.", Status: skills.StatusListed})(o)
		o.ForkModel = func(name string, current ModelChoice) (ModelChoice, error) {
			got = append(got, name+" "+current.Name)
			current.Name = "small-id"
			return current, nil
		}
	})
	env.agent.SetModel("switched") // /model MODEL-ID
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if want := []string{"small switched"}; !slices.Equal(got, want) {
		t.Errorf("ForkModel calls %q, want %q", got, want)
	}
	if reqs := env.model.Requests(); len(reqs) < 2 || reqs[1].Model != "small-id" {
		t.Errorf("the fork's request did not use the model ForkModel chose")
	}
}
