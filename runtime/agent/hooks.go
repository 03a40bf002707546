package agent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/hooks"
	"github.com/clawseed/clawseed/skills"
)

// Where the loop fires hooks (runtime/hooks, Claude Code's protocol):
//
//   - UserPromptSubmit before a turn's message is added (Turn): a block
//     refuses the prompt, context is prefixed to it;
//   - PreToolUse after a call's arguments parsed, before approval
//     (prepare, Agent calls included, and Skill calls in runCalls): deny is the call's error
//     result, ask forces the prompt, allow (the user's own hooks only)
//     pre-approves it, updatedInput replaces the arguments, and
//     additionalContext is appended to the call's result, whatever it is
//     (denied or refused included);
//   - PermissionRequest when the approval prompt would be shown
//     (authorize), never for control-path writes, escalations or an
//     untrusted skill's commands, which stay the user's to answer;
//   - PostToolUse / PostToolUseFailure after a call ran (afterCall): what
//     they say is appended to its result;
//   - Stop (SubagentStop in a sub-agent) when the model answers without
//     calls: a block continues the turn, at most maxStopContinuations
//     times;
//   - PreCompact, PostCompact and SessionStart "compact" around a
//     compaction (compact.go);
//   - SkillActivated / SkillDeactivated as skills come and go;
//   - SubagentStart before a fork's sub-agent runs;
//   - SessionStart and SessionEnd when the app says ([Agent.SessionStart],
//     [Agent.SessionEnd]).
//
// A skill's hooks are active while it is (and a fork skill's while its
// sub-agent runs); a project skill's only in a trusted workspace.

// maxStopContinuations bounds how often Stop hooks may continue one turn.
const maxStopContinuations = 3

// HookAgent describes a sub-agent to its hooks: its Stop hooks fire as
// SubagentStop with agent_id and agent_type, it fires no
// UserPromptSubmit, and Skill's hooks (a fork skill's) are active while it
// runs. The Agent tool's sub-agents set it too (see startSubagentHooks).
type HookAgent struct {
	ID, Type string
	Skill    *skills.Skill
}

// skillHooksIgnored says why a skill's hooks do not run, "" when they
// do. The rule is the one of allowed-tools (skillAllowedTools): hooks run
// commands unasked and their allow pre-approves calls, so a project
// skill's count only in a trusted workspace, and a skill changed since the
// session started (a model may write skills) only when the user approved
// its content.
func (a *Agent) skillHooksIgnored(s *skills.Skill) string {
	switch {
	case a.untrustedSkill(s):
		return ignoredUntrusted
	case s.Source != skills.SourceBuiltin && !a.grants.current(s):
		return ignoredChanged
	}
	return ""
}

// scopedHooks are the hooks of the active skills, and of the skill a
// sub-agent runs for, that may run (skillHooksIgnored).
func (a *Agent) scopedHooks(extra ...*skills.Skill) []hooks.Hook {
	var out []hooks.Hook
	add := func(s *skills.Skill) {
		if s == nil || len(s.Hooks) == 0 || a.skillHooksIgnored(s) != "" {
			return
		}
		out = append(out, hooks.ForSkill(s.Name, s.SkillPath, !s.Source.Project(), s.Hooks)...)
	}
	if a.opts.Skills != nil {
		for _, act := range a.opts.Skills.List() {
			add(act.Skill)
		}
	}
	if a.opts.HookAgent != nil {
		add(a.opts.HookAgent.Skill)
	}
	for _, s := range extra {
		add(s)
	}
	return out
}

// fire runs the hooks of event when any is configured; fields builds the
// event's own input only then. What the hooks say to the user becomes
// hook events, and a `continue: false` ends the turn at its next step.
func (a *Agent) fire(ctx context.Context, event, query string, fields func() map[string]any, extra ...*skills.Skill) hooks.Result {
	if a.opts.Hooks == nil {
		return hooks.Result{}
	}
	scoped := a.scopedHooks(extra...)
	if !a.opts.Hooks.Wants(event, scoped) {
		return hooks.Result{}
	}
	f := fields()
	if f == nil {
		f = map[string]any{}
	}
	if ag := a.opts.HookAgent; ag != nil {
		f["agent_id"], f["agent_type"] = ag.ID, ag.Type
	}
	res := a.opts.Hooks.Fire(ctx, hooks.Event{Name: event, Query: query, Fields: f}, scoped)
	for _, n := range res.Notes {
		a.opts.Sink(Event{Type: EventHook, Name: event, Text: n.Text, IsError: n.Warning})
	}
	if res.Stop && !a.stopRequested {
		a.stopRequested, a.stopReason = true, res.StopReason
	}
	return res
}

// reminder wraps what hooks tell the model as a user-side block, so the
// system prompt (and its cached prefix) never changes.
func reminder(event string, texts []string) string {
	var b strings.Builder
	for _, t := range texts {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		b.WriteString("<system-reminder>\n" + event + " hook additional context: " + t + "\n</system-reminder>\n")
	}
	return b.String()
}

