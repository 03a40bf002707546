package app

import (
	"context"

	"github.com/clawseed/clawseed/runtime/agent"
)

// ErrUntrustedYes is [YesApprover]'s refusal of what a project skill of an
// untrusted workspace runs.
const ErrUntrustedYes = Error("the workspace is not trusted, and --yes does not approve what its skills run (run with --trust, or trust it with `clawseed trust`)")

// YesApprover approves everything (run --yes) but what a project skill of
// an untrusted workspace runs: --yes is consent to the model's calls, not to
// a cloned repository's commands (§9.1). That includes a call that asks for
// more than the OS sandbox gives (network access, no sandbox), which runs
// as it asked; it never answers "with network" for a sandboxed call: the
// sandbox's own limits stay.
type YesApprover struct{}

// Approve implements [agent.Approver].
func (YesApprover) Approve(_ context.Context, req agent.ApprovalRequest) (agent.ApprovalAnswer, error) {
	if req.Untrusted {
		return agent.ApprovalAnswer{Decision: agent.Deny}, ErrUntrustedYes
	}
	return agent.ApprovalAnswer{Decision: agent.ApproveOnce}, nil
}

// AnswersAtOnce implements [agent.Unattended]: nobody waits on --yes, so
// no Notification hook fires.
func (YesApprover) AnswersAtOnce() bool { return true }
