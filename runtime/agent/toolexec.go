package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

const cancelledText = "Cancelled by user."

// interruptedText answers a call that history holds without a result (the
// process was killed while the call ran, or before its result was written):
// nothing is known of what the call did, so the model must not be told it
// was cancelled.
const interruptedText = "Interrupted: clawseed stopped before this call's result was recorded; it may have run."

// callClasser is implemented by tools whose calls differ in class (git's
// read and write actions); the call's class then decides approval in
// place of Class, which stays the tool's widest class for visibility.
type callClasser interface {
	CallClass(args json.RawMessage) permissions.Class
}

// A normalizer spells out what a call leaves to defaults that decide
// what it does (the Agent tool's subagent_type), so that the hooks, the
// rules, the approval and the run see one call.
type normalizer interface {
	Normalize(args json.RawMessage) json.RawMessage
}

// normalized returns a call's arguments as tool normalizes them.
func normalized(tool Tool, args json.RawMessage) json.RawMessage {
	if n, ok := tool.(normalizer); ok {
		return n.Normalize(args)
	}
	return args
}

// An orderedTool's calls in one response run one after another in call
// order even when the response only reads and its calls run concurrently
// (backup list before verify); other tools' calls still run beside them. A
// response with any call that does not only read runs every call in order
// anyway (runCalls).
type orderedTool interface {
	Ordered() bool
}

// A pendingCall is a call that passed validation and approval and will run.
type pendingCall struct {
	index int
	id    string // the call's id, for its tool_output events
	name  string
	tool  Tool
	args  json.RawMessage
	// network: the user allowed this call the network
	// ([permissions.WithNetwork]).
	network bool
	// controls are the control paths the call was asked about and
	// approved ([permissions.WithApprovedWrites]).
	controls []string
	// context is what PreToolUse hooks told the model of the call, for
	// the end of its result.
	context string
}

// runCalls executes one response's tool calls (§5.3) and returns one result
// per call, in call order. Every result defaults to "Cancelled by user.", so a
// cancellation at any point still answers every call.
//
// When every call only reads, the calls run concurrently (at most
// ParallelTools at once; an ordered tool's calls still one after another),
// after the Skill calls and approval prompts, which run first, one at a time
// in call order. Otherwise each call is approved and run in call order,
// one at a time: a call may depend on an earlier one (cron_add then
// cron_list, file_write then file_read of that file), and a read racing a
// write would see either state.
func (a *Agent) runCalls(ctx context.Context, calls []providers.ToolCall) []providers.ToolResult {
	results := make([]providers.ToolResult, len(calls))
	for i, c := range calls {
		results[i] = providers.ToolResult{CallID: c.ID, Name: c.Name, Content: cancelledText, IsError: true}
		a.opts.Sink(Event{Type: EventToolCall, ID: c.ID, Name: c.Name, Args: c.Args})
	}
	concurrent := a.onlyReads(calls)
	var pending []pendingCall
	ran := make([]bool, len(calls)) // the calls that ran (PostToolUse)
	for i := 0; i < len(calls); i++ {
		c := calls[i]
		if ctx.Err() != nil {
			break
		}
		if a.isAgentCall(c) {
			// Consecutive Agent calls run together (subagent.go).
			j := i + 1
			for j < len(calls) && a.isAgentCall(calls[j]) {
				j++
			}
			a.runAgentCalls(ctx, calls[i:j], results[i:j])
			i = j - 1
			continue
		}
		if handle := a.intercepted(c.Name); handle != nil {
			if !a.takeAction() {
				results[i] = a.withID(c, a.rateLimited())
				continue
			}
			v := a.preToolHooks(ctx, c, callArgs(c.Args))
			if v.denied {
				results[i] = a.withID(c, withContext(errorResult("%s", v.reason), v.context))
				continue
			}
			if v.args != nil {
				calls[i].Args, c.Args = string(v.args), string(v.args)
			}
			results[i] = a.withID(c, withContext(handle(ctx, c), v.context))
			ran[i] = true
			a.afterCall(ctx, c, results, i, true)
			continue
		}
		p, res, ok := a.prepare(ctx, i, c)
		if !ok {
			results[i] = a.withID(c, res)
			continue
		}
		ran[i] = true
		calls[i].Args = string(p.args) // a hook's updatedInput, as run
		if concurrent {
			pending = append(pending, p)
			continue
		}
		a.execute(ctx, calls, []pendingCall{p}, results)
		a.afterCall(ctx, calls[i], results, i, true)
	}
	if concurrent {
		a.execute(ctx, calls, pending, results)
		for i, c := range calls {
			if a.intercepted(c.Name) == nil {
				a.afterCall(ctx, c, results, i, ran[i])
			}
		}
	}
	for i, c := range calls {
		a.opts.Sink(Event{Type: EventToolResult, ID: c.ID, Name: c.Name, Result: results[i].Content, IsError: results[i].IsError})
	}
	return results
}

