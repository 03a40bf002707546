package agent

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// The response event carries each model response whole, after its deltas
// and before its tool calls run (issue 23, part 6: what `run --output
// stream-json` shows as an assistant message).
func TestResponseEvent(t *testing.T) {
	t.Parallel()
	usage := providers.Usage{InputTokens: 10, OutputTokens: 4, CachedInputTokens: 3}
	env := newEnv(t, []providertest.Response{
		{Reasoning: "think", Text: "let me look", ToolCalls: []providertest.Call{{Name: "file_read", Args: `{"path":"a"}`}}, Usage: &usage},
		{Text: "done"},
	}, nil)
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	var order []EventType
	for _, ev := range env.events {
		switch ev.Type {
		case EventTextDelta, EventReasoningDelta, EventUsage:
			continue
		}
		order = append(order, ev.Type)
	}
	want := []EventType{EventTurnStart, EventResponse, EventToolCall, EventToolResult, EventResponse, EventTurnEnd}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("event order (-want +got):\n%s", diff)
	}
	resps := env.eventsOf(EventResponse)
	first := resps[0]
	if first.Iteration != 1 || first.Response == nil {
		t.Fatalf("first response event = %+v", first)
	}
	r := first.Response
	if r.Model != "test-model" || r.StopReason != providers.StopToolUse || r.Usage != usage || r.Duration <= 0 {
		t.Errorf("response = model %q stop %q usage %+v took %v", r.Model, r.StopReason, r.Usage, r.Duration)
	}
	var kinds []providers.PartType
	for _, p := range r.Message.Parts {
		kinds = append(kinds, p.Type)
	}
	if diff := cmp.Diff([]providers.PartType{providers.PartReasoning, providers.PartText, providers.PartToolCall}, kinds); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	if calls := r.Message.ToolCalls(); len(calls) != 1 || calls[0].Name != "file_read" || calls[0].ID == "" {
		t.Errorf("calls = %+v", calls)
	}
	if last := resps[1].Response; last.Message.Text() != "done" || last.StopReason != providers.StopEndTurn || resps[1].Iteration != 2 {
		t.Errorf("second response = %+v", resps[1])
	}
}

// In text tool-call mode the calls parsed from the text are parts of the
// response event's message, with the ids their results answer.
func TestResponseEventTextTools(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{
		{Text: `reading <tool_call>{"name": "file_read", "arguments": {"path": "a"}}</tool_call>`},
		{Text: "done"},
	}, func(o *Options) { o.TextTools = true })
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	r := env.eventsOf(EventResponse)[0].Response
	calls := r.Message.ToolCalls()
	results := env.eventsOf(EventToolResult)
	if len(calls) != 1 || calls[0].Name != "file_read" || len(results) != 1 || results[0].ID != calls[0].ID {
		t.Errorf("calls %+v, results %+v", calls, results)
	}
	// History keeps the calls inside the text only.
	if h := env.agent.History(); len(h[1].ToolCalls()) != 0 {
		t.Errorf("history message has tool-call parts: %+v", h[1])
	}
}

// A call refused on permission grounds (the level forbids it, nobody can
// approve it, the user says no) is a permission_denied event with the
// call's id, name and arguments; a call that runs is not.
func TestPermissionDeniedEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		level   permissions.Level
		answers []Approval // nil: no approver
		denied  bool
	}{
		{"nobody to ask", permissions.Supervised, nil, true},
		{"the user denies", permissions.Supervised, []Approval{Deny}, true},
		{"the user approves", permissions.Supervised, []Approval{ApproveOnce}, false},
		{"full allows", permissions.Full, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, []providertest.Response{
				{ToolCalls: []providertest.Call{{Name: "shell", Args: `{"command":"rm x"}`}, {Name: "file_read", Args: `{"path":"a"}`}}},
				{Text: "ok"},
			}, func(o *Options) {
				o.Policy = permissions.Policy{Level: tt.level}
				if tt.answers != nil {
					o.Approver = &scriptedApprover{answers: tt.answers}
				}
			})
			if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			got := env.eventsOf(EventPermissionDenied)
			if !tt.denied {
				if len(got) != 0 {
					t.Errorf("denials = %+v", got)
				}
				return
			}
			call := env.eventsOf(EventToolCall)[0]
			want := []Event{{Type: EventPermissionDenied, ID: call.ID, Name: "shell", Args: `{"command":"rm x"}`}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("denials (-want +got):\n%s", diff)
			}
		})
	}
}
