package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/subagents"
)

// ownMemory is a SubagentMemory whose tools record their calls.
type ownMemory struct {
	mu    sync.Mutex
	calls []string
	asked []string // definitions asked for
}

func (o *ownMemory) open(def *subagents.Definition) (*SubagentMemory, error) {
	o.mu.Lock()
	o.asked = append(o.asked, def.Name)
	o.mu.Unlock()
	if def.Name == "broken" {
		return nil, errors.New("memory: refused")
	}
	tool := func(name string, class permissions.Class) Tool {
		return &fakeTool{name: name, class: class, run: func(_ context.Context, args json.RawMessage) providers.ToolResult {
			o.mu.Lock()
			defer o.mu.Unlock()
			o.calls = append(o.calls, name+":"+string(args))
			return providers.ToolResult{Content: "own " + name}
		}}
	}
	return &SubagentMemory{
		Scope: def.Memory, Folder: "/mem/projects/k/agents/" + def.Name,
		Index: func() string { return "# Memories of the " + def.Name + " subagent\n\n- [OWN-INDEX](own.md) — own" },
		Tools: []Tool{tool("memory_recall", permissions.ClassRead), tool("memory_store", permissions.ClassWrite), tool("memory_forget", permissions.ClassWrite)},
	}, nil
}

// TestSubagentOwnMemory: a subagent with a `memory` scope has its own
// `## Memory` section (its MEMORY.md, not the session's) and its own memory
// tools in place of the session's, whatever its `tools` say; its
// `disallowedTools` still remove them; knowledge (the session's graph) is
// not given; its memory_store runs its own tool. The main prompt never
// shows its memory; without `memory` nothing changes.
func TestSubagentOwnMemory(t *testing.T) {
	t.Parallel()
	keeper := &subagents.Definition{Name: "keeper", Description: "Keeps.", Prompt: "You keep.", Tools: []string{"Read"}, Memory: "project", Source: skills.SourceUser}
	narrow := &subagents.Definition{Name: "narrow", Description: "Narrow.", Prompt: "You narrow.", DisallowedTools: []string{"memory_forget"}, Memory: "user", Source: skills.SourceUser}
	own := &ownMemory{}
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{callAgent("c1", "keeper", "remember this")}},
		{ToolCalls: []providertest.Call{{ID: "k1", Name: "memory_store", Args: `{"name":"n"}`}}},
		{Text: "stored"},
		{ToolCalls: []providertest.Call{callAgent("c2", "narrow", "narrow down")}},
		{Text: "narrowed"},
		{ToolCalls: []providertest.Call{callAgent("c3", "reviewer", "review")}},
		{Text: "reviewed"},
		{Text: "done"},
	}, func(o *Options) {
		o.Subagents = testSubagents(keeper, narrow)
		o.Tools = append(o.Tools, echoTool("memory_store", permissions.ClassWrite), echoTool("memory_recall", permissions.ClassRead),
			echoTool("memory_forget", permissions.ClassWrite), echoTool("knowledge", permissions.ClassWrite))
		o.Memory = &fakeMemory{user: "MAIN-USER-INDEX", project: "MAIN-PROJECT-INDEX"}
		o.SubagentMemory = own.open
	})
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	if len(reqs) != 8 {
		t.Fatalf("%d requests", len(reqs))
	}
	main, sub := reqs[0], reqs[1]
	for _, want := range []string{"## Memory", "as the keeper subagent", "/mem/projects/k/agents/keeper (project scope)", "### Your memory (MEMORY.md)", "OWN-INDEX", "Save only what cannot be derived"} {
		if !strings.Contains(sub.System, want) {
			t.Errorf("subagent prompt lacks %q:\n%s", want, sub.System)
		}
	}
	for _, not := range []string{"MAIN-USER-INDEX", "MAIN-PROJECT-INDEX", "<memory_context>"} {
		if strings.Contains(sub.System, not) {
			t.Errorf("subagent prompt has %q", not)
		}
	}
	if strings.Contains(main.System, "OWN-INDEX") || !strings.Contains(main.System, "MAIN-USER-INDEX") {
		t.Errorf("main prompt:\n%s", main.System)
	}
	if got, want := toolNames(sub), []string{"file_read", "memory_forget", "memory_recall", "memory_store"}; !slices.Equal(got, want) {
		t.Errorf("keeper tools = %v, want %v", got, want)
	}
	own.mu.Lock()
	calls := slices.Clone(own.calls)
	own.mu.Unlock()
	if want := []string{`memory_store:{"name":"n"}`}; !slices.Equal(calls, want) {
		t.Errorf("own tool calls = %v, want %v", calls, want)
	}
	if r := lastResults(reqs[2]); len(r) != 1 || r[0].Content != "own memory_store" {
		t.Errorf("keeper's memory_store result = %+v", r)
	}
	if got, want := toolNames(reqs[4]), []string{"file_read", "memory_recall", "memory_store", "shell"}; !slices.Equal(got, want) {
		t.Errorf("narrow tools = %v, want %v", got, want)
	}
	if !strings.Contains(reqs[4].System, "(user scope)") {
		t.Errorf("narrow prompt:\n%s", reqs[4].System)
	}
	// No `memory`: the session's section is dropped, no memory tools, and
	// the session is not asked for a memory.
	if strings.Contains(reqs[6].System, "## Memory") || slices.ContainsFunc(toolNames(reqs[6]), isMemoryTool) {
		t.Errorf("reviewer: %v\n%s", toolNames(reqs[6]), reqs[6].System)
	}
	if want := []string{"keeper", "narrow"}; !slices.Equal(own.asked, want) {
		t.Errorf("memories asked for %v, want %v", own.asked, want)
	}
}

