package agent

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/clawseed/clawseed/permissions"
)

// A verdict is what the autonomy policy and the user said of a call.
type verdict int

const (
	allowed            verdict = iota
	allowedWithNetwork         // approved, and allowed the network (ApproveNetwork)
	notAllowed                 // the autonomy level forbids it
	cannotAsk                  // it needs approval and no one can give it
	askCancelled               // the turn was cancelled at the prompt
	askFailed                  // the prompt failed
	userDenied
	ruleDenied // a deny rule refuses it; the error is a *ruleDenial
)

// denied reports whether v refuses the call on permission grounds (a deny
// rule, the level, nobody to ask, the user's no): what `run`'s result
// lists as permission_denials. A cancelled or failed prompt is not a
// denial.
func (v verdict) denied() bool {
	return v == ruleDenied || v == notAllowed || v == cannotAsk || v == userDenied
}

// authorize applies the permission rules and the autonomy policy to a
// call, asking the user with req when they say so; an "always" answer
// adds the session allow rules that cover exactly what subj does
// ([permissions.AlwaysFor]: the command, the file, the domain — never the
// whole tool). subj is what the call does, for the rules and for
// allowed-tools patterns. The error is set with askFailed, a *ruleDenial
// with ruleDenied, with cannotAsk for a call an ask rule asks about the
// sentence for the model, and with userDenied a *userReason when the user
// said why (or a hook's denial).
//
// The order is the one place these rules meet:
//
//  1. a deny rule ([Options.Rules]) refuses the call, whatever else says;
//  2. a call that writes a control path (§9) or asks for more than the
//     OS sandbox gives (req.Escalation, issue 21) is asked whatever the
//     policy, pre-approvals, auto_approve_sandboxed and "always" answers
//     say, unless the level forbids it outright; "always" counts as once;
//  3. a command or sub-agent of an untrusted project skill (req.Untrusted)
//     is asked likewise; its "always" counts as once;
//  4. a call an ask rule matches is asked likewise (even under full
//     autonomy, auto_approve or an earlier "always"), unless the level
//     forbids it outright; its "always" counts as once;
//  5. anything else goes to [permissions.Policy.DecideCall]: full allows,
//     read_only denies non-reads, always_ask asks, then pre-approval (an
//     allow rule — of the settings files or added by an "always" answer
//     —, a skill's allowed-tools),
//     auto_approve, accept-edits mode for an edit inside the workspace
//     and — for a sandboxed call — auto_approve_sandboxed allow.
//
// ApproveNetwork, offered when req.CanAllowNetwork, approves once and
// returns allowedWithNetwork.
func (a *Agent) authorize(ctx context.Context, req ApprovalRequest, subj permissions.Subject) (verdict, error) {
	policy := a.policy() // plan mode included
	rule := permissions.Decide(a.rules(), subj)
	if rule.Kind == permissions.RuleDeny {
		return ruleDenied, &ruleDenial{denialText(rule)}
	}
	asked := rule.Kind == permissions.RuleAsk
	if asked {
		req.Rule = askText(rule)
	}
	control := len(req.Writes) > 0
	usersOwn := control || req.Escalation != "" || req.Untrusted
	onceOnly := usersOwn || req.HookAsked || asked
	switch {
	case control || req.Escalation != "":
		if policy.Decide(req.Tool, req.Class, false) == permissions.Deny {
			return notAllowed, nil
		}
	case req.Untrusted:
		// Asked whatever the level, unless the level forbids it outright.
		if req.Class == permissions.ClassExec && policy.Decide(req.Tool, req.Class, false) == permissions.Deny {
			return notAllowed, nil
		}
	case req.HookAsked || asked:
		// A PreToolUse hook or an ask rule asked: asked whatever the
		// level, unless it forbids the call outright.
		if policy.Decide(req.Tool, req.Class, false) == permissions.Deny {
			return notAllowed, nil
		}
	default:
		// Pre-approval only matters when the policy could ask: an allow
		// rule (of the settings files, or one an "always" answer added),
		// a PreToolUse hook's allow (the user's own hooks only), a
		// skill's allowed-tools.
		pre := policy.Level == permissions.Supervised &&
			(rule.Kind == permissions.RuleAllow || req.hookAllow || a.skillAllows(subj))
		call := permissions.Call{Tool: req.Tool, Class: req.Class, PreApproved: pre, Sandboxed: req.sandboxedOffline()}
		if policy.AcceptEdits {
			// The workspace in every form, as the written paths are.
			call.WorkspaceEdit = permissions.WorkspaceEdit(subj, a.pathForms([]string{a.opts.Prompt.Workspace})...)
		}
		switch policy.DecideCall(call) {
		case permissions.Deny:
			return notAllowed, nil
		case permissions.Allow:
			return allowed, nil
		}
	}
	// The prompt would be shown: PermissionRequest hooks may answer it,
	// except for what only the user may approve.
	if !usersOwn {
		switch answer, err := a.permissionHooks(ctx, req); answer {
		case "allow":
			return allowed, nil
		case "deny":
			return userDenied, err
		}
	}
	if a.opts.Approver == nil {
		if asked && !control && req.Escalation == "" && !req.Untrusted {
			return cannotAsk, &ruleDenial{ruleCannotAsk(req.Tool, rule.Rule.String())}
		}
		return cannotAsk, nil
	}
	// "always" is offered where it changes something (supervised, not
	// always_ask, not a call asked every time) and covers exactly what
	// this call does, when rules can say so.
	var always permissions.Always
	if !onceOnly && policy.Level == permissions.Supervised && !policy.AlwaysAsks(req.Tool) {
		if al, ok := permissions.AlwaysFor(subj, a.opts.Prompt.Workspace); ok {
			always, req.Always = al, al.Label
		}
	}
	ans, err := a.ask(ctx, req)
	switch {
	case err != nil && ctx.Err() != nil:
		return askCancelled, nil
	case err != nil:
		return askFailed, err
	case ans.Decision == ApproveAlways:
		a.always.add(always.Rules) // none when not offered: once
	case ans.Decision == ApproveOnce:
	case ans.Decision == ApproveNetwork:
		// Unless offered (the call is sandboxed without network), it is
		// a yes: the call runs as it was asked about.
	default:
		return userDenied, reasonError(ans)
	}
	if control {
		a.approvedContent(req.Writes)
	}
	if ans.Decision == ApproveNetwork && req.CanAllowNetwork {
		return allowedWithNetwork, nil
	}
	return allowed, nil
}

// escalationCannotAsk is the refusal of a call that asks for more than the
// sandbox gives when nobody can approve it: why, and the ways to allow it.
func escalationCannotAsk(tool, escalation string) string {
	own := "run it with --no-sandbox, or set [sandbox].enabled = false in your own config file"
	if escalation == permissions.EscalationNetwork {
		own = "set [sandbox].network = \"on\" in your own config file"
	}
	return fmt.Sprintf("Tool call denied: this %s call asks for %s, beyond what the sandbox allows commands, so the user must approve it each time, whatever auto_approve or the autonomy level say, and this session cannot ask (run with --yes to approve such calls, answer the question in `clawseed chat`, or %s).",
		tool, escalation, own)
}

// reasonSuffix is " Reason: R" for a non-empty reason.
func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return " Reason: " + r
}

// toolNameText shows a tool name in a message to the model, quoted when it
// would otherwise be invisible or ambiguous (empty, or with spaces or
// control characters).
func toolNameText(name string) string {
	if name == "" || strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) {
		return strconv.Quote(name)
	}
	return name
}
