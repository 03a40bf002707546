package agent

import (
	"context"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/runtime/hooks"
)

// noticedApprover approves, and records how many Notification hooks had
// fired when it was asked.
type noticedApprover struct {
	hs         *hookScripts
	unattended bool
	seen       []int
}

func (n *noticedApprover) Approve(context.Context, ApprovalRequest) (ApprovalAnswer, error) {
	n.seen = append(n.seen, len(n.hs.of(hooks.Notification)))
	return ApprovalAnswer{Decision: ApproveOnce}, nil
}

func (n *noticedApprover) AnswersAtOnce() bool { return n.unattended }

// TestNotifyBeforeAsking: the agent fires the Notification hooks
// ("permission_prompt") itself before it asks an approver a person
// answers, and not before an Unattended one (run --yes): nothing outside
// the agent has to reach back into it.
func TestNotifyBeforeAsking(t *testing.T) {
	t.Parallel()
	for _, unattended := range []bool{false, true} {
		ap := &noticedApprover{unattended: unattended}
		env, hs := hookEnv(t, []providertest.Response{shellCall("make"), {Text: "ok"}},
			[]hooks.Hook{hook(hooks.Notification, "", "n", userSrc)},
			map[string]func(map[string]any) hooks.CommandResult{"n": func(map[string]any) hooks.CommandResult { return answer("") }},
			func(o *Options) { o.Policy = permissions.Policy{Level: permissions.Supervised}; o.Approver = ap })
		ap.hs = hs
		if _, err := env.agent.Turn(t.Context(), "build"); err != nil {
			t.Fatal(err)
		}
		got := hs.of(hooks.Notification)
		if len(ap.seen) != 1 {
			t.Fatalf("unattended %v: asked %d times", unattended, len(ap.seen))
		}
		switch {
		case unattended && len(got) != 0:
			t.Errorf("unattended approver: notified %v", got)
		case !unattended && (len(got) != 1 || ap.seen[0] != 1):
			t.Errorf("notifications %v, %d before asking; want 1 before", got, ap.seen[0])
		case !unattended && (got[0]["notification_type"] != "permission_prompt" || got[0]["message"] != "clawseed needs your permission to use Bash"):
			t.Errorf("notification %v", got[0])
		}
	}
}
