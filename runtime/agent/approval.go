package agent

import (
	"context"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/hooks"
)

// The approval question: what the agent asks the [Approver] about a call
// (authorize in toolexec.go decides when), and the user's answer.

// An Approver asks the user whether a tool call may run.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (ApprovalAnswer, error)
}

// An Unattended approver answers without asking anyone (run --yes, an
// eval's): the agent tells nobody it is waiting.
type Unattended interface {
	// AnswersAtOnce reports that the approver asks nobody.
	AnswersAtOnce() bool
}

// ask puts req to the approver, which is not nil. Unless it is
// [Unattended], a person answers it, so the Notification hooks
// ("permission_prompt") fire first, as Claude Code's do when its prompt
// waits: every question of this agent (a call, a skill a rule asks
// about, a plan) and of its sub-agents, each on its own hooks.
func (a *Agent) ask(ctx context.Context, req ApprovalRequest) (ApprovalAnswer, error) {
	if u, ok := a.opts.Approver.(Unattended); !ok || !u.AnswersAtOnce() {
		a.Notify(ctx, "clawseed needs your permission to use "+hooks.ClaudeToolName(req.Tool), "permission_prompt")
	}
	return a.opts.Approver.Approve(ctx, req)
}

// An ApprovalAnswer is the user's answer to one request.
type ApprovalAnswer struct {
	Decision Approval
	// Reason is what the user tells the model with a Deny ("no, and tell
	// the model why"): the call's result carries it. "" for a plain no.
	Reason string
	// Plan is the plan as the user edited it, with an approval of an
	// exit_plan_mode request; "" approves the model's plan as it is.
	Plan string
}

// An ApprovalRequest describes a call awaiting approval.
type ApprovalRequest struct {
	// ID is the model's id of the call asked about; "" for what is not a
	// model's call (a skill's command, a /NAME that asks). An approver
	// that is answered from elsewhere (clawseed serve) names the call by
	// it.
	ID   string
	Tool string
	// Summary is a one-line description of the call (e.g. the shell command);
	// "" when the tool has none, then Args is the best description.
	Summary string
	Args    string
	Class   permissions.Class
	// Untrusted marks a command or sub-agent of a project skill in an
	// untrusted workspace (§9.1): it is asked even under full autonomy,
	// never pre-approved, and an approver that approves without asking
	// (run --yes) must refuse it.
	Untrusted bool
	// Writes are the control paths the call writes (§9): files that decide
	// what clawseed runs or allows. Such a call is asked whatever the
	// autonomy level, auto_approve or an earlier "always" say; the prompt
	// shows each file's content, and "always" is not offered (it counts
	// as once).
	Writes []ControlWrite
	// Sandbox is how the call runs in the OS sandbox once approved (issue
	// 21): the prompt says so. SandboxUnknown for a tool that starts no
	// command.
	Sandbox permissions.SandboxState
	// Escalation is what the call asks for beyond the sandbox
	// (permissions.EscalationNetwork, permissions.EscalationNoSandbox or
	// another short phrase), "" for nothing. Such a call is asked whatever
	// the autonomy level, auto_approve or an earlier "always" say, and
	// "always" is not offered (it counts as once).
	Escalation string
	// CanAllowNetwork offers the answer [ApproveNetwork]: the call is
	// sandboxed without network and may be let use it this once.
	CanAllowNetwork bool
	// HookAsked is set when a PreToolUse hook asked for this prompt
	// (permissionDecision "ask"): the call is asked whatever the level,
	// and "always" counts as once. HookReason is the hook's reason.
	HookAsked  bool
	HookReason string

	// hookAllow: one of the user's own PreToolUse hooks allowed the call
	// (a pre-approval).
	hookAllow bool

	// Rule is set when an ask permission rule asks about the call (`ask
	// rule "Bash(git push *)" in FILE`): it is asked whatever the autonomy
	// level, auto_approve or an earlier "always" say, and "always" is not
	// offered (it counts as once).
	Rule string

	// Always says what an [ApproveAlways] answer approves for the rest of
	// the session ([permissions.AlwaysFor]: "`go test ./...`", "edits to
	// main.go"), for the prompt's "always allow LABEL this session"; ""
	// when "always" is not offered (a call asked every time, one no rule
	// can name exactly, or a level at which it would change nothing).
	Always string

	// Plan is set on the request of an exit_plan_mode call (Tool
	// "exit_plan_mode"): the plan, in Markdown, for the user to approve
	// (any yes), edit (a yes with [ApprovalAnswer].Plan) or reject with a
	// reason (Deny). "Always" and "network" are never offered with it.
	Plan string
}

// sandboxedOffline reports whether the call runs in the sandbox without
// network and asks for nothing more: auto_approve_sandboxed may run it
// unasked, and "with network" may be offered.
func (r ApprovalRequest) sandboxedOffline() bool {
	return r.Sandbox == permissions.SandboxNoNetwork && r.Escalation == ""
}

// An Approval is the user's answer.
type Approval int

// Approval answers.
const (
	Deny Approval = iota
	ApproveOnce
	// ApproveAlways approves this call and, for the rest of the session,
	// what the request's Always names: the allow rules of
	// [permissions.AlwaysFor], never the whole tool. Unless offered
	// (Always set), it counts as ApproveOnce.
	ApproveAlways
	// ApproveNetwork approves this call and lets it use the network in
	// the sandbox ("allow network for this command"); offered only when
	// the request's CanAllowNetwork is set, else it counts as ApproveOnce.
	ApproveNetwork
)