// intercepted returns the agent's own handler of the tools that never
// reach a tool implementation — Skill (the active set), todo_write (the
// todo list), exit_plan_mode (the plan mode) —, nil for any other tool.
// Their calls run one at a time in call order, before the calls that run
// concurrently, with the rate limit and PreToolUse hooks of every call.
func (a *Agent) intercepted(name string) func(context.Context, providers.ToolCall) providers.ToolResult {
	switch {
	case name == skillToolName && a.skillTool:
		return a.handleSkillCall
	case name == todoToolName && a.todoTool:
		return func(_ context.Context, c providers.ToolCall) providers.ToolResult { return a.handleTodoWrite(c) }
	case name == exitPlanToolName && a.planTool:
		return a.handleExitPlan
	}
	return nil
}

// afterCall completes a call: a skill_create call refreshes the catalog
// and activates the skill it wrote, so a later call of the same response
// finds it; a call that ran is shown to the PostToolUse hooks.
func (a *Agent) afterCall(ctx context.Context, c providers.ToolCall, results []providers.ToolResult, i int, ran bool) {
	if c.Name == skillCreateToolName && !results[i].IsError && ctx.Err() == nil {
		results[i] = a.withID(c, a.afterSkillCreate(ctx, c, results[i]))
	}
	if ran && ctx.Err() == nil {
		a.postToolHooks(ctx, c, &results[i])
	}
}

// onlyReads reports whether every call of a response only reads, so that
// they may run concurrently: read-class tool calls (by their per-call
// class), and Skill calls that activate, deactivate or search (a fork or
// shell skill runs things, so it counts as a write). Calls that will fail
// validation count as reads: they run nothing.
func (a *Agent) onlyReads(calls []providers.ToolCall) bool {
	for _, c := range calls {
		if a.isAgentCall(c) {
			return false // a subagent may write; Agent calls run together apart
		}
		if c.Name == skillToolName && a.skillTool {
			if a.opts.Skills != nil && a.opts.Skills.Runs(skillCallName(c.Args)) {
				return false
			}
			continue
		}
		if a.intercepted(c.Name) != nil {
			continue // the session's own state: the todo list, the plan
		}
		tool, ok := a.tools[c.Name]
		if !ok {
			continue
		}
		if callClass(tool, callArgs(c.Args)) != permissions.ClassRead {
			return false
		}
	}
	return true
}

// skillCallName returns the skill a Skill call names ("" when none).
func skillCallName(args string) string {
	var v struct {
		Skill string `json:"skill"`
	}
	_ = json.Unmarshal([]byte(args), &v)
	return v.Skill
}

// callArgs returns a call's arguments as the tool gets them: trimmed, "{}"
// when empty.
func callArgs(raw string) json.RawMessage {
	args := json.RawMessage(strings.TrimSpace(raw))
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return args
}

// callClass is the class of one call: the tool's, or the call's own for
// tools whose calls differ (git's read and write actions).
func callClass(tool Tool, args json.RawMessage) permissions.Class {
	if cc, ok := tool.(callClasser); ok {
		return cc.CallClass(args) // git: status reads, commit writes
	}
	return tool.Class()
}

func (a *Agent) withID(c providers.ToolCall, r providers.ToolResult) providers.ToolResult {
	r.CallID, r.Name = c.ID, c.Name
	return r
}

func errorResult(format string, args ...any) providers.ToolResult {
	return providers.ToolResult{Content: fmt.Sprintf(format, args...), IsError: true}
}

