package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/subagents"
)

// testSubagents is a catalog with a reviewer (file_read only), a writer
// (everything but file_read) and general-purpose, as subagents.Load builds
// it: sorted by name.
func testSubagents(extra ...*subagents.Definition) *subagents.Catalog {
	cat := &subagents.Catalog{Agents: []*subagents.Definition{
		{Name: "general-purpose", Description: "Does anything.", Prompt: "You are a general subagent.", Source: skills.SourceBuiltin},
		{Name: "reviewer", Description: "Reviews code.", Tools: []string{"Read"}, Prompt: "You review code. REVIEWER-PROMPT", Source: skills.SourceUser, Path: "/home/.claude/agents/reviewer.md"},
		{Name: "writer", Description: "Writes.", DisallowedTools: []string{"Read"}, Prompt: "You write.", Source: skills.SourceProjectClaude, Path: "/ws/.claude/agents/writer.md"},
	}}
	cat.Agents = append(cat.Agents, extra...)
	slices.SortFunc(cat.Agents, func(a, b *subagents.Definition) int { return strings.Compare(a.Name, b.Name) })
	return cat
}

func callAgent(id, typ, prompt string) providertest.Call {
	args, _ := json.Marshal(map[string]string{"subagent_type": typ, "description": "a task", "prompt": prompt})
	return providertest.Call{ID: id, Name: "Agent", Args: string(args)}
}

func toolNames(req providers.Request) []string {
	var names []string
	for _, s := range req.Tools {
		names = append(names, s.Name)
	}
	return names
}