// promptHooks fires UserPromptSubmit for text. blocked says the prompt is
// refused (its reason was shown); context is prefixed to the message.
func (a *Agent) promptHooks(ctx context.Context, text string) (context string, blocked bool) {
	if a.opts.HookAgent != nil {
		return "", false
	}
	res := a.fire(ctx, hooks.UserPromptSubmit, "", func() map[string]any { return map[string]any{"prompt": text} })
	if res.Block {
		a.opts.Sink(Event{Type: EventHook, Name: hooks.UserPromptSubmit, Text: "Prompt blocked by a hook: " + res.Reason, IsError: true})
		return "", true
	}
	if a.stopRequested {
		return "", true
	}
	return reminder(hooks.UserPromptSubmit, res.Context), false
}

// takePending returns the context hooks left for the next user message
// (SessionStart, SubagentStart) and forgets it.
func (a *Agent) takePending() string {
	s := strings.Join(a.pendingContext, "")
	a.pendingContext = nil
	return s
}

// toolFields is a tool event's input: Claude Code's tool name and
// argument names (clawseed's are in clawseed_tool_name).
func (a *Agent) toolFields(name, id string, args json.RawMessage) map[string]any {
	return map[string]any{
		"tool_name":          hooks.ClaudeToolName(name),
		"clawseed_tool_name": name,
		"tool_input":         hooks.ToolInput(name, a.opts.Prompt.Workspace, args),
		"tool_use_id":        id,
	}
}

// A preVerdict is what PreToolUse hooks decided of a call.
type preVerdict struct {
	// denied is set with the reason for the model.
	denied bool
	reason string
	// ask forces the approval prompt; allow pre-approves the call.
	ask, allow bool
	// args replace the call's arguments when set.
	args json.RawMessage
	// context is what the hooks tell the model (additionalContext, as
	// reminders), for the end of the call's result (withContext).
	context string
}

// preToolHooks fires PreToolUse for a call.
func (a *Agent) preToolHooks(ctx context.Context, c providers.ToolCall, args json.RawMessage) preVerdict {
	res := a.fire(ctx, hooks.PreToolUse, c.Name, func() map[string]any { return a.toolFields(c.Name, c.ID, args) })
	v := preVerdict{context: reminder(hooks.PreToolUse, res.Context)}
	if res.UpdatedInput != nil {
		v.args = hooks.ToolArgs(c.Name, res.UpdatedInput)
	}
	switch res.Permission {
	case "deny":
		v.denied = true
		v.reason = "Tool call denied by a PreToolUse hook"
		if res.PermissionReason != "" {
			v.reason += ": " + res.PermissionReason
		}
	case "ask":
		v.ask, v.reason = true, res.PermissionReason
	case "allow":
		v.allow = true
	}
	if a.stopRequested && !v.denied {
		v.denied, v.reason = true, "Stopped by a hook: "+a.stopReason
	}
	return v
}

// hookDenial is the error authorize returns with userDenied when a
// PermissionRequest hook denied the call.
type hookDenial struct{ reason string }

func (d *hookDenial) Error() string {
	if d.reason == "" {
		return "Tool call denied by a PermissionRequest hook."
	}
	return "Tool call denied by a PermissionRequest hook: " + d.reason
}

// permissionHooks fires PermissionRequest for a call the user would be
// asked about: "allow", "deny" (with the denial) or "".
func (a *Agent) permissionHooks(ctx context.Context, req ApprovalRequest) (string, error) {
	res := a.fire(ctx, hooks.PermissionRequest, req.Tool, func() map[string]any {
		return a.toolFields(req.Tool, "", json.RawMessage(req.Args))
	})
	switch res.Behavior {
	case "deny":
		return "deny", &hookDenial{reason: res.Message}
	case "allow":
		return "allow", nil
	}
	return "", nil
}

// postToolHooks fires PostToolUse (PostToolUseFailure for an error
// result) for a call that ran, and appends what they say for the model to
// its result.
func (a *Agent) postToolHooks(ctx context.Context, c providers.ToolCall, r *providers.ToolResult) {
	event := hooks.PostToolUse
	if r.IsError {
		event = hooks.PostToolUseFailure
	}
	res := a.fire(ctx, event, c.Name, func() map[string]any {
		f := a.toolFields(c.Name, c.ID, callArgs(c.Args))
		if r.IsError {
			f["error"], f["is_interrupt"] = r.Content, r.Content == cancelledText
		} else {
			f["tool_response"] = map[string]any{"output": r.Content}
		}
		return f
	})
	add := reminder(event, res.Context)
	if res.Block && res.Reason != "" {
		add += "<system-reminder>\n" + event + " hook feedback: " + res.Reason + "\n</system-reminder>\n"
	}
	*r = withContext(*r, add)
}

