package app

import (
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
)

// TestUnattendedApprovers: the approvers that ask nobody say so, so the
// agent fires no Notification hooks for them (agent.Unattended).
func TestUnattendedApprovers(t *testing.T) {
	t.Parallel()
	for _, a := range []agent.Approver{YesApprover{}, evalApprover{}} {
		if u, ok := a.(agent.Unattended); !ok || !u.AnswersAtOnce() {
			t.Errorf("%T is not unattended", a)
		}
	}
}

func TestPermissionMode(t *testing.T) {
	t.Parallel()
	for level, want := range map[permissions.Level]string{permissions.ReadOnly: "plan", permissions.Supervised: "default", permissions.Full: "bypassPermissions"} {
		if got := permissionMode(level); got != want {
			t.Errorf("%s: %s, want %s", level, got, want)
		}
	}
}
