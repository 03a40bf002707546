package agent

import (
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/runtime/hooks"
)

// Agent calls pass the pre-call and post-call paths of every tool call
// (prepare, afterCall): PreToolUse and PostToolUse hooks, permission rules
// and approval, with Claude Code's tool name and input.

// TestAgentCallHooks: PreToolUse and PostToolUse hooks matching "Agent"
// or Claude Code's older "Task" fire for an Agent call, with Claude
// Code's tool_input; the post hook sees the subagent's final text; what
// both say reaches the model at the end of the call's result.
func TestAgentCallHooks(t *testing.T) {
	t.Parallel()
	for _, matcher := range []string{"Agent", "Task", "Agent|Bash", ""} {
		t.Run(matcher, func(t *testing.T) {
			t.Parallel()
			ctx := func(event string) func(map[string]any) hooks.CommandResult {
				return func(map[string]any) hooks.CommandResult {
					return answer(`{"hookSpecificOutput":{"hookEventName":"` + event + `","additionalContext":"` + event + `-note"}}`)
				}
			}
			env, hs := hookEnv(t, []providertest.Response{
				{ToolCalls: []providertest.Call{callAgent("call_a", "reviewer", "task-A")}},
				{When: "task-A", Text: "A done"},
				{Text: "finished"},
			}, []hooks.Hook{
				hook(hooks.PreToolUse, matcher, "pre", userSrc),
				hook(hooks.PostToolUse, matcher, "post", userSrc),
			}, map[string]func(map[string]any) hooks.CommandResult{"pre": ctx(hooks.PreToolUse), "post": ctx(hooks.PostToolUse)},
				func(o *Options) { o.Subagents = testSubagents() })
			if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			pre, post := agentHookInputs(hs.of(hooks.PreToolUse)), agentHookInputs(hs.of(hooks.PostToolUse))
			if len(pre) != 1 || len(post) != 1 {
				t.Fatalf("PreToolUse %v, PostToolUse %v: want one each for the Agent call", pre, post)
			}
			in := pre[0]["tool_input"].(map[string]any)
			if pre[0]["tool_use_id"] != "call_a" || in["subagent_type"] != "reviewer" || in["prompt"] != "task-A" || in["description"] != "a task" {
				t.Errorf("PreToolUse input %v", pre[0])
			}
			// The output is the result as the model gets it, the PreToolUse
			// context included, as for every tool.
			if out, _ := post[0]["tool_response"].(map[string]any)["output"].(string); !strings.HasPrefix(out, "A done\n\n") || post[0]["tool_use_id"] != "call_a" {
				t.Errorf("PostToolUse input %v, want the subagent's result", post[0])
			}
			reqs := env.model.Requests()
			r := lastResults(reqs[len(reqs)-1])
			if len(r) != 1 || r[0].IsError || !strings.HasPrefix(r[0].Content, "A done") ||
				!strings.Contains(r[0].Content, "PreToolUse hook additional context: PreToolUse-note") ||
				!strings.Contains(r[0].Content, "PostToolUse hook additional context: PostToolUse-note") {
				t.Errorf("result %+v", r)
			}
		})
	}
}

// agentHookInputs are the hook inputs of Agent calls (a subagent's own
// calls fire hooks too).
func agentHookInputs(ins []map[string]any) []map[string]any {
	var out []map[string]any
	for _, in := range ins {
		if in["tool_name"] == "Agent" {
			out = append(out, in)
		}
	}
	return out
}

