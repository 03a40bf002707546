package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/skills"
)

// Plan mode (issue 31): the model may read, search and fetch, and every
// write-class call and every command is refused (permissions.PlanAllows,
// through [Agent.policy], the one policy every decision reads) until the
// user approves the plan the model gives exit_plan_mode. The session then
// goes on at the autonomy level it had, with the plan's steps as the todo
// list. The mode is not a level: the tools array stays as it is.

const exitPlanToolName = "exit_plan_mode"

// exitPlanDescription counts toward the tools array budget.
//
//go:embed exit_plan_mode.md
var exitPlanDescription string

const exitPlanSchema = `{"type":"object","properties":{"plan":{"type":"string","description":"The plan, in Markdown"}},"required":["plan"]}`

func exitPlanSpec() providers.ToolSpec {
	return providers.ToolSpec{Name: exitPlanToolName, Description: strings.TrimSpace(exitPlanDescription), Schema: json.RawMessage(exitPlanSchema)}
}

// planState is the mode; UIs switch it (Shift+Tab, /plan) from their own
// goroutines, hence the lock.
type planState struct {
	mu sync.Mutex
	on bool
	// acceptEdits is accept-edits mode (permissions.Policy.AcceptEdits),
	// never on with plan mode: the modes are one cycle (CycleMode).
	acceptEdits bool
	// note tells the model of a change the user made, with the next user
	// message ("" when there is nothing to tell).
	note string
	// stop is the plan of an exit_plan_mode call nobody could approve: the
	// turn ends with it as its answer (run --plan without --yes).
	stop string
}

// The notes the model gets with the next user message when the user
// switched the mode.
const (
	planOnNote  = "<system-reminder>\nPlan mode is on: the user wants a plan before any change. You may read, search and fetch; every tool that writes and every command is refused. Explore what you need, then call exit_plan_mode with your plan (Markdown, its steps as a list) for the user to approve.\n</system-reminder>\n"
	planOffNote = "<system-reminder>\nPlan mode is off: the user turned it off, and you may make changes again.\n</system-reminder>\n"
)

// PlanMode reports whether plan mode is on.
func (a *Agent) PlanMode() bool {
	a.plan.mu.Lock()
	defer a.plan.mu.Unlock()
	return a.plan.on
}

// SetPlanMode turns plan mode on or off for the user (/plan, Shift+Tab,
// run --plan, a skill's `mode: plan`): the next user message tells the
// model. It reports whether the mode changed. It may be called while a
// turn runs: the calls decided after it see the new mode.
func (a *Agent) SetPlanMode(on bool) bool {
	note := planOffNote
	if on {
		note = planOnNote
	}
	return a.switchPlan(on, note)
}

// switchPlan sets the mode, with the note for the model, and tells the sink.
func (a *Agent) switchPlan(on bool, note string) bool {
	a.plan.mu.Lock()
	if a.plan.on == on {
		a.plan.mu.Unlock()
		return false
	}
	a.plan.on = on
	endEdits := on && a.plan.acceptEdits
	if on {
		a.plan.acceptEdits = false // plan mode ends accept-edits mode
	}
	switch {
	case a.plan.note != "" && note != "":
		a.plan.note = "" // on and off again before the model heard: nothing changed for it
	default:
		a.plan.note = note
	}
	a.plan.mu.Unlock()
	if endEdits {
		a.opts.Sink(Event{Type: EventAcceptEdits})
	}
	a.opts.Sink(Event{Type: EventPlanMode, PlanMode: on})
	return true
}

// AcceptEditsAvailable reports whether accept-edits mode can change
// anything here: only under supervised autonomy (full asks nothing,
// read_only allows no write), and never in an untrusted workspace (§9.1),
// whose files the model reads may ask it for edits nobody would see.
func (a *Agent) AcceptEditsAvailable() bool {
	return a.opts.Policy.Level == permissions.Supervised && !a.opts.UntrustedWorkspace
}

// AcceptEdits reports whether accept-edits mode is on.
func (a *Agent) AcceptEdits() bool {
	a.plan.mu.Lock()
	defer a.plan.mu.Unlock()
	return a.plan.acceptEdits
}

