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

// TestPermissionMode: the mode name the hooks and run's init line share.
func TestPermissionMode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		level     permissions.Level
		yes, plan bool
		want      string
	}{
		{permissions.ReadOnly, false, false, "plan"},
		{permissions.ReadOnly, true, false, "plan"},
		{permissions.Supervised, false, false, "default"},
		{permissions.Supervised, true, false, "bypassPermissions"},
		{permissions.Supervised, true, true, "plan"},
		{permissions.Full, false, false, "bypassPermissions"},
		{permissions.Full, false, true, "plan"},
	} {
		if got := permissionMode(tt.level, tt.yes, tt.plan); got != tt.want {
			t.Errorf("%s yes=%v plan=%v: %s, want %s", tt.level, tt.yes, tt.plan, got, tt.want)
		}
	}
}
