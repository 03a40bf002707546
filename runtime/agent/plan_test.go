package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/skills"
)

// planApprover answers exit_plan_mode requests with one answer.
type planApprover struct {
	answer ApprovalAnswer
	asked  []ApprovalRequest
}

func (p *planApprover) Approve(_ context.Context, req ApprovalRequest) (ApprovalAnswer, error) {
	p.asked = append(p.asked, req)
	return p.answer, nil
}

func exitPlan(plan string) providertest.Response {
	return providertest.Response{ToolCalls: []providertest.Call{{Name: exitPlanToolName, Args: `{"plan":` + quoteJSON(plan) + `}`}}}
}

func quoteJSON(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

const testPlan = "# Fix\n\n1. Read main.go\n2. Fix the bug\n   - a detail\n3. Test"

// In plan mode, calls that write or run something are refused with the
// plan sentence whatever the level (full here), reads run; the user's
// approval of the plan ends the mode (the level decides again), and its
// steps become the todo list.
func TestPlanModeRefusesUntilApproved(t *testing.T) {
	t.Parallel()
	ap := &planApprover{answer: ApprovalAnswer{Decision: ApproveOnce}}
	calls := providertest.Response{ToolCalls: []providertest.Call{{Name: "shell", Args: `{}`}, {Name: "file_read", Args: `{}`}}}
	env := newEnv(t, []providertest.Response{calls, exitPlan(testPlan), calls, {Text: "done"}}, func(o *Options) {
		planning(o)
		o.Approver = ap
	})
	if !env.agent.SetPlanMode(true) || env.agent.SetPlanMode(true) {
		t.Fatal("SetPlanMode does not report the change once")
	}
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	if first := reqs[0].Messages[0].Text(); !strings.Contains(first, "Plan mode is on") {
		t.Errorf("the first message does not tell the model: %q", first)
	}
	rs := lastResults(reqs[1])
	if !rs[0].IsError || !strings.HasPrefix(rs[0].Content, "Plan mode: Tool shell is refused while planning") || rs[1].IsError {
		t.Errorf("results in plan mode = %+v", rs)
	}
	if len(ap.asked) != 1 || ap.asked[0].Plan != testPlan || ap.asked[0].Tool != exitPlanToolName {
		t.Fatalf("asked = %+v", ap.asked)
	}
	if rs := lastResults(reqs[2]); rs[0].IsError || !strings.Contains(rs[0].Content, "The user approved the plan. Plan mode is off") {
		t.Errorf("exit_plan_mode result = %+v", rs)
	}
	if rs := lastResults(reqs[3]); rs[0].IsError || rs[1].IsError {
		t.Errorf("results after approval = %+v", rs)
	}
	if env.agent.PlanMode() {
		t.Error("still in plan mode")
	}
	want := []session.Todo{{Content: "Read main.go", Status: "in_progress"}, {Content: "Fix the bug", Status: "pending"}, {Content: "Test", Status: "pending"}}
	if diff := cmp.Diff(want, env.agent.Todos()); diff != "" {
		t.Errorf("todos (-want +got):\n%s", diff)
	}
	if evs := env.eventsOf(EventPlanMode); len(evs) != 2 || !evs[0].PlanMode || evs[1].PlanMode {
		t.Errorf("plan_mode events = %+v", evs)
	}
}

// An edited plan is what the model is told to carry out, and its steps the
// todo list; a rejection keeps the mode and gives the model the reason.
func TestExitPlanAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		answer   ApprovalAnswer
		result   string
		isErr    bool
		planMode bool
		todos    []session.Todo
	}{
		{"edited", ApprovalAnswer{Decision: ApproveOnce, Plan: "- Only test"}, "The user edited and approved the plan. Plan mode is off: carry out this plan now:\n\n- Only test", false, false,
			[]session.Todo{{Content: "Only test", Status: "in_progress"}}},
		{"rejected", ApprovalAnswer{Decision: Deny, Reason: "add a benchmark"}, "The user rejected the plan: add a benchmark\nYou are still in plan mode", true, true, nil},
		{"no list", ApprovalAnswer{Decision: ApproveOnce, Plan: "Just do it."}, "The user edited and approved the plan.", false, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ap := &planApprover{answer: tc.answer}
			env := newEnv(t, []providertest.Response{exitPlan(testPlan), {Text: "ok"}}, func(o *Options) {
				planning(o)
				o.Approver = ap
			})
			env.agent.SetPlanMode(true)
			env.agent.Turn(t.Context(), "go")
			rs := lastResults(env.model.Requests()[1])
			if !strings.HasPrefix(rs[0].Content, tc.result) || rs[0].IsError != tc.isErr {
				t.Errorf("result = %+v", rs[0])
			}
			if env.agent.PlanMode() != tc.planMode {
				t.Errorf("plan mode = %v", env.agent.PlanMode())
			}
			if diff := cmp.Diff(tc.todos, env.agent.Todos()); diff != "" {
				t.Errorf("todos (-want +got):\n%s", diff)
			}
		})
	}
}

// With nobody to ask (run without --yes) the turn ends with the plan as
// its answer and the mode stays on; outside plan mode the call changes
// nothing.
func TestExitPlanWithoutApprover(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{exitPlan(testPlan), {Text: "never asked"}}, planning)
	env.agent.SetPlanMode(true)
	res, err := env.agent.Turn(t.Context(), "go")
	if err != nil || res.Status != StatusOK || res.Final != testPlan || res.Iterations != 1 {
		t.Fatalf("result = %+v, %v", res, err)
	}
	if !env.agent.PlanMode() {
		t.Error("plan mode ended without an approval")
	}

	env = newEnv(t, []providertest.Response{exitPlan(testPlan), {Text: "ok"}}, planning)
	env.agent.Turn(t.Context(), "go")
	if rs := lastResults(env.model.Requests()[1]); !strings.HasPrefix(rs[0].Content, "Plan mode is not on") {
		t.Errorf("result outside plan mode = %+v", rs)
	}
}

