package agent

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/skills"
)

// fakeTool is a tool whose behaviour is a function.
type fakeTool struct {
	name  string
	class permissions.Class
	run   func(ctx context.Context, args json.RawMessage) providers.ToolResult
}

func (f *fakeTool) Spec() providers.ToolSpec {
	return providers.ToolSpec{Name: f.name, Description: f.name + " tool", Schema: json.RawMessage(`{"type":"object"}`)}
}
func (f *fakeTool) Class() permissions.Class { return f.class }
func (f *fakeTool) Run(ctx context.Context, args json.RawMessage) providers.ToolResult {
	return f.run(ctx, args)
}

func echoTool(name string, class permissions.Class) *fakeTool {
	return &fakeTool{name: name, class: class, run: func(_ context.Context, args json.RawMessage) providers.ToolResult {
		return providers.ToolResult{Content: name + ":" + string(args)}
	}}
}

func testSkills() *skills.Catalog {
	return &skills.Catalog{Skills: []*skills.Skill{
		{Name: "auto-coder", Dir: "/skills/auto-coder", Source: skills.SourceProject, Description: "Writes code.", Triggers: []string{"write code"},
			Permissions: []string{"file_read"}, Body: "# Auto Coder\n\nFollow these steps.", Status: skills.StatusListed, UserInvocable: true},
		{Name: "greeter", Dir: "/skills/greeter", Source: skills.SourceProject, Description: "Greets.", Arguments: []string{"who"},
			Body: "Say hello to $who.", Status: skills.StatusListed, UserInvocable: true},
		{Name: "searcher", Dir: "/skills/searcher", Source: skills.SourceProject, Description: "Searches the web.",
			Permissions: []string{"web_search"}, Body: "Search.", Status: skills.StatusListed, UserInvocable: true},
	}}
}

type testEnv struct {
	agent  *Agent
	model  *providertest.Model
	events []Event
	mu     sync.Mutex
}

func (e *testEnv) sink(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.events = append(e.events, ev)
}

func (e *testEnv) eventsOf(typ EventType) []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Event
	for _, ev := range e.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

var fixedNow = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

// newEnv builds an agent over a scripted model with file_read and shell tools
// and the test skills; tweak adjusts the options.
func newEnv(t testing.TB, responses []providertest.Response, tweak func(*Options)) *testEnv {
	t.Helper()
	env := &testEnv{model: providertest.NewModel(responses...)}
	perms := &SkillPermissions{}
	set := skills.NewActiveSet(skills.ActiveConfig{
		Enabled:          true,
		MaxActive:        5,
		CheckPermissions: perms.Check,
		SessionID:        "sess-1",
		Workspace:        "/ws",
	}, testSkills())
	opts := Options{
		Model:            env.model,
		ModelName:        "test-model",
		Tools:            []Tool{echoTool("file_read", permissions.ClassRead), echoTool("shell", permissions.ClassExec)},
		Policy:           permissions.Policy{Level: permissions.Full},
		Prompt:           PromptConfig{Workspace: "/ws", GOOS: "linux", GOARCH: "amd64", Autonomy: permissions.Full},
		Skills:           set,
		SkillsEnabled:    true,
		SkillPermissions: perms,
		IndexBudget:      100000,
		Now:              func() time.Time { return fixedNow },
		Sink:             env.sink,
	}
	if tweak != nil {
		tweak(&opts)
	}
	ag, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	env.agent = ag
	return env
}

func skillCall(args string) providertest.Response {
	return providertest.Response{ToolCalls: []providertest.Call{{Name: "Skill", Args: args}}}
}

// lastResults returns the tool results of the last user message of a request.
func lastResults(req providers.Request) []providers.ToolResult {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if rs := req.Messages[i].ToolResults(); len(rs) > 0 {
			return rs
		}
	}
	return nil
}