// withContext appends add, what hooks tell the model of a call (reminder
// blocks), to the call's result: the one way PreToolUse and PostToolUse
// context reaches the model.
func withContext(r providers.ToolResult, add string) providers.ToolResult {
	if add != "" {
		r.Content = strings.TrimRight(r.Content, "\n") + "\n\n" + strings.TrimRight(add, "\n")
	}
	return r
}

// stopHooks fires Stop (SubagentStop in a sub-agent) as the model ends
// its turn with final; active says an earlier Stop hook of the turn
// continued it. It returns the feedback to continue with, or "" to stop.
func (a *Agent) stopHooks(ctx context.Context, final string, continued int) string {
	event := hooks.Stop
	query := ""
	if ag := a.opts.HookAgent; ag != nil {
		event, query = hooks.SubagentStop, ag.Type
	}
	res := a.fire(ctx, event, query, func() map[string]any {
		f := map[string]any{"stop_hook_active": continued > 0, "last_assistant_message": final}
		if a.opts.HookAgent != nil {
			f["agent_transcript_path"] = ""
		}
		return f
	})
	if !res.Block || a.stopRequested {
		return ""
	}
	if continued >= maxStopContinuations {
		a.opts.Sink(Event{Type: EventHook, Name: event, Text: "a hook blocked stopping again; the turn ends after " +
			"the most continuations a turn allows", IsError: true})
		return ""
	}
	reason := res.Reason
	if reason == "" {
		reason = "A " + event + " hook asked to continue."
	}
	return event + " hook feedback:\n" + reason
}

// skillHooks fires SkillActivated or SkillDeactivated for name. by says
// who: "model" (a Skill call), "user" (/activate, /NAME, /deactivate),
// "always" (session start), "skill_create", "clear". A deactivated
// skill's own hooks still see its deactivation.
func (a *Agent) skillHooks(ctx context.Context, event, name, args, by string, gone *skills.Skill) {
	source := ""
	if a.opts.Skills != nil {
		if s := a.opts.Skills.Catalog().Lookup(name); s != nil {
			source = string(s.Source)
		}
	}
	if gone != nil {
		source = string(gone.Source)
	}
	a.fire(ctx, event, name, func() map[string]any {
		f := map[string]any{"skill_name": name, "source": source, "args": args}
		key := "activated_by"
		if event == hooks.SkillDeactivated {
			key = "deactivated_by"
		}
		f[key] = by
		return f
	}, gone)
}

// activeSkill returns the active skill called name (nil when it is not).
func (a *Agent) activeSkill(name string) *skills.Skill {
	if a.opts.Skills == nil {
		return nil
	}
	for _, act := range a.opts.Skills.List() {
		if act.Skill.Name == name {
			return act.Skill
		}
	}
	return nil
}

// startSubagentHooks fires SubagentStart for a sub-agent about to run
// (id is the call it answers, agentType its definition or fork skill) and
// returns the context its hooks give it, for the start of its first
// message. The Agent tool's sub-agents call it too, and give the child
// Options.HookAgent so that its Stop is SubagentStop.
func (a *Agent) startSubagentHooks(ctx context.Context, id, agentType string, skill *skills.Skill) string {
	res := a.fire(ctx, hooks.SubagentStart, agentType, func() map[string]any {
		return map[string]any{"agent_id": id, "agent_type": agentType}
	}, skill)
	return reminder(hooks.SubagentStart, res.Context)
}

// SessionStart fires SessionStart hooks: source is startup, resume or
// clear (compact is the loop's own). What they give the model is added
// to the next user message.
func (a *Agent) SessionStart(ctx context.Context, source, model string) {
	res := a.fire(ctx, hooks.SessionStart, source, func() map[string]any {
		return map[string]any{"source": source, "model": model}
	})
	if r := reminder(hooks.SessionStart, res.Context); r != "" {
		a.pendingContext = append(a.pendingContext, r)
	}
	a.stopRequested, a.stopReason = false, "" // nothing to stop yet
}

// SessionEnd fires SessionEnd hooks: reason is clear, resume (chat's
// /resume leaves the session for another), prompt_input_exit or other.
func (a *Agent) SessionEnd(ctx context.Context, reason string) {
	a.fire(ctx, hooks.SessionEnd, reason, func() map[string]any { return map[string]any{"reason": reason} })
}

// Notify fires Notification hooks: message is for the user, kind the
// notification_type ("permission_prompt": the approval prompt waits).
func (a *Agent) Notify(ctx context.Context, message, kind string) {
	a.fire(ctx, hooks.Notification, kind, func() map[string]any {
		return map[string]any{"message": message, "notification_type": kind}
	})
}

// Hooks returns the session's hook runner (nil when hooks are off) and
// the hooks of the active skills, for /hooks.
func (a *Agent) Hooks() (*hooks.Runner, []hooks.Hook) {
	return a.opts.Hooks, a.scopedHooks()
}