// prepare resolves the tool, checks the arguments are JSON, applies the rate
// limit and the autonomy policy, and asks for approval when needed.
func (a *Agent) prepare(ctx context.Context, index int, c providers.ToolCall) (pendingCall, providers.ToolResult, bool) {
	if c.Name == invalidCallName {
		return pendingCall{}, errorResult("Invalid tool call: %s", c.Args), false
	}
	tool, ok := a.callTool(c)
	if !ok {
		return pendingCall{}, errorResult("Unknown tool: %s", toolNameText(c.Name)), false
	}
	a.noteCall(c.Name)
	args := callArgs(c.Args)
	if !json.Valid(args) {
		return pendingCall{}, errorResult("Invalid arguments for %s: not valid JSON: %s", c.Name, preview(c.Args, 200)), false
	}
	if !a.takeAction() {
		return pendingCall{}, a.rateLimited(), false
	}
	// PreToolUse hooks see the call first; what they rewrite goes through
	// the same checks and approval as what the model wrote.
	args = normalized(tool, args)
	hook := a.preToolHooks(ctx, c, args)
	if hook.denied {
		return pendingCall{}, withContext(errorResult("%s", hook.reason), hook.context), false
	}
	if hook.args != nil {
		args = normalized(tool, hook.args)
	}
	p, res, ok := a.approve(ctx, index, c, tool, args, hook)
	if !ok {
		return p, withContext(res, hook.context), false
	}
	p.context = hook.context
	return p, res, true
}

// approve applies the permission rules, the autonomy policy and the
// user's answer (authorize) to a call with the arguments it will run with,
// returning the call to run or its error result.
func (a *Agent) approve(ctx context.Context, index int, c providers.ToolCall, tool Tool, args json.RawMessage, hook preVerdict) (pendingCall, providers.ToolResult, bool) {
	summary := ""
	if s, ok := tool.(summarizer); ok {
		summary = s.Summary(args)
	}
	class := callClass(tool, args)
	req := ApprovalRequest{ID: c.ID, Tool: c.Name, Summary: summary, Args: string(args), Class: class, Writes: a.controlWrites(tool, args),
		HookReason: hook.reason, HookAsked: hook.ask, hookAllow: hook.allow}
	if st, ok := tool.(sandboxedTool); ok {
		req.Sandbox, req.Escalation = st.SandboxMode(args)
		req.CanAllowNetwork = req.sandboxedOffline()
	}
	v, err := a.authorize(ctx, req, a.subject(c.Name, tool, args, summary, class))
	if v.denied() {
		a.opts.Sink(Event{Type: EventPermissionDenied, ID: c.ID, Name: c.Name, Args: string(args)})
	}
	switch v {
	case ruleDenied:
		return pendingCall{}, errorResult("%s", err.Error()), false
	case notAllowed:
		return pendingCall{}, errorResult("%s", a.notAllowedText("Tool "+c.Name)), false
	case cannotAsk:
		if len(req.Writes) > 0 {
			return pendingCall{}, errorResult("%s", controlCannotAsk(c.Name, req.Writes)), false
		}
		if req.Escalation != "" {
			return pendingCall{}, errorResult("%s", escalationCannotAsk(c.Name, req.Escalation)), false
		}
		if err != nil {
			return pendingCall{}, errorResult("%s", err.Error()), false // an ask rule's
		}
		if req.HookAsked {
			return pendingCall{}, errorResult("Tool call denied: a PreToolUse hook asks the user to approve this %s call, and this session cannot ask (run with --yes, or answer in `clawseed chat`).%s", c.Name, reasonSuffix(req.HookReason)), false
		}
		return pendingCall{}, errorResult("Tool call denied: %s needs the user's approval and this session cannot ask (run with --yes or add %q to [autonomy].auto_approve).", c.Name, c.Name), false
	case askCancelled:
		return pendingCall{}, errorResult("%s", cancelledText), false
	case askFailed:
		return pendingCall{}, errorResult("Approval failed: %v", err), false
	case userDenied:
		if d, ok := err.(*hookDenial); ok {
			return pendingCall{}, errorResult("%s", d.Error()), false
		}
		return pendingCall{}, errorResult("%s", withReason(fmt.Sprintf("The user denied the %s call.", c.Name), err)), false
	}
	return pendingCall{index: index, id: c.ID, name: c.Name, tool: tool, args: args, network: v == allowedWithNetwork,
		controls: approvedControls(req.Writes)}, providers.ToolResult{}, true
}

