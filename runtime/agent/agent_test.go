package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	var ag *Agent
	set := skills.NewActiveSet(skills.ActiveConfig{
		Enabled:   true,
		MaxActive: 5,
		CheckPermissions: func(skill string, perms []string) string {
			return permissions.Check(skill, perms, permissions.AllowedSet(ag.ToolNames()))
		},
		SessionID: "sess-1",
		Workspace: "/ws",
	}, testSkills())
	opts := Options{
		Model:         env.model,
		ModelName:     "test-model",
		Tools:         []Tool{echoTool("file_read", permissions.ClassRead), echoTool("shell", permissions.ClassExec)},
		Policy:        permissions.Policy{Level: permissions.Full},
		Prompt:        PromptConfig{Workspace: "/ws", GOOS: "linux", GOARCH: "amd64", Autonomy: permissions.Full},
		Skills:        set,
		SkillsEnabled: true,
		IndexBudget:   100000,
		Now:           func() time.Time { return fixedNow },
		Sink:          env.sink,
	}
	if tweak != nil {
		tweak(&opts)
	}
	var err error
	ag, err = New(opts)
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

func TestToolCallErrors(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{
			{Name: "no_such_tool", Args: `{}`},
			{Name: "file_read", Args: `{"path": `},
			{Name: "file_read", Args: `{"path":"a"}`},
		}},
		{Text: "recovered"},
	}, nil)
	res, err := env.agent.Turn(t.Context(), "go")
	if err != nil || res.Final != "recovered" {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	got := lastResults(env.model.Requests()[1])
	want := []providers.ToolResult{
		{CallID: "call_1", Name: "no_such_tool", Content: "Unknown tool: no_such_tool", IsError: true},
		{CallID: "call_2", Name: "file_read", Content: `Invalid arguments for file_read: not valid JSON: {"path":`, IsError: true},
		{CallID: "call_3", Name: "file_read", Content: `file_read:{"path":"a"}`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]ToolCallSummary{{"no_such_tool", false}, {"file_read", false}, {"file_read", true}}, res.ToolCalls); diff != "" {
		t.Errorf("summaries (-want +got):\n%s", diff)
	}
}

