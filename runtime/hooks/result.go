package hooks

import (
	"fmt"
	"strings"
)

// A Result is the combined answer of the hooks of one firing. Zero when no
// hook ran.
type Result struct {
	// Ran is the number of hooks run (async ones included).
	Ran int
	// Permission is PreToolUse's decision: "deny", "ask", "allow" or "".
	// Deny wins over ask, ask over allow; an allow counts only from the
	// user's own hooks ([Source.Own]). PermissionReason is the reason of
	// the decision that won (deny: for the model; ask: for the prompt).
	Permission       string
	PermissionReason string
	// Behavior is PermissionRequest's answer, "allow", "deny" or "" (deny
	// wins; allow only from the user's own hooks), and Message the
	// reason of a deny.
	Behavior, Message string
	// UpdatedInput replaces a PreToolUse call's tool_input (Claude Code's
	// argument names); the first hook's counts.
	UpdatedInput map[string]any
	// Block is set when a hook blocked (exit code 2, or decision "block"):
	// the prompt is refused (UserPromptSubmit), the turn goes on
	// (Stop, SubagentStop), or Reason is fed to the model (PostToolUse).
	Block  bool
	Reason string
	// Context is what the model is told (additionalContext, and plain
	// stdout of UserPromptSubmit and SessionStart), in hook order.
	Context []string
	// Stop is set by `continue: false` (or a PermissionRequest deny with
	// interrupt): the turn ends after this step; StopReason is shown to
	// the user.
	Stop       bool
	StopReason string
	// Notes are for the user: system messages and warnings (a hook that
	// failed, timed out, or answered what clawseed cannot use).
	Notes []Note
}

// A Note is a line for the user.
type Note struct {
	Text string
	// Warning: the hook failed or its answer was not used.
	Warning bool
}

var permissionRank = map[string]int{"allow": 1, "ask": 2, "deny": 3}

// combine folds the outcomes, in hook order, into one result.
func combine(event string, outcomes []outcome) Result {
	var r Result
	for _, o := range outcomes {
		r.Ran++
		h := o.hook
		warn := func(format string, args ...any) {
			r.Notes = append(r.Notes, Note{Text: fmt.Sprintf("%s hook `%s` (%s): ", event, oneLine(h.Describe()), h.Source.Label()) + fmt.Sprintf(format, args...), Warning: true})
		}
		switch {
		case o.async:
		case o.failure != "":
			warn("%s", o.failure)
		case o.blocked:
			r.blocked(event, o, warn)
		case o.parseErr != nil:
			warn("its output was ignored: %v", o.parseErr)
		case o.out != nil:
			r.apply(event, o, warn)
		case o.text != "":
			if event == UserPromptSubmit || event == SessionStart {
				r.Context = append(r.Context, o.text)
			}
		}
	}
	return r
}

// blocked applies exit code 2: stderr is the reason, fed to the model
// where the event has a model to tell, shown to the user otherwise.
func (r *Result) blocked(event string, o outcome, warn func(string, ...any)) {
	reason := o.reason
	if reason == "" {
		reason = "Blocked by a " + event + " hook: " + oneLine(o.hook.Describe())
	}
	switch event {
	case PreToolUse:
		r.permission("deny", reason, o.hook, warn)
	case PermissionRequest:
		r.behavior("deny", reason, o.hook, warn)
	case UserPromptSubmit, PostToolUse, PostToolUseFailure, Stop, SubagentStop:
		r.block(reason)
	default:
		// Nothing to block: the user sees why it tried.
		warn("exit code 2%s", firstLine(o.reason))
	}
}

// apply applies a JSON answer.
func (r *Result) apply(event string, o outcome, warn func(string, ...any)) {
	out := o.out
	if out.SystemMessage != "" {
		r.Notes = append(r.Notes, Note{Text: out.SystemMessage})
	}
	if out.Continue != nil && !*out.Continue {
		r.stop(out.StopReason)
	}
	switch out.Decision {
	case "block":
		switch event {
		case PreToolUse:
			r.permission("deny", out.Reason, o.hook, warn)
		case UserPromptSubmit, PostToolUse, PostToolUseFailure, Stop, SubagentStop:
			r.block(out.Reason)
		}
	case "approve":
		r.permission("allow", out.Reason, o.hook, warn)
	}
	s := out.Specific
	if s == nil {
		return
	}
	if event == PreToolUse {
		if s.PermissionDecision != "" {
			r.permission(s.PermissionDecision, s.PermissionDecisionReason, o.hook, warn)
		}
		r.updated(s.UpdatedInput, warn)
	}
	if s.AdditionalContext != "" {
		switch event {
		case PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, SessionStart, SubagentStart:
			r.Context = append(r.Context, s.AdditionalContext)
		}
	}
	if d := s.Decision; d != nil && event == PermissionRequest {
		// Its updatedInput is not applied: the prompt it answers was
		// about the call as it stands.
		r.behavior(d.Behavior, d.Message, o.hook, warn)
		if d.Behavior == "deny" && d.Interrupt {
			r.stop(d.Message)
		}
	}
}

func (r *Result) permission(decision, reason string, h Hook, warn func(string, ...any)) {
	if decision == "allow" && !h.Source.Own {
		warn("its \"allow\" does not skip the approval prompt: only hooks of the user's own settings or config approve tool calls")
		return
	}
	switch rank, cur := permissionRank[decision], permissionRank[r.Permission]; {
	case rank > cur:
		r.Permission, r.PermissionReason = decision, reason
	case rank == cur && reason != "" && !strings.Contains(r.PermissionReason, reason):
		r.PermissionReason = joinLines(r.PermissionReason, reason)
	}
}

func (r *Result) behavior(b, message string, h Hook, warn func(string, ...any)) {
	if b == "allow" && !h.Source.Own {
		warn("its \"allow\" does not approve the call: only hooks of the user's own settings or config approve tool calls")
		return
	}
	switch {
	case b == "deny" && r.Behavior != "deny":
		r.Behavior, r.Message = "deny", message
	case b == "deny":
		r.Message = joinLines(r.Message, message)
	case b == "allow" && r.Behavior == "":
		r.Behavior = "allow"
	}
}

func (r *Result) updated(in map[string]any, warn func(string, ...any)) {
	switch {
	case in == nil:
	case r.UpdatedInput == nil:
		r.UpdatedInput = in
	default:
		warn("its updatedInput was ignored: an earlier hook already changed the input")
	}
}

func (r *Result) block(reason string) {
	r.Block = true
	r.Reason = joinLines(r.Reason, reason)
}

func (r *Result) stop(reason string) {
	r.Stop = true
	r.StopReason = joinLines(r.StopReason, reason)
}

func joinLines(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

// oneLine shortens a command for a message.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}