// TestAgentToolRunsSubagent: the Agent tool lists the subagents; a call
// runs one as a sub-agent with its own system prompt (the definition's
// body, no skill index), its tools (never Agent or Skill) and the prompt
// as its user message; its final text is the call's result; its events
// carry the call id, its usage counts for the session, and its transcript
// is recorded.
func TestAgentToolRunsSubagent(t *testing.T) {
	t.Parallel()
	rec := &memRecorder{}
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{callAgent("call_a", "reviewer", "Check a.go please.")}},
		{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{"path":"a.go"}`}}, Usage: &providers.Usage{InputTokens: 100, OutputTokens: 10}},
		{Text: "a.go is fine.", Usage: &providers.Usage{InputTokens: 120, OutputTokens: 5}},
		{Text: "The reviewer says a.go is fine."},
	}, func(o *Options) {
		o.Subagents = testSubagents()
		o.Recorder = rec
	})
	res, err := env.agent.Turn(t.Context(), "review a.go")
	if err != nil {
		t.Fatal(err)
	}
	if res.Final != "The reviewer says a.go is fine." {
		t.Fatalf("final = %q", res.Final)
	}
	reqs := env.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	var spec providers.ToolSpec
	for _, s := range reqs[0].Tools {
		if s.Name == "Agent" {
			spec = s
		}
	}
	for _, want := range []string{"\n- general-purpose: Does anything.", "\n- reviewer: Reviews code.", "\n- writer: Writes."} {
		if !strings.Contains(spec.Description, want) {
			t.Errorf("Agent description lacks %q:\n%s", want, spec.Description)
		}
	}
	sub := reqs[1]
	if !strings.HasPrefix(sub.System, "You review code. REVIEWER-PROMPT") {
		t.Errorf("subagent system prompt does not start with its definition's body:\n%s", sub.System)
	}
	if strings.Contains(sub.System, "<available_skills>") {
		t.Error("subagent system prompt has the skill index")
	}
	if got := toolNames(sub); !slices.Equal(got, []string{"file_read"}) {
		t.Errorf("subagent tools = %v, want [file_read]", got)
	}
	if got := sub.Messages[0].Text(); !strings.HasSuffix(got, "] Check a.go please.") {
		t.Errorf("subagent user message = %q", got)
	}
	if r := lastResults(reqs[3]); len(r) != 1 || r[0].IsError || r[0].Content != "a.go is fine." {
		t.Fatalf("Agent result = %+v", r)
	}
	for _, ev := range env.eventsOf(EventToolCall) {
		if ev.Name == "file_read" && ev.Parent != "call_a" {
			t.Errorf("subagent event parent = %q, want call_a", ev.Parent)
		}
	}
	if u := env.agent.Usage(); u.InputTokens != 220 {
		t.Errorf("session input tokens = %d, want the subagent's 220", u.InputTokens)
	}
	if len(rec.forks) != 1 || rec.forks[0].Agent != "reviewer" || rec.forks[0].CallID != "call_a" || rec.forks[0].Status != StatusOK || len(rec.forks[0].Messages) != 4 {
		t.Errorf("fork records = %+v", rec.forks)
	}
}

// TestSubagentTools: what a definition gives, out of the session's tools;
// never Agent, Skill or skill_create; a network tool only by name.
func TestSubagentTools(t *testing.T) {
	t.Parallel()
	tools := []Tool{
		echoTool("file_read", permissions.ClassRead), echoTool("shell", permissions.ClassExec),
		echoTool("web_fetch", permissions.ClassNetwork), echoTool("skill_create", permissions.ClassWrite),
		echoTool("memory_store", permissions.ClassWrite), echoTool("mcp__gh__issue", permissions.ClassRead),
	}
	tests := []struct {
		name string
		def  subagents.Definition
		want []string
	}{
		{"no tools field: all but memory", subagents.Definition{}, []string{"file_read", "mcp__gh__issue", "shell", "web_fetch"}},
		{"memory by name", subagents.Definition{Tools: []string{"Read", "memory_*"}}, []string{"file_read", "memory_store"}},
		{"tools: []", subagents.Definition{Tools: []string{}}, nil},
		{"Claude Code names", subagents.Definition{Tools: []string{"Bash", "Read", "WebFetch"}}, []string{"file_read", "shell", "web_fetch"}},
		{"glob gives no network", subagents.Definition{Tools: []string{"*"}}, []string{"file_read", "mcp__gh__issue", "memory_store", "shell"}},
		{"mcp server", subagents.Definition{Tools: []string{"mcp__gh"}}, []string{"mcp__gh__issue"}},
		{"Agent and Skill asked for", subagents.Definition{Tools: []string{"Agent", "Task", "Skill", "skill_create", "Read"}}, []string{"file_read"}},
		{"disallowed", subagents.Definition{DisallowedTools: []string{"Bash", "memory_*"}}, []string{"file_read", "mcp__gh__issue", "web_fetch"}},
		{"disallowed glob removes network too", subagents.Definition{DisallowedTools: []string{"*"}}, nil},
		{"not a session tool", subagents.Definition{Tools: []string{"Write", "NotebookEdit"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, nil, func(o *Options) {
				o.Tools = tools
				o.Subagents = testSubagents()
			})
			var got []string
			for _, tool := range env.agent.subagentTools(&tt.def, nil) {
				got = append(got, tool.Spec().Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("tools = %v, want %v", got, tt.want)
			}
		})
	}
}

// A barrier's probe tool answers "together" once two probe calls have run
// at the same time (waiting for that at most wait), else "alone", and
// counts how many ran at once at most.
type barrier struct {
	active, most atomic.Int32
}

func (b *barrier) tool(wait time.Duration) Tool {
	return &fakeTool{name: "probe", class: permissions.ClassRead, run: func(ctx context.Context, _ json.RawMessage) providers.ToolResult {
		n := b.active.Add(1)
		defer b.active.Add(-1)
		for m := b.most.Load(); n > m && !b.most.CompareAndSwap(m, n); m = b.most.Load() {
		}
		deadline := time.Now().Add(wait)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			if b.most.Load() >= 2 {
				return providers.ToolResult{Content: "together"}
			}
			time.Sleep(2 * time.Millisecond)
		}
		return providers.ToolResult{Content: "alone"}
	}}
}

// TestAgentCallsRunConcurrently: the Agent calls of one response run at
// the same time, at most MaxParallelSubagents at once; results come back in
// call order.
func TestAgentCallsRunConcurrently(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		limit int
		want  string
		most  int32
	}{{2, "together", 2}, {1, "alone", 1}} {
		b := &barrier{}
		env := newEnv(t, []providertest.Response{
			{ToolCalls: []providertest.Call{callAgent("call_a", "general-purpose", "task-A"), callAgent("call_b", "general-purpose", "task-B")}},
			{When: "task-A", ToolCalls: []providertest.Call{{Name: "probe", Args: `{}`}}},
			{When: "task-A", Text: "A done"},
			{When: "task-B", ToolCalls: []providertest.Call{{Name: "probe", Args: `{}`}}},
			{When: "task-B", Text: "B done"},
			{Text: "both done"},
		}, func(o *Options) {
			o.Tools = []Tool{b.tool(200 * time.Millisecond)}
			o.Subagents = testSubagents()
			o.MaxParallelSubagents = tt.limit
		})
		if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
			t.Fatal(err)
		}
		reqs := env.model.Requests()
		r := lastResults(reqs[len(reqs)-1])
		if len(r) != 2 || r[0].CallID != "call_a" || r[0].Content != "A done" || r[1].CallID != "call_b" || r[1].Content != "B done" {
			t.Fatalf("limit %d: results = %+v", tt.limit, r)
		}
		var probes []string
		for _, ev := range env.eventsOf(EventToolResult) {
			if ev.Name == "probe" {
				probes = append(probes, ev.Result)
			}
		}
		if len(probes) != 2 || probes[0] != tt.want || probes[1] != tt.want {
			t.Errorf("limit %d: probes = %v, want both %q", tt.limit, probes, tt.want)
		}
		if got := b.most.Load(); got != tt.most {
			t.Errorf("limit %d: at most %d subagents at once, want %d", tt.limit, got, tt.most)
		}
	}
}

// TestAgentCallCancelled: cancelling the turn while subagents run ends
// them; every call is answered and the history stays valid.
func TestAgentCallCancelled(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{callAgent("call_a", "general-purpose", "task-A"), callAgent("call_b", "general-purpose", "task-B")}},
		{When: "task-A", Hang: true},
		{When: "task-B", Hang: true},
	}, func(o *Options) { o.Subagents = testSubagents() })
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for len(env.model.Requests()) < 3 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	res, err := env.agent.Turn(ctx, "go")
	if err == nil || res.Status != StatusCancelled {
		t.Fatalf("status %q, err %v; want cancelled", res.Status, err)
	}
	h := env.agent.History()
	last := h[len(h)-1].ToolResults()
	if len(last) != 2 || last[0].Content != cancelledText || last[1].Content != cancelledText {
		t.Fatalf("results = %+v", last)
	}
	if repaired := repairHistory(slices.Clone(h)); len(repaired) != len(h) {
		t.Errorf("history needed repair: %d messages, %d after", len(h), len(repaired))
	}
}

// TestAgentCallErrors: an unknown subagent_type names the known ones; a
// missing prompt is an argument error; neither runs a model request.
func TestAgentCallErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ args, want string }{
		{`{"subagent_type":"nope","description":"x","prompt":"do"}`, "Unknown subagent_type 'nope'. Available: general-purpose, reviewer, writer."},
		{`{"subagent_type":"reviewer","description":"x"}`, `"prompt" is required`},
		{`not json`, "Invalid arguments for Agent"},
		{`{"subagent_type":"reviewer","description":"x","prompt":"do","isolation":"container"}`, `Subagent 'reviewer' cannot run: isolation "container" is not supported (only "worktree").`},
		// Without Options.Worktree (read_only autonomy, tests) a worktree
		// cannot be made, and the subagent does not run in the workspace
		// instead.
		{`{"subagent_type":"reviewer","description":"x","prompt":"do","isolation":"worktree"}`, `Subagent 'reviewer' cannot run: isolation "worktree" is not available in this session.`},
	}
	for _, tt := range tests {
		env := newEnv(t, []providertest.Response{
			{ToolCalls: []providertest.Call{{ID: "c1", Name: "Agent", Args: tt.args}}},
			{Text: "ok"},
		}, func(o *Options) { o.Subagents = testSubagents() })
		if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
			t.Fatal(err)
		}
		reqs := env.model.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%s: %d requests, want 2", tt.args, len(reqs))
		}
		if r := lastResults(reqs[1]); len(r) != 1 || !r[0].IsError || !strings.Contains(r[0].Content, tt.want) {
			t.Errorf("%s: result = %+v, want %q", tt.args, r, tt.want)
		}
	}
}

// TestNoAgentTool: without definitions, or denied by the policy, there is
// no Agent tool, and a call of it is an unknown tool.
func TestNoAgentTool(t *testing.T) {
	t.Parallel()
	for _, tweak := range []func(*Options){
		func(o *Options) {},
		func(o *Options) {
			o.Subagents = testSubagents()
			o.Policy = permissions.Policy{Level: permissions.Full, Denied: []string{"Agent"}}
		},
	} {
		env := newEnv(t, nil, tweak)
		if slices.Contains(env.agent.ToolNames(), "Agent") {
			t.Errorf("tools = %v, want no Agent", env.agent.ToolNames())
		}
	}
}

// TestUntrustedProjectSubagent: in an untrusted workspace a project
// definition is asked about whatever the autonomy level (refused when
// nobody can answer), and a user definition runs unasked.
func TestUntrustedProjectSubagent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		typ      string
		approver *scriptedApprover
		want     string
		wantErr  bool
	}{
		{"project without approver", "writer", nil, "Subagent 'writer' comes from this workspace, which is not trusted", true},
		{"project approved", "writer", &scriptedApprover{answers: []Approval{ApproveOnce}}, "written", false},
		{"project denied", "writer", &scriptedApprover{answers: []Approval{Deny}}, "The user denied running its sub-agent.", true},
		{"user definition", "reviewer", nil, "written", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, []providertest.Response{
				{ToolCalls: []providertest.Call{callAgent("c1", tt.typ, "do it")}},
				{When: "do it", Text: "written"},
				{Text: "ok"},
			}, func(o *Options) {
				o.Subagents = testSubagents()
				o.UntrustedWorkspace = true
				if tt.approver != nil {
					o.Approver = tt.approver
				}
			})
			if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			reqs := env.model.Requests()
			r := lastResults(reqs[len(reqs)-1])
			if len(r) != 1 || r[0].IsError != tt.wantErr || !strings.Contains(r[0].Content, tt.want) {
				t.Fatalf("result = %+v, want %q", r, tt.want)
			}
			if tt.approver != nil {
				if len(tt.approver.asked) != 1 || !tt.approver.asked[0].Untrusted || !strings.Contains(tt.approver.asked[0].Summary, "subagent writer (from the untrusted workspace") {
					t.Errorf("asked %+v", tt.approver.asked)
				}
			}
		})
	}
}

// TestForkSkillWithAgent: a fork skill with `agent:` runs in that
// subagent's definition: its system prompt and tools, the skill's block
// after it; an unknown agent is a clear error.
func TestForkSkillWithAgent(t *testing.T) {
	t.Parallel()
	fork := func(name, agent string) *skills.Skill {
		return &skills.Skill{Name: name, Dir: "/skills/" + name, Source: skills.SourceUser, Description: "Forks.", Context: "fork", Agent: agent,
			Body: "Audit $ARGUMENTS.", Status: skills.StatusListed, UserInvocable: true}
	}
	env := newEnv(t, []providertest.Response{
		skillCall(`{"skill":"audit","args":"main.go"}`),
		{Text: "audited"},
		{Text: "ok"},
		skillCall(`{"skill":"lost"}`),
		{Text: "ok"},
	}, func(o *Options) {
		runnerSkills(fork("audit", "reviewer"), fork("lost", "nobody"))(o)
		o.Subagents = testSubagents()
	})
	if _, err := env.agent.Turn(t.Context(), "audit"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	sub := reqs[1]
	if !strings.HasPrefix(sub.System, "You review code. REVIEWER-PROMPT") || !strings.Contains(sub.System, "<active_skill name=\"audit\">") || !strings.Contains(sub.System, "Audit main.go.") {
		t.Errorf("fork system prompt:\n%s", sub.System)
	}
	if got := toolNames(sub); !slices.Equal(got, []string{"file_read"}) {
		t.Errorf("fork tools = %v, want the reviewer's [file_read]", got)
	}
	if r := lastResults(reqs[2]); len(r) != 1 || r[0].Content != "Result of skill 'audit':\naudited" {
		t.Errorf("result = %+v", r)
	}
	if _, err := env.agent.Turn(t.Context(), "lost"); err != nil {
		t.Fatal(err)
	}
	reqs = env.model.Requests()
	want := "Skill 'lost' runs in the subagent 'nobody', which does not exist (known: general-purpose, reviewer, writer)."
	if r := lastResults(reqs[len(reqs)-1]); len(r) != 1 || !r[0].IsError || !strings.Contains(r[0].Content, want) {
		t.Errorf("result = %+v, want %q", r, want)
	}
}

// TestSubagentPreloadsSkills: a definition's skills are in its system
// prompt, fully, as active-skill blocks.
func TestSubagentPreloadsSkills(t *testing.T) {
	t.Parallel()
	def := &subagents.Definition{Name: "coder", Description: "Codes.", Prompt: "You code.", Skills: []string{"auto-coder"}, Source: skills.SourceUser}
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{callAgent("c1", "coder", "go")}},
		{Text: "coded"},
		{Text: "ok"},
	}, func(o *Options) { o.Subagents = testSubagents(def) })
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	sub := env.model.Requests()[1]
	if !strings.Contains(sub.System, "<active_skill name=\"auto-coder\">") || !strings.Contains(sub.System, "# Auto Coder\n\nFollow these steps.") {
		t.Errorf("system prompt lacks the preloaded skill:\n%s", sub.System)
	}
	if env.agent.Skills().IsActive("auto-coder") {
		t.Error("preloading activated the skill in the session")
	}
}

// overlapApprover approves after a pause and records whether two prompts
// were ever open at once, or a prompt was open while an event arrived.
type overlapApprover struct {
	open    atomic.Int32
	overlap atomic.Bool
	asked   atomic.Int32
}

func (o *overlapApprover) Approve(ctx context.Context, _ ApprovalRequest) (ApprovalAnswer, error) {
	if o.open.Add(1) > 1 {
		o.overlap.Store(true)
	}
	defer o.open.Add(-1)
	o.asked.Add(1)
	time.Sleep(20 * time.Millisecond)
	return ApprovalAnswer{Decision: ApproveOnce}, nil
}

// TestConcurrentSubagentsAskOneAtATime: subagents running at once ask the
// user one at a time, and no event reaches the sink while a question is
// open.
func TestConcurrentSubagentsAskOneAtATime(t *testing.T) {
	t.Parallel()
	ap := &overlapApprover{}
	var during atomic.Bool
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{callAgent("call_a", "general-purpose", "task-A"), callAgent("call_b", "general-purpose", "task-B")}},
		{When: "task-A", ToolCalls: []providertest.Call{{Name: "shell", Args: `{"command":"a"}`}}},
		{When: "task-A", Text: "A done"},
		{When: "task-B", ToolCalls: []providertest.Call{{Name: "shell", Args: `{"command":"b"}`}}},
		{When: "task-B", Text: "B done"},
		{Text: "both done"},
	}, func(o *Options) {
		o.Subagents = testSubagents()
		o.Policy = permissions.Policy{Level: permissions.Supervised}
		o.Approver = ap
		inner := o.Sink
		o.Sink = func(ev Event) {
			if ap.open.Load() > 0 {
				during.Store(true)
			}
			inner(ev)
		}
	})
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if ap.asked.Load() != 2 {
		t.Fatalf("asked %d times, want 2", ap.asked.Load())
	}
	if ap.overlap.Load() {
		t.Error("two approval prompts were open at once")
	}
	if during.Load() {
		t.Error("an event reached the sink while a prompt was open")
	}
}

// TestSubagentMemory: memory is the session's, as for forks: a subagent
// gets the memory tools, and the `## Memory` section that explains them,
// only when its tools name them.
func TestSubagentMemory(t *testing.T) {
	t.Parallel()
	withMemory := &subagents.Definition{Name: "keeper", Description: "Keeps.", Prompt: "You keep.", Tools: []string{"Read", "memory_store"}, Source: skills.SourceUser}
	for _, tt := range []struct {
		typ  string
		want bool
	}{{"general-purpose", false}, {"keeper", true}} {
		env := newEnv(t, []providertest.Response{
			{ToolCalls: []providertest.Call{callAgent("c1", tt.typ, "go")}},
			{Text: "ok"},
			{Text: "ok"},
		}, func(o *Options) {
			o.Subagents = testSubagents(withMemory)
			o.Tools = append(o.Tools, echoTool("memory_store", permissions.ClassWrite))
			o.Prompt.Memory = "## Memory\n\nMEMORY-SECTION"
		})
		if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
			t.Fatal(err)
		}
		sub := env.model.Requests()[1]
		if got := strings.Contains(sub.System, "MEMORY-SECTION"); got != tt.want {
			t.Errorf("%s: memory section in the prompt = %v, want %v", tt.typ, got, tt.want)
		}
		if got := slices.Contains(toolNames(sub), "memory_store"); got != tt.want {
			t.Errorf("%s: memory_store among %v = %v, want %v", tt.typ, toolNames(sub), got, tt.want)
		}
	}
}