// TestAgentCallPreToolUseDecisions: a PreToolUse deny (exit 2 or JSON)
// stops the subagent before it starts (no SubagentStart, no model
// request, no PostToolUse); updatedInput changes the task it gets; ask
// asks the user.
func TestAgentCallPreToolUseDecisions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		answer   hooks.CommandResult
		approver *scriptedApprover
		want     string // in the call's result
		ran      bool   // the subagent ran
	}{
		{name: "exit 2", answer: hooks.CommandResult{ExitCode: 2, Stderr: "no subagents today"},
			want: "Tool call denied by a PreToolUse hook: no subagents today"},
		{name: "deny", answer: answer(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not this one","additionalContext":"use Read"}}`),
			want: "Tool call denied by a PreToolUse hook: not this one\n\n<system-reminder>\nPreToolUse hook additional context: use Read"},
		{name: "updatedInput", answer: answer(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"subagent_type":"reviewer","description":"a task","prompt":"task-B"}}}`),
			want: "B done", ran: true},
		{name: "ask denied", answer: answer(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check first"}}`),
			approver: &scriptedApprover{answers: []Approval{Deny}}, want: "The user denied the Agent call."},
		{name: "ask approved", answer: answer(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}`),
			approver: &scriptedApprover{answers: []Approval{ApproveOnce}}, want: "A done", ran: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env, hs := hookEnv(t, []providertest.Response{
				{ToolCalls: []providertest.Call{callAgent("call_a", "reviewer", "task-A")}},
				{When: "task-A", Text: "A done"},
				{When: "task-B", Text: "B done"},
				{Text: "finished"},
			}, []hooks.Hook{
				hook(hooks.PreToolUse, "Agent", "pre", userSrc),
				hook(hooks.PostToolUse, "Agent", "post", userSrc),
				hook(hooks.PostToolUseFailure, "Agent", "post", userSrc),
				hook(hooks.SubagentStart, "", "post", userSrc),
			}, map[string]func(map[string]any) hooks.CommandResult{
				"pre":  func(map[string]any) hooks.CommandResult { return tt.answer },
				"post": func(map[string]any) hooks.CommandResult { return answer("") },
			}, func(o *Options) {
				o.Subagents = testSubagents()
				if tt.approver != nil {
					o.Approver = tt.approver
				}
			})
			if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			reqs := env.model.Requests()
			r := lastResults(reqs[len(reqs)-1])
			if len(r) != 1 || r[0].IsError == tt.ran || !strings.HasPrefix(r[0].Content, tt.want) {
				t.Errorf("result %+v, want %q", r, tt.want)
			}
			if ran := len(reqs) == 3; ran != tt.ran {
				t.Errorf("%d requests: the subagent ran = %v, want %v", len(reqs), ran, tt.ran)
			}
			started, post := len(hs.of(hooks.SubagentStart)), len(hs.of(hooks.PostToolUse))+len(hs.of(hooks.PostToolUseFailure))
			if want := map[bool]int{true: 1}[tt.ran]; started != want || post != want {
				t.Errorf("SubagentStart fired %d times, PostToolUse(Failure) %d times; want %d", started, post, want)
			}
			if tt.approver != nil && (len(tt.approver.asked) != 1 || tt.approver.asked[0].Tool != "Agent" || !tt.approver.asked[0].HookAsked ||
				tt.approver.asked[0].Summary != "subagent reviewer: a task") {
				t.Errorf("asked %+v", tt.approver.asked)
			}
		})
	}
}

// TestAgentCallPostToolUseFailure: an Agent call whose subagent cannot
// run is a failure for the post hooks, with the error the model sees.
func TestAgentCallPostToolUseFailure(t *testing.T) {
	t.Parallel()
	env, hs := hookEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{callAgent("call_a", "nope", "task-A")}},
		{Text: "finished"},
	}, []hooks.Hook{hook(hooks.PostToolUseFailure, "Task", "post", userSrc)},
		map[string]func(map[string]any) hooks.CommandResult{"post": func(map[string]any) hooks.CommandResult { return answer("") }},
		func(o *Options) { o.Subagents = testSubagents() })
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	in := hs.of(hooks.PostToolUseFailure)
	if len(in) != 1 || in[0]["tool_name"] != "Agent" || !strings.HasPrefix(in[0]["error"].(string), "Unknown subagent_type 'nope'") {
		t.Errorf("PostToolUseFailure inputs %v", in)
	}
}

// TestAgentCallPermissionRules: a deny rule on Agent, or on one subagent
// (`Agent(reviewer)`), refuses the call before its subagent starts,
// whatever the level; an ask rule asks about it.
func TestAgentCallPermissionRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		rules    []string
		approver *scriptedApprover
		want     []string // the results of the reviewer's and the writer's call
	}{
		{name: "deny Agent", rules: []string{"deny", "Agent"},
			want: []string{`Tool call denied by the deny rule "Agent"`, `Tool call denied by the deny rule "Agent"`}},
		{name: "deny one subagent", rules: []string{"deny", "Agent(reviewer)"},
			want: []string{`Tool call denied by the deny rule "Agent(reviewer)"`, "B done"}},
		{name: "ask", rules: []string{"ask", "Agent(writer)"}, approver: &scriptedApprover{answers: []Approval{Deny}},
			want: []string{"A done", "The user denied the Agent call."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, []providertest.Response{
				{ToolCalls: []providertest.Call{callAgent("call_a", "reviewer", "task-A"), callAgent("call_b", "writer", "task-B")}},
				{When: "task-A", Text: "A done"},
				{When: "task-B", Text: "B done"},
				{Text: "finished"},
			}, func(o *Options) {
				o.Subagents = testSubagents()
				o.Rules = parseRules(t, tt.rules...)
				if tt.approver != nil {
					o.Approver = tt.approver
				}
			})
			if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			reqs := env.model.Requests()
			r := lastResults(reqs[len(reqs)-1])
			if len(r) != 2 || !strings.HasPrefix(r[0].Content, tt.want[0]) || !strings.HasPrefix(r[1].Content, tt.want[1]) {
				t.Fatalf("results %+v, want %q", r, tt.want)
			}
			ran := 0
			for _, want := range tt.want {
				if strings.HasSuffix(want, "done") {
					ran++
				}
			}
			if len(reqs) != 2+ran {
				t.Errorf("%d requests, want %d (subagents that ran: %d)", len(reqs), 2+ran, ran)
			}
			denied := env.eventsOf(EventPermissionDenied)
			if want := 2 - ran; len(denied) != want {
				t.Errorf("permission denials %+v, want %d", denied, want)
			}
		})
	}
}
