package app

import (
	"context"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/skills"
)

// TestEvalApprover: an eval run approves reads and the case's tools, and
// never what only the user may approve.
func TestEvalApprover(t *testing.T) {
	t.Parallel()
	a := evalApprover{allowed: []string{"Write", "mcp__gh__*", "Bash(git status)"}}
	tests := []struct {
		name string
		req  agent.ApprovalRequest
		want agent.Approval
	}{
		{"read", agent.ApprovalRequest{Tool: "file_read", Class: permissions.ClassRead}, agent.ApproveOnce},
		{"write", agent.ApprovalRequest{Tool: "file_edit", Class: permissions.ClassWrite}, agent.Deny},
		{"allowed by Claude Code's name", agent.ApprovalRequest{Tool: "file_write", Class: permissions.ClassWrite}, agent.ApproveOnce},
		{"allowed by a glob", agent.ApprovalRequest{Tool: "mcp__gh__create_issue", Class: permissions.ClassNetwork}, agent.ApproveOnce},
		{"a rule allows its tool", agent.ApprovalRequest{Tool: "shell", Class: permissions.ClassExec}, agent.ApproveOnce},
		{"exec", agent.ApprovalRequest{Tool: "web_fetch", Class: permissions.ClassNetwork}, agent.Deny},
		{"control path", agent.ApprovalRequest{Tool: "file_write", Class: permissions.ClassWrite, Writes: []agent.ControlWrite{{}}}, agent.Deny},
		{"read asking for more", agent.ApprovalRequest{Tool: "file_read", Class: permissions.ClassRead, Escalation: "network"}, agent.Deny},
		{"untrusted", agent.ApprovalRequest{Tool: "shell", Class: permissions.ClassExec, Untrusted: true}, agent.Deny},
	}
	for _, tt := range tests {
		ans, err := a.Approve(context.Background(), tt.req)
		if err != nil || ans.Decision != tt.want {
			t.Errorf("%s: %v %v, want %v", tt.name, ans.Decision, err, tt.want)
		}
	}
}

// TestEvalCatalog: Without removes skills, Descriptions replaces on
// copies (the catalog's own skills, perhaps the parse cache's, keep theirs).
func TestEvalCatalog(t *testing.T) {
	t.Parallel()
	a, b, c := &skills.Skill{Name: "a", Description: "A"}, &skills.Skill{Name: "b", Description: "B"}, &skills.Skill{Name: "c", Description: "C"}
	cat := &skills.Catalog{Skills: []*skills.Skill{a, b, c}}
	e := &EvalRun{Without: []string{"b"}, Descriptions: map[string]string{"c": "new C"}}
	got := e.catalog(cat)
	if len(got.Skills) != 2 || got.Skills[0] != a || got.Skills[1].Name != "c" || got.Skills[1].Description != "new C" {
		t.Fatalf("catalog %+v", got.Skills)
	}
	if c.Description != "C" || len(cat.Skills) != 3 {
		t.Error("the original catalog changed")
	}
	if (*EvalRun)(nil).catalog(cat) != cat {
		t.Error("a session that is no eval run got another catalog")
	}
}