// SetAcceptEdits turns accept-edits mode on or off (Shift+Tab): file
// edits inside the workspace are then approved without asking
// (permissions.Policy.AcceptEdits, decided where every call is, in
// authorize). Turning it on ends plan mode. It reports whether the mode
// changed; it does not turn on where it is not available.
func (a *Agent) SetAcceptEdits(on bool) bool {
	if on && !a.AcceptEditsAvailable() {
		return false
	}
	if on {
		a.SetPlanMode(false)
	}
	a.plan.mu.Lock()
	changed := a.plan.acceptEdits != on
	a.plan.acceptEdits = on
	a.plan.mu.Unlock()
	if changed {
		a.opts.Sink(Event{Type: EventAcceptEdits, AcceptEdits: on})
	}
	return changed
}

// CycleMode is Shift+Tab, as Claude Code cycles: the configured autonomy,
// then accept-edits mode (where available), then plan mode, then back.
func (a *Agent) CycleMode() {
	switch {
	case a.PlanMode():
		a.SetPlanMode(false)
	case a.AcceptEdits() || !a.AcceptEditsAvailable():
		a.SetPlanMode(true)
	default:
		a.SetAcceptEdits(true)
	}
}

// takePlanNote returns what the next user message tells the model of the
// mode, once.
func (a *Agent) takePlanNote() string {
	a.plan.mu.Lock()
	defer a.plan.mu.Unlock()
	n := a.plan.note
	a.plan.note = ""
	return n
}

// takePlanStop returns the plan the turn must end with, once.
func (a *Agent) takePlanStop() string {
	a.plan.mu.Lock()
	defer a.plan.mu.Unlock()
	p := a.plan.stop
	a.plan.stop = ""
	return p
}

// Policy is the tool policy as it stands (policy), for what tells others
// of it: the permission mode the hooks and stream-json's init line see.
func (a *Agent) Policy() permissions.Policy { return a.policy() }

// policy is the tool policy as it stands: the configured one with the
// plan mode and accept-edits mode. Every decision on a call reads it, and a
// sub-agent starts with it.
func (a *Agent) policy() permissions.Policy {
	p := a.opts.Policy
	p.Plan = p.Plan || a.PlanMode()
	p.AcceptEdits = a.AcceptEdits() && a.AcceptEditsAvailable()
	return p
}

// skillContext is ctx for rendering skills (an activation, a preload, a
// refresh, a restore): when the policy refuses commands (read_only, plan
// mode) their dynamic context runs nothing and stays as written
// (skills.WithoutCommands). Activating a skill is a read; what it runs
// is the policy's to decide, as for a shell skill.
func (a *Agent) skillContext(ctx context.Context) context.Context {
	if a.policy().Decide("shell", permissions.ClassExec, false) == permissions.Deny {
		return skills.WithoutCommands(ctx)
	}
	return ctx
}

// notAllowedText is the refusal of a call the policy denies: the plan
// mode's sentence, which tells the model what to do instead, or the
// autonomy level's.
func (a *Agent) notAllowedText(what string) string {
	if a.policy().Plan {
		return fmt.Sprintf("Plan mode: %s is refused while planning (only reading, searching and fetching run). Make no change yet: finish exploring, then present your plan with exit_plan_mode for the user to approve.", what)
	}
	return fmt.Sprintf("%s is not allowed at autonomy level %s.", what, a.opts.Policy.Level)
}