func TestTurnPlainText(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{{Text: "hello there"}}, nil)
	res, err := env.agent.Turn(t.Context(), "hi")
	if err != nil {
		t.Fatal(err)
	}
	if res.Final != "hello there" || res.Status != StatusOK || res.Iterations != 1 {
		t.Errorf("result = %+v", res)
	}
	reqs := env.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := reqs[0].Messages[0].Text(); got != "[2026-11-22 09:30 +00:00] hi" {
		t.Errorf("user message = %q", got)
	}
	var names []string
	for _, s := range reqs[0].Tools {
		names = append(names, s.Name)
	}
	if diff := cmp.Diff([]string{"Skill", "file_read", "shell"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	sys := reqs[0].System
	if !strings.Contains(sys, "<available_skills>") || strings.Contains(sys, "Follow these steps.") {
		t.Errorf("first system prompt must hold the index and no skill body:\n%s", sys)
	}
	if h := env.agent.History(); len(h) != 2 || h[1].Text() != "hello there" {
		t.Errorf("history = %+v", h)
	}
	if n := len(env.eventsOf(EventTurnEnd)); n != 1 {
		t.Errorf("%d turn_end events", n)
	}
}

func TestSkillActivationAppendsToSystemPrompt(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{skillCall(`{"skill":"auto-coder"}`), {Text: "done"}}, nil)
	if _, err := env.agent.Turn(t.Context(), "write code"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	first, second := reqs[0].System, reqs[1].System
	if !strings.HasPrefix(second, first) || len(second) <= len(first) {
		t.Fatalf("second system prompt does not extend the first")
	}
	wantTail := "\n\n<active_skill name=\"auto-coder\">\nSkill directory: /skills/auto-coder\n# Auto Coder\n\nFollow these steps.\n</active_skill>"
	if got := second[len(first):]; got != wantTail {
		t.Errorf("appended %q, want %q", got, wantTail)
	}
	rs := lastResults(reqs[1])
	want := "Skill 'auto-coder' activated. Full instructions have been added to your system prompt."
	if len(rs) != 1 || rs[0].Content != want || rs[0].IsError {
		t.Errorf("results = %+v", rs)
	}
	if ev := env.eventsOf(EventSkillActivated); len(ev) != 1 || ev[0].Name != "auto-coder" {
		t.Errorf("skill_activated events = %+v", ev)
	}
	// Nothing that is not the engine's sentence may reach history or events.
	for _, m := range env.agent.History() {
		for _, r := range m.ToolResults() {
			if strings.Contains(r.Content, "Activating") {
				t.Errorf("placeholder leaked: %q", r.Content)
			}
		}
	}
}

// TestSkillCallOutcomes adapts ClawSeed conformance case 19: there the Skill
// tool returned "Activating…"/"Deactivating…" placeholders that the agent
// replaced later; SPEC §4.5 forbids any placeholder, so the intercepted call's
// result is the engine's final sentence, and `{}` and an unknown action are
// still errors the model can recover from.
func TestSkillCallOutcomes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, args, want string
		isErr            bool
	}{
		{"did you mean", `{"skill":"auto-codr"}`, "Failed to activate skill 'auto-codr': Skill 'auto-codr' not found in available skills. Did you mean 'auto-coder'?", true},
		{"permission", `{"skill":"searcher"}`, "Failed to activate skill 'searcher': Skill 'searcher' requires permission 'web_search' but no matching tool is available.", true},
		{"deactivate inactive", `{"skill":"auto-coder","action":"deactivate"}`, "Failed to deactivate skill 'auto-coder': Skill 'auto-coder' is not active.", true},
		{"unknown action", `{"skill":"auto-coder","action":"destroy"}`, "Unknown action 'destroy'. Use 'activate' or 'deactivate'.", true},
		{"missing name", `{}`, `Invalid arguments for Skill: "skill" is required (the exact name from <available_skills>).`, true},
		{"bad JSON", `{"skill":`, "Invalid arguments for Skill: unexpected end of JSON input", true},
		{"args substituted", `{"skill":"greeter","args":"Ada"}`, "Skill 'greeter' activated. Full instructions have been added to your system prompt.", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, []providertest.Response{skillCall(c.args), {Text: "ok"}}, nil)
			if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			rs := lastResults(env.model.Requests()[1])
			if len(rs) != 1 || rs[0].Content != c.want || rs[0].IsError != c.isErr {
				t.Errorf("result = %+v, want %q (error %v)", rs, c.want, c.isErr)
			}
		})
	}
}

func TestSkillArgsRenderedInPrompt(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{skillCall(`{"skill":"greeter","args":"Ada"}`), {Text: "ok"}}, nil)
	env.agent.Turn(t.Context(), "greet")
	if sys := env.model.Requests()[1].System; !strings.Contains(sys, "Say hello to Ada.") {
		t.Errorf("substituted body missing:\n%s", sys)
	}
}

