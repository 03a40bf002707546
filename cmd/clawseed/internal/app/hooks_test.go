package app

import (
	"context"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/hooks"
)

type contentApprover struct{ shows bool }

func (contentApprover) Approve(context.Context, agent.ApprovalRequest) (agent.ApprovalAnswer, error) {
	return agent.ApprovalAnswer{Decision: agent.ApproveOnce}, nil
}
func (c contentApprover) ShowsContent() bool { return c.shows }

type plainApprover struct{}

func (plainApprover) Approve(context.Context, agent.ApprovalRequest) (agent.ApprovalAnswer, error) {
	return agent.ApprovalAnswer{Decision: agent.ApproveOnce}, nil
}

// TestSessionApprover: chat's approver is wrapped to fire Notification
// hooks and still says whether it shows control-path writes' content (the
// agent approves such a content only then); run's are not wrapped.
func TestSessionApprover(t *testing.T) {
	t.Parallel()
	s := &Session{hooks: hooks.New(hooks.Options{})}
	for _, tt := range []struct {
		in    agent.Approver
		shows bool
	}{{contentApprover{true}, true}, {contentApprover{false}, false}, {plainApprover{}, false}} {
		got := s.approver(tt.in)
		if _, ok := got.(notifyingApprover); !ok {
			t.Errorf("%T not wrapped", tt.in)
		}
		ca, ok := got.(interface{ ShowsContent() bool })
		if !ok || ca.ShowsContent() != tt.shows {
			t.Errorf("%T: ShowsContent lost", tt.in)
		}
	}
	if _, ok := s.approver(YesApprover{}).(YesApprover); !ok {
		t.Error("--yes wrapped")
	}
	if s.approver(nil) != nil {
		t.Error("nil approver wrapped")
	}
	if _, ok := (&Session{}).approver(plainApprover{}).(plainApprover); !ok {
		t.Error("wrapped with hooks off")
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