func TestMaxIterations(t *testing.T) {
	t.Parallel()
	var script []providertest.Response
	for range 5 {
		script = append(script, providertest.Response{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{}`}}})
	}
	env := newEnv(t, script, func(o *Options) { o.MaxIterations = 3 })
	res, err := env.agent.Turn(t.Context(), "loop")
	if !errors.Is(err, ErrMaxIterations) || res.Status != StatusMaxIterations || res.Iterations != 3 {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	if ev := env.eventsOf(EventError); len(ev) != 1 || ev[0].Text != "Agent exceeded maximum tool iterations (3)" {
		t.Errorf("error events = %+v", ev)
	}
	h := env.agent.History()
	if diff := cmp.Diff(h, repairHistory(h)); diff != "" {
		t.Errorf("history left invalid:\n%s", diff)
	}
	if len(env.model.Requests()) != 3 {
		t.Errorf("%d requests, want 3", len(env.model.Requests()))
	}
}

func TestParallelCallsKeepOrderWithinLimit(t *testing.T) {
	t.Parallel()
	var running, peak atomic.Int32
	slow := &fakeTool{name: "slow", class: permissions.ClassRead, run: func(ctx context.Context, args json.RawMessage) providers.ToolResult {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		return providers.ToolResult{Content: string(args)}
	}}
	var calls []providertest.Call
	for i := range 6 {
		calls = append(calls, providertest.Call{Name: "slow", Args: fmt.Sprintf(`{"n":%d}`, i)})
	}
	env := newEnv(t, []providertest.Response{{ToolCalls: calls}, {Text: "ok"}}, func(o *Options) {
		o.Tools = []Tool{slow}
		o.ParallelTools = 2
	})
	env.agent.Turn(t.Context(), "go")
	rs := lastResults(env.model.Requests()[1])
	for i, r := range rs {
		if r.Content != fmt.Sprintf(`{"n":%d}`, i) {
			t.Errorf("result %d = %q", i, r.Content)
		}
	}
	if p := peak.Load(); p > 2 {
		t.Errorf("%d calls ran at once, limit 2", p)
	}
}

func TestToolTimeoutPanicAndTruncation(t *testing.T) {
	t.Parallel()
	tools := []Tool{
		&fakeTool{name: "hang", run: func(ctx context.Context, _ json.RawMessage) providers.ToolResult {
			<-ctx.Done()
			return providers.ToolResult{Content: "stopped"}
		}},
		&fakeTool{name: "boom", run: func(context.Context, json.RawMessage) providers.ToolResult { panic("kaboom") }},
		&fakeTool{name: "big", run: func(context.Context, json.RawMessage) providers.ToolResult {
			return providers.ToolResult{Content: strings.Repeat("x", 90) + strings.Repeat("y", 30)}
		}},
	}
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "hang"}, {Name: "boom"}, {Name: "big"}}},
		{Text: "ok"},
	}, func(o *Options) {
		o.Tools = tools
		o.ToolTimeout = 20 * time.Millisecond
		o.MaxToolOutputChars = 30
	})
	env.agent.Turn(t.Context(), "go")
	rs := lastResults(env.model.Requests()[1])
	want := []string{
		"Tool hang timed out after 20ms.",
		"Tool boom failed: internal error: kaboom",
		strings.Repeat("x", 20) + "\n\n[... 90 characters truncated ...]\n\n" + strings.Repeat("y", 10),
	}
	for i, w := range want {
		if rs[i].Content != w {
			t.Errorf("result %d = %q, want %q", i, rs[i].Content, w)
		}
	}
	if !rs[0].IsError || !rs[1].IsError || rs[2].IsError {
		t.Errorf("error flags wrong: %+v", rs)
	}
}

func TestCancelMidStreamKeepsValidHistory(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{
		{Text: "partial answer", ToolCalls: []providertest.Call{{Name: "shell", Args: `{}`}}, HangAfterChunks: 1},
		{Text: "fresh"},
	}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	var once sync.Once
	env.agent.opts.Sink = func(ev Event) {
		env.sink(ev)
		if ev.Type == EventTextDelta {
			once.Do(cancel)
		}
	}
	res, err := env.agent.Turn(ctx, "start")
	if !errors.Is(err, context.Canceled) || res.Status != StatusCancelled {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	if len(env.eventsOf(EventToolCall)) != 0 {
		t.Error("a tool call of a cut response was announced")
	}
	if _, err := env.agent.Turn(t.Context(), "again"); err != nil {
		t.Fatal(err)
	}
	req := env.model.Requests()[1]
	for _, m := range req.Messages {
		if len(m.ToolCalls()) > 0 {
			t.Errorf("request after cancel carries tool calls: %+v", m)
		}
	}
	if got := req.Messages[1]; got.Role != providers.RoleAssistant || !strings.HasPrefix("partial answer", got.Text()) || got.Text() == "" {
		t.Errorf("partial text not kept: %+v", got)
	}
}

func TestCancelMidToolAnswersEveryCall(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	block := &fakeTool{name: "block", run: func(ctx context.Context, _ json.RawMessage) providers.ToolResult {
		close(started)
		<-ctx.Done()
		return providers.ToolResult{Content: "finished anyway"}
	}}
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "block"}, {Name: "file_read", Args: `{}`}}},
		{Text: "resumed"},
	}, func(o *Options) {
		o.Tools = []Tool{block, echoTool("file_read", permissions.ClassRead)}
		o.ParallelTools = 1
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	res, err := env.agent.Turn(ctx, "start")
	if !errors.Is(err, context.Canceled) || res.Status != StatusCancelled {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	if _, err := env.agent.Turn(t.Context(), "go on"); err != nil {
		t.Fatal(err)
	}
	rs := lastResults(env.model.Requests()[1])
	if len(rs) != 2 || rs[0].Content != "Cancelled by user." || rs[1].Content != "Cancelled by user." {
		t.Errorf("results after cancel = %+v", rs)
	}
}

type stubApprover struct {
	answers []Approval
	asked   []ApprovalRequest
}

func (s *stubApprover) Approve(_ context.Context, req ApprovalRequest) (Approval, error) {
	s.asked = append(s.asked, req)
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a, nil
}

func TestApproval(t *testing.T) {
	t.Parallel()
	shellCalls := providertest.Response{ToolCalls: []providertest.Call{{Name: "shell", Args: `{"command":"ls"}`}}}
	supervised := func(ap Approver) func(*Options) {
		return func(o *Options) {
			o.Policy = permissions.Policy{Level: permissions.Supervised, AutoApprove: []string{"file_read"}}
			o.Approver = ap
		}
	}
	t.Run("denied", func(t *testing.T) {
		ap := &stubApprover{answers: []Approval{Deny}}
		env := newEnv(t, []providertest.Response{shellCalls, {Text: "ok"}}, supervised(ap))
		env.agent.Turn(t.Context(), "go")
		if rs := lastResults(env.model.Requests()[1]); rs[0].Content != "The user denied the shell call." || !rs[0].IsError {
			t.Errorf("results = %+v", rs)
		}
	})
	t.Run("always remembered", func(t *testing.T) {
		ap := &stubApprover{answers: []Approval{ApproveAlways}}
		env := newEnv(t, []providertest.Response{shellCalls, shellCalls, {Text: "ok"}}, supervised(ap))
		env.agent.Turn(t.Context(), "go")
		if len(ap.asked) != 1 {
			t.Errorf("asked %d times, want 1", len(ap.asked))
		}
		if rs := lastResults(env.model.Requests()[2]); rs[0].IsError {
			t.Errorf("second call failed: %+v", rs)
		}
	})
	t.Run("no approver", func(t *testing.T) {
		env := newEnv(t, []providertest.Response{shellCalls, {Text: "ok"}}, supervised(nil))
		env.agent.Turn(t.Context(), "go")
		rs := lastResults(env.model.Requests()[1])
		if !rs[0].IsError || !strings.Contains(rs[0].Content, "--yes") {
			t.Errorf("results = %+v", rs)
		}
	})
	t.Run("read tools never ask", func(t *testing.T) {
		ap := &stubApprover{}
		env := newEnv(t, []providertest.Response{{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{}`}}}, {Text: "ok"}}, supervised(ap))
		env.agent.Turn(t.Context(), "go")
		if len(ap.asked) != 0 {
			t.Errorf("asked for a read tool")
		}
	})
}

func TestReadOnlyHidesWriteTools(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{{ToolCalls: []providertest.Call{{Name: "shell", Args: `{}`}}}, {Text: "ok"}},
		func(o *Options) { o.Policy = permissions.Policy{Level: permissions.ReadOnly} })
	env.agent.Turn(t.Context(), "go")
	if diff := cmp.Diff([]string{"Skill", "file_read"}, env.agent.ToolNames()); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if rs := lastResults(env.model.Requests()[1]); rs[0].Content != "Unknown tool: shell" {
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