func TestDeactivationRestoresPrompt(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{
		skillCall(`{"skill":"auto-coder"}`),
		skillCall(`{"skill":"auto-coder","action":"deactivate"}`),
		{Text: "ok"},
	}, nil)
	env.agent.Turn(t.Context(), "go")
	reqs := env.model.Requests()
	if reqs[0].System != reqs[2].System {
		t.Error("system prompt after deactivation differs from the one before activation")
	}
	want := "Skill 'auto-coder' deactivated. Its instructions have been removed from your system prompt."
	if rs := lastResults(reqs[2]); len(rs) != 1 || rs[0].Content != want {
		t.Errorf("results = %+v", rs)
	}
}

func TestMaxActive(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "Skill", Args: `{"skill":"auto-coder"}`}, {Name: "Skill", Args: `{"skill":"greeter"}`}}},
		{Text: "ok"},
	}, func(o *Options) {
		o.Skills = skills.NewActiveSet(skills.ActiveConfig{Enabled: true, MaxActive: 1}, testSkills())
	})
	env.agent.Turn(t.Context(), "go")
	rs := lastResults(env.model.Requests()[1])
	if len(rs) != 2 || rs[0].IsError || rs[1].Content != "Failed to activate skill 'greeter': Maximum number of active skills (1) reached. Deactivate a skill first." {
		t.Errorf("results = %+v", rs)
	}
}

func TestProviderErrorKeepsUserMessage(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{{Status: 401, Error: "bad key"}}, nil)
	res, err := env.agent.Turn(t.Context(), "hi")
	if err == nil || res.Status != StatusError {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	if h := env.agent.History(); len(h) != 1 || h[0].Role != providers.RoleUser {
		t.Errorf("history = %+v", h)
	}
	if ev := env.eventsOf(EventError); len(ev) != 1 {
		t.Errorf("error events = %+v", ev)
	}
}

func TestTextProtocolTurn(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{
		{Text: "Let me look.\n<tool_call>{\"name\": \"file_read\", \"arguments\": {\"path\": \"a\"}}</tool_call>"},
		{Text: "<think>hmm</think>It says a."},
	}, func(o *Options) { o.TextTools = true })
	res, err := env.agent.Turn(t.Context(), "read a")
	if err != nil || res.Final != "It says a." {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	reqs := env.model.Requests()
	if len(reqs[0].Tools) != 0 || !strings.Contains(reqs[0].System, "## Tool Use Protocol") {
		t.Error("text protocol must describe tools in the prompt, not the tools array")
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	want := "[Tool results]\n<tool_result name=\"file_read\" status=\"ok\">\nfile_read:{\"path\": \"a\"}\n</tool_result>"
	if last.Text() != want {
		t.Errorf("results message = %q", last.Text())
	}
}

func TestSkillCreateActivatesNewSkill(t *testing.T) {
	t.Parallel()
	created := &skills.Skill{Name: "new-skill", Dir: "/skills/new-skill", Description: "New.", Body: "Do new things.", Status: skills.StatusListed, UserInvocable: true}
	createTool := &fakeTool{name: "skill_create", class: permissions.ClassWrite, run: func(context.Context, json.RawMessage) providers.ToolResult {
		return providers.ToolResult{Content: "Created skill 'new-skill' at /skills/new-skill."}
	}}
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "skill_create", Args: `{"name":"new-skill","description":"New.","content":"Do new things."}`}}},
		{Text: "ok"},
	}, func(o *Options) {
		o.Tools = append(o.Tools, createTool)
		o.Rediscover = func(context.Context) (*skills.Catalog, error) {
			cat := testSkills()
			cat.Skills = append(cat.Skills, created)
			slices.SortFunc(cat.Skills, func(a, b *skills.Skill) int { return strings.Compare(a.Name, b.Name) })
			return cat, nil
		}
	})
	env.agent.Turn(t.Context(), "make a skill")
	req := env.model.Requests()[1]
	rs := lastResults(req)
	want := "Created skill 'new-skill' at /skills/new-skill.\nSkill 'new-skill' activated. Full instructions have been added to your system prompt."
	if len(rs) != 1 || rs[0].Content != want {
		t.Errorf("results = %+v", rs)
	}
	if !strings.Contains(req.System, `<skill name="new-skill"`) || !strings.Contains(req.System, "Do new things.") {
		t.Errorf("new skill not indexed and active:\n%s", req.System)
	}
}

func TestSameInputsSameBytes(t *testing.T) {
	t.Parallel()
	a := newEnv(t, nil, nil).agent.SystemPrompt()
	b := newEnv(t, nil, nil).agent.SystemPrompt()
	if a != b {
		t.Error("system prompt differs between identical agents")
	}
	if regexp.MustCompile(`20\d\d-\d\d-\d\d`).MatchString(a) {
		t.Error("system prompt contains a date")
	}
}