// The model hears of a switch once, with the next user message; on and off
// again before it comes says nothing.
func TestPlanModeNotes(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{{Text: "a"}, {Text: "b"}, {Text: "c"}}, planning)
	env.agent.SetPlanMode(true)
	env.agent.Turn(t.Context(), "one")
	env.agent.SetPlanMode(false)
	env.agent.SetPlanMode(true)
	env.agent.Turn(t.Context(), "two")
	env.agent.SetPlanMode(false)
	env.agent.Turn(t.Context(), "three")
	reqs := env.model.Requests()
	last := func(r providers.Request) string { return r.Messages[len(r.Messages)-1].Text() }
	if !strings.Contains(last(reqs[0]), "Plan mode is on") {
		t.Errorf("first: %q", last(reqs[0]))
	}
	if strings.Contains(last(reqs[1]), "Plan mode") {
		t.Errorf("second: %q", last(reqs[1]))
	}
	if !strings.Contains(last(reqs[2]), "Plan mode is off") {
		t.Errorf("third: %q", last(reqs[2]))
	}
}

// A sub-agent starts in its session's plan mode: its writes are refused too.
func TestPlanModeReachesSubAgents(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil, planning)
	env.agent.SetPlanMode(true)
	child, err := env.agent.newChild(childSpec{choice: ModelChoice{Model: env.model, Name: "m"}, tools: []Tool{echoTool("shell", permissions.ClassExec)}})
	if err != nil {
		t.Fatal(err)
	}
	if !child.policy().Plan || child.todoTool || child.planTool {
		t.Errorf("child: plan %v, todo_write %v, exit_plan_mode %v", child.policy().Plan, child.todoTool, child.planTool)
	}
}

// A skill that says `mode: plan` turns plan mode on when activated.
func TestSkillModePlan(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil, func(o *Options) {
		planning(o)
		cat := testSkills()
		cat.Skills = slices.Insert(cat.Skills, 2, &skills.Skill{Name: "planner", Dir: "/skills/planner", Source: skills.SourceProject,
			Description: "Plans.", Body: "Plan first.", Status: skills.StatusListed, UserInvocable: true, Mode: skills.ModePlan})
		o.Skills.SetCatalog(cat)
	})
	if out := env.agent.ActivateSkill(t.Context(), "greeter", "Ada"); out.IsError || env.agent.PlanMode() {
		t.Fatalf("greeter: %+v, plan mode %v", out, env.agent.PlanMode())
	}
	if out := env.agent.ActivateSkill(t.Context(), "planner", ""); out.IsError || !env.agent.PlanMode() {
		t.Fatalf("planner: %+v, plan mode %v", out, env.agent.PlanMode())
	}
}

func TestPlanTodos(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("y", maxTodoRunes+5)
	for _, tc := range []struct {
		name, plan string
		want       []string
	}{
		{"numbered with nested", testPlan, []string{"Read main.go", "Fix the bug", "Test"}},
		{"bullets and boxes", "Steps:\n- [ ] one\n* [x] two\n+ three\n", []string{"one", "two", "three"}},
		{"indented list", "  1) a\n  2) b", []string{"a", "b"}},
		{"fenced code skipped", "```\n- not a step\n```\n- step", []string{"step"}},
		{"no list", "Just do it.", nil},
		{"not items", "-no space\n1.no space\n1234567890. too long", nil},
		{"long item cut", "- " + long, []string{strings.Repeat("y", maxTodoRunes-1) + "…"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for i, td := range planTodos(tc.plan) {
				got = append(got, td.Content)
				want := session.TodoPending
				if i == 0 {
					want = session.TodoInProgress
				}
				if td.Status != want {
					t.Errorf("item %d status %q", i, td.Status)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
}

// planTodos takes any plan a model writes: never a panic, never more than
// the list's limits, never an item todo_write would refuse.
func FuzzPlanTodos(f *testing.F) {
	for _, s := range []string{testPlan, "- a\n- b", "```\n- x\n```", "1) x", "  \t- [ ] y", "", "9999999999. z", "- \x00\n* \u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, plan string) {
		todos := planTodos(plan)
		if len(todos) > maxTodos {
			t.Fatalf("%d items", len(todos))
		}
		inProgress := 0
		for _, td := range todos {
			if td.Content == "" || len([]rune(td.Content)) > maxTodoRunes {
				t.Fatalf("item %q", td.Content)
			}
			if td.Status == session.TodoInProgress {
				inProgress++
			}
		}
		if inProgress > 1 {
			t.Fatalf("%d in progress", inProgress)
		}
	})
}

// The UI switches the mode and reads the list from its own goroutines
// while a turn runs (go test -race).
func TestPlanModeSwitchDuringTurn(t *testing.T) {
	t.Parallel()
	var resps []providertest.Response
	for range 20 {
		resps = append(resps, providertest.Response{ToolCalls: []providertest.Call{{Name: "shell", Args: `{}`}, {Name: "file_read", Args: `{}`}}})
		resps = append(resps, todoCall(`{"todos":[{"content":"a","status":"in_progress"}]}`))
	}
	resps = append(resps, providertest.Response{Text: "ok"})
	env := newEnv(t, resps, func(o *Options) {
		planning(o)
		o.MaxIterations = 100
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			env.agent.SetPlanMode(i%2 == 0)
			_ = env.agent.Todos()
			_ = env.agent.PlanMode()
		}
	}()
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	<-done
}
