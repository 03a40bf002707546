package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/session"
)

// The todo list shows above the editor while items are open (the item in
// progress marked), and plan mode as a line under it; Shift+Tab asks the
// session for its next mode.
func TestTodosAndPlanMode(t *testing.T) {
	toggled := make(chan struct{}, 1)
	h := newHarness(t, 72, 24, Options{CycleMode: func() { toggled <- struct{}{} }})
	h.sendTurn("fix the login bug")
	h.ui.Handle(agent.Event{Type: agent.EventTurnStart})
	h.ui.Handle(agent.Event{Type: agent.EventPlanMode, PlanMode: true})
	h.ui.Handle(agent.Event{Type: agent.EventTodos, Todos: []session.Todo{
		{Content: "Read auth.go", Status: session.TodoCompleted},
		{Content: "Fix the token check", Status: session.TodoInProgress},
		{Content: "Run the tests", Status: session.TodoPending},
	}})
	h.ui.Handle(agent.Event{Type: agent.EventTurnEnd, Status: agent.StatusOK})
	got := h.read()
	h.golden("todos-plan", h.waitFor("shift+tab to leave"))
	h.press(tea.KeyTab, tea.ModShift)
	<-toggled
	h.ui.Handle(agent.Event{Type: agent.EventPlanMode, PlanMode: false})
	h.ui.Handle(agent.Event{Type: agent.EventTodos, Todos: []session.Todo{{Content: "Read auth.go", Status: session.TodoCompleted}}})
	s := h.waitFor("Plan mode off")
	if s = h.settle(); strings.Contains(s, "shift+tab to leave") || strings.Contains(s, "☰ todos") {
		t.Fatalf("the plan line or a finished list stayed:\n%s", s)
	}
	h.typeText("bye")
	h.press(tea.KeyEnter, 0)
	h.result(got)
}

// Accept-edits mode shows as its line under the editor until plan mode
// (the next mode of the cycle) takes its place, and Shift+Tab asks the
// session for the next mode each time.
func TestAcceptEditsMode(t *testing.T) {
	cycled := make(chan struct{}, 1)
	h := newHarness(t, 72, 24, Options{CycleMode: func() { cycled <- struct{}{} }})
	got := h.read()
	h.press(tea.KeyTab, tea.ModShift)
	<-cycled
	h.ui.Handle(agent.Event{Type: agent.EventAcceptEdits, AcceptEdits: true})
	h.golden("accept-edits", h.waitFor("shift+tab to cycle"))
	h.press(tea.KeyTab, tea.ModShift)
	<-cycled
	h.ui.Handle(agent.Event{Type: agent.EventAcceptEdits})
	h.ui.Handle(agent.Event{Type: agent.EventPlanMode, PlanMode: true})
	h.waitFor("shift+tab to leave")
	if s := h.settle(); strings.Contains(s, "shift+tab to cycle") {
		t.Fatalf("the accept-edits line stayed in plan mode:\n%s", s)
	}
	h.typeText("bye")
	h.press(tea.KeyEnter, 0)
	h.result(got)
}

// A plan is approved with y, edited with e (Enter approves the edit), or
// rejected with t and a reason.
func TestPlanApproval(t *testing.T) {
	plan := "# Fix the login bug\n\n1. Read `auth.go`\n2. Fix the token check"
	for _, tc := range []struct {
		name string
		keys func(h *harness)
		want agent.ApprovalAnswer
	}{
		{"yes", func(h *harness) { h.typeText("y") }, agent.ApprovalAnswer{Decision: agent.ApproveOnce}},
		{"edit", func(h *harness) {
			h.typeText("e")
			h.waitFor("Edit the plan")
			h.press(tea.KeyEnd, tea.ModCtrl)
			h.press(tea.KeyEnter, tea.ModShift)
			h.typeText("3. Run the tests")
			h.press(tea.KeyEnter, 0)
		}, agent.ApprovalAnswer{Decision: agent.ApproveOnce, Plan: plan + "\n3. Run the tests"}},
		{"tell", func(h *harness) {
			h.typeText("t")
			h.typeText("also add a test")
			h.press(tea.KeyEnter, 0)
		}, agent.ApprovalAnswer{Decision: agent.Deny, Reason: "also add a test"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, 72, 20, Options{})
			req := agent.ApprovalRequest{Tool: "exit_plan_mode", Args: `{"plan":"x"}`, Plan: plan}
			got := make(chan agent.ApprovalAnswer, 1)
			go func() {
				a, _ := h.ui.Approve(context.Background(), req)
				got <- a
			}()
			screen := h.waitFor("keep planning")
			if tc.name == "yes" {
				h.golden("approval-plan", screen)
			}
			tc.keys(h)
			if a := <-got; a != tc.want {
				t.Fatalf("answer %+v, want %+v", a, tc.want)
			}
		})
	}
}

// The status line says plan mode is on and how far the todo list is, while
// it has open items.
func TestStatusLinePlanAndTodos(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		r    repl.StatusReport
		want string
	}{
		{repl.StatusReport{}, "m · 0 tokens · $0.0000"},
		{repl.StatusReport{PlanMode: true, TodosDone: 1, Todos: 3}, "m · 0 tokens · $0.0000 · plan mode · todos 1/3"},
		{repl.StatusReport{TodosDone: 3, Todos: 3}, "m · 0 tokens · $0.0000"},
	} {
		tc.r.Model = "m"
		if got := statusLine(tc.r); got != tc.want {
			t.Errorf("statusLine(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}