func (a *Agent) rateLimited() providers.ToolResult {
	return errorResult("Action rate limit exceeded ([autonomy].max_actions_per_hour = %d).", a.opts.Actions.Max())
}

// takeAction counts a call against max_actions_per_hour.
func (a *Agent) takeAction() bool { return a.opts.Actions.Take() }

// execute runs the pending calls with the concurrency limit.
func (a *Agent) execute(ctx context.Context, calls []providers.ToolCall, pending []pendingCall, results []providers.ToolResult) {
	sem := make(chan struct{}, a.opts.ParallelTools)
	var wg sync.WaitGroup
	last := map[string]chan struct{}{} // per ordered tool: its previous call's end
	for _, p := range pending {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		var prev, done chan struct{}
		if o, ok := p.tool.(orderedTool); ok && o.Ordered() {
			prev, done = last[p.name], make(chan struct{})
			last[p.name] = done
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if done != nil {
				defer close(done)
			}
			if prev != nil {
				<-prev // started earlier, so it never waits for this one
			}
			r := a.runOne(ctx, p)
			if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				r = errorResult("%s", cancelledText)
			}
			results[p.index] = a.withID(calls[p.index], withContext(r, p.context))
		}()
	}
	wg.Wait()
}

// runOne runs a tool with the per-call timeout, turning a panic or a timeout
// into an error result, and truncates long output.
func (a *Agent) runOne(ctx context.Context, p pendingCall) (res providers.ToolResult) {
	name := p.name
	limit := a.opts.ToolTimeout
	if t, ok := p.tool.(timeouter); ok {
		// The tool enforces what the call asked for; the agent's limit is a
		// backstop with a little grace so the tool can report first.
		if asked := t.Timeout(p.args); asked+5*time.Second > limit {
			limit = asked + 5*time.Second
		}
	}
	callCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if p.network {
		callCtx = permissions.WithNetwork(callCtx) // this call only
	}
	// The writer refuses a control path the call was not asked about,
	// wherever a link has led the write since the approval.
	callCtx = permissions.WithApprovedWrites(callCtx, p.controls)
	if hide := a.readFilter(name); hide != nil {
		callCtx = permissions.WithReadFilter(callCtx, hide) // searches leave out what Read rules deny
	}
	callCtx, outputDone := a.withOutput(callCtx, p.id) // a running command's live tail
	defer outputDone()
	defer func() {
		if v := recover(); v != nil {
			res = errorResult("Tool %s failed: internal error: %v", name, v)
		}
	}()
	res = p.tool.Run(callCtx, p.args)
	if errors.Is(callCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return errorResult("Tool %s timed out after %s.", name, limit)
	}
	res.Content = truncateOutput(res.Content, a.opts.MaxToolOutputChars)
	return a.toolImages(name, res)
}

// truncateOutput keeps the first two thirds and the last third of an output
// longer than limit characters, with a note of how much was cut. A tool may
// have cut its output already (the shell keeps the head and tail of a
// flood): a note of such a cut that falls in or across the part dropped
// here is dropped whole and its count added, so the result holds one note
// that counts every character the model does not see.
func truncateOutput(s string, limit int) string {
	n := utf8.RuneCountInString(s)
	if limit <= 0 || n <= limit {
		return s
	}
	head, tail := limit*2/3, limit-limit*2/3
	from, to := runeOffset(s, head), runeOffset(s, n-tail)
	spans, counts := providers.TruncationNotes(s)
	for _, sp := range spans {
		if sp[0] < to && sp[1] > from {
			from, to = min(from, sp[0]), max(to, sp[1])
		}
	}
	dropped := int64(utf8.RuneCountInString(s[from:to]))
	for i, sp := range spans {
		if sp[0] >= from && sp[1] <= to {
			dropped += counts[i] - int64(utf8.RuneCountInString(s[sp[0]:sp[1]]))
		}
	}
	return s[:from] + providers.TruncationNote(dropped) + s[to:]
}

// runeOffset returns the byte offset of the i-th rune of s (len(s) past the
// end).
func runeOffset(s string, i int) int {
	for off := range s {
		if i == 0 {
			return off
		}
		i--
	}
	return len(s)
}

// preview returns at most n runes of s on one line, for messages.
func preview(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