// TestAgentWorktree: a subagent run with isolation "worktree" (its
// definition's, here) gets the worktree's tools in place of the session's,
// leaves out those the worktree drops, is told where it works, and the
// worktree is finished once, its sentence added to the call's result.
func TestAgentWorktree(t *testing.T) {
	t.Parallel()
	var finished atomic.Int32
	var labels []string
	wtRead := &fakeTool{name: "file_read", class: permissions.ClassRead, run: func(context.Context, json.RawMessage) providers.ToolResult {
		return providers.ToolResult{Content: "WORKTREE-READ"}
	}}
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{callAgent("call_a", "isolated", "Change a.go.")}},
		{ToolCalls: []providertest.Call{{ID: "r1", Name: "file_read", Args: `{"path":"a.go"}`}}},
		{Text: "done"},
		{Text: "ok"},
	}, func(o *Options) {
		o.Subagents = testSubagents(&subagents.Definition{Name: "isolated", Description: "d", Prompt: "You change code.", Isolation: subagents.IsolationWorktree, Source: skills.SourceBuiltin})
		o.Worktree = func(_ context.Context, label string) (*Worktree, error) {
			labels = append(labels, label)
			return &Worktree{
				Path: "/ws/.clawseed/worktrees/x-1", Branch: "clawseed/x-1",
				Tool: func(t Tool) Tool {
					switch t.Spec().Name {
					case "file_read":
						return wtRead
					case "shell":
						return nil
					}
					return t
				},
				Finish: func(context.Context) string { finished.Add(1); return "[worktree kept]" },
			}, nil
		}
	})
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if slices.Contains(toolNames(reqs[1]), "shell") {
		t.Errorf("the subagent got shell, which its worktree left out: %v", toolNames(reqs[1]))
	}
	if !strings.Contains(reqs[1].System, "on the new branch clawseed/x-1") {
		t.Errorf("the subagent was not told its worktree")
	}
	if r := lastResults(reqs[2]); len(r) != 1 || r[0].Content != "WORKTREE-READ" {
		t.Errorf("file_read in the worktree = %+v", r)
	}
	if r := lastResults(reqs[3]); len(r) != 1 || r[0].Content != "done\n\n[worktree kept]" {
		t.Errorf("Agent result = %+v", r)
	}
	if finished.Load() != 1 || !slices.Equal(labels, []string{"a task"}) {
		t.Errorf("finished %d times, labels %v", finished.Load(), labels)
	}
}