// TestSubagentOwnMemoryErrors: a memory that cannot be made stops the run
// with the error; with no memory in the session (SubagentMemory nil) the
// subagent runs as without `memory`; an untrusted definition's question
// names its memory folder.
func TestSubagentOwnMemoryErrors(t *testing.T) {
	t.Parallel()
	broken := &subagents.Definition{Name: "broken", Description: "B.", Prompt: "You break.", Memory: "project", Source: skills.SourceUser}
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{callAgent("c1", "broken", "x")}},
		{Text: "ok"},
	}, func(o *Options) {
		o.Subagents = testSubagents(broken)
		o.SubagentMemory = (&ownMemory{}).open
	})
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	if r := lastResults(reqs[len(reqs)-1]); len(r) != 1 || !r[0].IsError || r[0].Content != "Subagent 'broken' cannot run: memory: refused" {
		t.Fatalf("result = %+v", r)
	}

	off := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{callAgent("c1", "broken", "x")}},
		{Text: "ran"},
		{Text: "ok"},
	}, func(o *Options) { o.Subagents = testSubagents(broken) })
	if _, err := off.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if r := lastResults(off.model.Requests()[2]); len(r) != 1 || r[0].Content != "ran" {
		t.Fatalf("memory off: result = %+v", r)
	}

	project := &subagents.Definition{Name: "keeper", Description: "K.", Prompt: "You keep.", Memory: "project", Source: skills.SourceProjectClaude, Path: "/ws/.claude/agents/keeper.md"}
	ap := &scriptedApprover{answers: []Approval{Deny}}
	untrusted := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{callAgent("c1", "keeper", "x")}},
		{Text: "ok"},
	}, func(o *Options) {
		o.Subagents = testSubagents(project)
		o.Tools = append(o.Tools, echoTool("memory_store", permissions.ClassWrite))
		o.SubagentMemory = (&ownMemory{}).open
		o.UntrustedWorkspace = true
		o.Approver = ap
	})
	if _, err := untrusted.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if len(ap.asked) != 1 || !strings.Contains(ap.asked[0].Summary, "runs with file_read, memory_store, shell; its own project memory is /mem/projects/k/agents/keeper") {
		t.Fatalf("asked %+v", ap.asked)
	}
}

// TestForkSkillInSubagentWithMemory: a fork skill with `agent:` naming a
// subagent that has its own memory runs with that memory, as the Agent
// tool's run does; a memory that cannot be made refuses the skill.
func TestForkSkillInSubagentWithMemory(t *testing.T) {
	t.Parallel()
	fork := func(name, agent string) *skills.Skill {
		return &skills.Skill{Name: name, Dir: "/skills/" + name, Source: skills.SourceUser, Description: "Forks.", Context: "fork", Agent: agent,
			Body: "Audit $ARGUMENTS.", Status: skills.StatusListed, UserInvocable: true}
	}
	keeper := &subagents.Definition{Name: "keeper", Description: "Keeps.", Prompt: "You keep.", Tools: []string{"Read"}, Memory: "local", Source: skills.SourceUser}
	broken := &subagents.Definition{Name: "broken", Description: "B.", Prompt: "You break.", Memory: "user", Source: skills.SourceUser}
	env := newEnv(t, []providertest.Response{
		skillCall(`{"skill":"audit","args":"main.go"}`),
		{Text: "audited"},
		{Text: "ok"},
		skillCall(`{"skill":"breaks"}`),
		{Text: "ok"},
	}, func(o *Options) {
		runnerSkills(fork("audit", "keeper"), fork("breaks", "broken"))(o)
		o.Subagents = testSubagents(keeper, broken)
		o.Tools = append(o.Tools, echoTool("memory_store", permissions.ClassWrite))
		o.Memory = &fakeMemory{user: "MAIN-USER-INDEX"}
		o.SubagentMemory = (&ownMemory{}).open
	})
	if _, err := env.agent.Turn(t.Context(), "audit"); err != nil {
		t.Fatal(err)
	}
	sub := env.model.Requests()[1]
	if !strings.Contains(sub.System, "OWN-INDEX") || !strings.Contains(sub.System, "(local scope)") || strings.Contains(sub.System, "MAIN-USER-INDEX") || !strings.Contains(sub.System, "Audit main.go.") {
		t.Errorf("fork system prompt:\n%s", sub.System)
	}
	if got, want := toolNames(sub), []string{"file_read", "memory_store"}; !slices.Equal(got, want) {
		t.Errorf("fork tools = %v, want %v", got, want)
	}
	if _, err := env.agent.Turn(t.Context(), "breaks"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	want := "Skill 'breaks' runs in the subagent 'broken', which cannot run: memory: refused"
	if r := lastResults(reqs[len(reqs)-1]); len(r) != 1 || !r[0].IsError || !strings.Contains(r[0].Content, want) {
		t.Errorf("result = %+v, want %q", r, want)
	}
}