// handleExitPlan performs an exit_plan_mode call: the user approves the
// plan (perhaps edited: the answer's Plan), which ends plan mode and makes
// its steps the todo list, or rejects it with a reason, which keeps the
// mode. With nobody to ask (run without --yes) the turn ends with the plan
// as its answer, still in plan mode.
func (a *Agent) handleExitPlan(ctx context.Context, c providers.ToolCall) providers.ToolResult {
	var args struct {
		Plan string `json:"plan"`
	}
	if err := json.Unmarshal([]byte(callArgs(c.Args)), &args); err != nil {
		return errorResult("Invalid arguments for exit_plan_mode: %v", err)
	}
	plan := strings.TrimSpace(args.Plan)
	if plan == "" {
		return errorResult("Invalid arguments for exit_plan_mode: \"plan\" is required (the plan, in Markdown).")
	}
	if !a.PlanMode() {
		return providers.ToolResult{Content: "Plan mode is not on: there is no plan to approve. Go on with the work."}
	}
	if a.opts.Approver == nil {
		a.plan.mu.Lock()
		a.plan.stop = plan
		a.plan.mu.Unlock()
		return providers.ToolResult{Content: "The plan goes to the user for review; their answer comes in a later message (plan mode ends if they approve). Stop here: no more tool calls in this turn."}
	}
	ans, err := a.ask(ctx, ApprovalRequest{ID: c.ID, Tool: exitPlanToolName, Summary: "plan", Args: string(callArgs(c.Args)), Class: permissions.ClassRead, Plan: plan})
	switch {
	case err != nil && ctx.Err() != nil:
		return errorResult("%s", cancelledText)
	case err != nil:
		return errorResult("Approval failed: %v", err)
	case ans.Decision == Deny:
		if r := strings.TrimSpace(ans.Reason); r != "" {
			return errorResult("The user rejected the plan: %s\nYou are still in plan mode: revise the plan and call exit_plan_mode again.", r)
		}
		return errorResult("The user rejected the plan. You are still in plan mode: ask what to change, or revise the plan and call exit_plan_mode again.")
	}
	text := "The user approved the plan. Plan mode is off: carry it out now."
	if edited := strings.TrimSpace(ans.Plan); edited != "" && edited != plan {
		plan = edited
		text = "The user edited and approved the plan. Plan mode is off: carry out this plan now:\n\n" + plan + "\n\n"
	}
	a.switchPlan(false, "")
	if steps := planTodos(plan); len(steps) > 0 {
		a.setTodos(steps, true)
		text += " Its steps are your todo list: keep it current with todo_write."
	}
	return providers.ToolResult{Content: strings.TrimSpace(text)}
}

// planTodos makes an approved plan's steps the todo list: the items of its
// outermost Markdown lists (`-`, `*`, `+`, `1.`, `1)`, with or without a
// task box), in order, the first in progress; none when the plan has no
// list. Items beyond the list's limits are cut, never refused.
func planTodos(plan string) []session.Todo {
	type step struct {
		indent int
		text   string
	}
	var steps []step
	fence := ""
	for line := range strings.Lines(plan) {
		trimmed := strings.TrimLeft(line, " \t")
		if f := fenceOf(trimmed); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(trimmed, fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		text, ok := listItem(trimmed)
		if !ok {
			continue
		}
		indent := len(strings.ReplaceAll(line[:len(line)-len(trimmed)], "\t", "    "))
		steps = append(steps, step{indent, text})
	}
	if len(steps) == 0 {
		return nil
	}
	outer := steps[0].indent
	for _, s := range steps {
		outer = min(outer, s.indent)
	}
	var todos []session.Todo
	for _, s := range steps {
		if s.indent != outer || len(todos) == maxTodos {
			continue
		}
		text := strings.Join(strings.Fields(s.text), " ")
		if r := []rune(text); len(r) > maxTodoRunes {
			text = string(r[:maxTodoRunes-1]) + "…"
		}
		if text == "" {
			continue
		}
		todos = append(todos, session.Todo{Content: text, Status: session.TodoPending})
	}
	if len(todos) > 0 {
		todos[0].Status = session.TodoInProgress
	}
	return todos
}

// fenceOf returns the fence a line opens or closes (``` or ~~~), "" for
// none.
func fenceOf(line string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(line, f) {
			return f
		}
	}
	return ""
}

// listItem returns the text of a Markdown list item line (white space
// already trimmed on the left), its task box dropped.
func listItem(line string) (string, bool) {
	var rest string
	switch {
	case len(line) >= 2 && strings.ContainsRune("-*+", rune(line[0])) && (line[1] == ' ' || line[1] == '\t'):
		rest = line[2:]
	default:
		i := 0
		for i < len(line) && i < 9 && line[i] >= '0' && line[i] <= '9' {
			i++
		}
		if i == 0 || i+1 >= len(line) || (line[i] != '.' && line[i] != ')') || (line[i+1] != ' ' && line[i+1] != '\t') {
			return "", false
		}
		rest = line[i+2:]
	}
	rest = strings.TrimSpace(rest)
	for _, box := range []string{"[ ]", "[x]", "[X]"} {
		if r, ok := strings.CutPrefix(rest, box); ok {
			rest = strings.TrimSpace(r)
			break
		}
	}
	return rest, rest != ""
}