// TestAgentWorktreePlanMode: in plan mode an Agent call with isolation
// "worktree" makes no worktree (a new branch and folder are a change to
// the repository, which plan mode refuses whatever approves it); the call
// is refused with plan mode's sentence.
func TestAgentWorktreePlanMode(t *testing.T) {
	t.Parallel()
	made := 0
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{callAgent("call_a", "isolated", "Change a.go.")}},
		{Text: "ok"},
	}, func(o *Options) {
		o.Policy.Level = permissions.Full
		o.Subagents = testSubagents(&subagents.Definition{Name: "isolated", Description: "d", Prompt: "You change code.", Isolation: subagents.IsolationWorktree, Source: skills.SourceBuiltin})
		o.Worktree = func(_ context.Context, label string) (*Worktree, error) {
			made++
			return &Worktree{Path: "/ws/.clawseed/worktrees/x-1", Branch: "clawseed/x-1", Tool: func(t Tool) Tool { return t }}, nil
		}
	})
	env.agent.SetPlanMode(true)
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if made != 0 {
		t.Errorf("plan mode made %d worktrees, want none", made)
	}
	reqs := env.model.Requests()
	if r := lastResults(reqs[len(reqs)-1]); len(r) != 1 || !r[0].IsError || !strings.Contains(r[0].Content, "Plan mode") {
		t.Errorf("Agent result = %+v, want plan mode's refusal", r)
	}
}
