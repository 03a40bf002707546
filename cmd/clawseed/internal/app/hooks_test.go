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

// TestPermissionMode: the mode name the hooks and run's init line share,
// from the agent's policy (security review F6: accept-edits mode was
// "default").
func TestPermissionMode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		level                  permissions.Level
		yes, plan, acceptEdits bool
		want                   string
	}{
		{permissions.ReadOnly, false, false, false, "plan"},
		{permissions.ReadOnly, true, false, false, "plan"},
		{permissions.Supervised, false, false, false, "default"},
		{permissions.Supervised, false, false, true, "acceptEdits"},
		{permissions.Supervised, true, false, true, "bypassPermissions"},
		{permissions.Supervised, true, false, false, "bypassPermissions"},
		{permissions.Supervised, true, true, false, "plan"},
		{permissions.Full, false, false, false, "bypassPermissions"},
		{permissions.Full, false, true, false, "plan"},
	} {
		p := permissions.Policy{Level: tt.level, Plan: tt.plan, AcceptEdits: tt.acceptEdits}
		if got := permissionMode(p, tt.yes); got != tt.want {
			t.Errorf("%s yes=%v plan=%v acceptEdits=%v: %s, want %s", tt.level, tt.yes, tt.plan, tt.acceptEdits, got, tt.want)
		}
	}
}
