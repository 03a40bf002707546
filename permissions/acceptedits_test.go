package permissions

import "testing"

// WorkspaceEdit: an edit tool's call whose every written path, in every
// form, is inside the workspace; nothing else.
func TestWorkspaceEdit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		s    Subject
		ws   string
		want bool
	}{
		{"file_write inside", Subject{Tool: "file_write", Writes: []string{"/ws/a.go"}}, "/ws", true},
		{"file_edit nested", Subject{Tool: "file_edit", Writes: []string{"/ws/x/y/z.go"}}, "/ws/", true},
		{"a link out of it", Subject{Tool: "file_write", Writes: []string{"/ws/link", "/etc/passwd"}}, "/ws", false},
		{"outside", Subject{Tool: "file_write", Writes: []string{"/tmp/a"}}, "/ws", false},
		{"a sibling with the prefix", Subject{Tool: "file_write", Writes: []string{"/wsx/a"}}, "/ws", false},
		{"the workspace itself", Subject{Tool: "file_write", Writes: []string{"/ws"}}, "/ws", false},
		{"the parent", Subject{Tool: "file_write", Writes: []string{"/"}}, "/ws", false},
		{"a relative path", Subject{Tool: "file_write", Writes: []string{"a.go"}}, "/ws", false},
		{"no paths named", Subject{Tool: "file_write"}, "/ws", false},
		{"not an edit tool", Subject{Tool: "skill_create", Writes: []string{"/ws/.clawseed/skills/x/SKILL.md"}}, "/ws", false},
		{"a command", Subject{Tool: "shell", Class: ClassExec, Writes: []string{"/ws/a"}}, "/ws", false},
		{"no workspace", Subject{Tool: "file_write", Writes: []string{"/ws/a"}}, "", false},
		{"a relative workspace", Subject{Tool: "file_write", Writes: []string{"/ws/a"}}, "ws", false},
	} {
		if got := WorkspaceEdit(tt.s, tt.ws); got != tt.want {
			t.Errorf("%s: WorkspaceEdit = %v, want %v", tt.name, got, tt.want)
		}
	}
	// A workspace reached through a link: each written form inside one of
	// its forms.
	linked := Subject{Tool: "file_write", Writes: []string{"/home/u/ws/a.go", "/data/ws/a.go"}}
	if !WorkspaceEdit(linked, "/home/u/ws", "/data/ws") || WorkspaceEdit(linked, "/home/u/ws") {
		t.Error("a workspace's forms are not each accepted")
	}
}

// AcceptEdits allows a workspace edit under supervised autonomy only:
// plan mode and read_only still deny it, always_ask still asks, and a
// call that is not a workspace edit still asks.
func TestDecideAcceptEdits(t *testing.T) {
	t.Parallel()
	edit := Call{Tool: "file_write", Class: ClassWrite, WorkspaceEdit: true}
	for _, tt := range []struct {
		name string
		p    Policy
		c    Call
		want Decision
	}{
		{"off", Policy{Level: Supervised}, edit, Ask},
		{"on", Policy{Level: Supervised, AcceptEdits: true}, edit, Allow},
		{"another write", Policy{Level: Supervised, AcceptEdits: true}, Call{Tool: "file_write", Class: ClassWrite}, Ask},
		{"a command", Policy{Level: Supervised, AcceptEdits: true}, Call{Tool: "shell", Class: ClassExec}, Ask},
		{"the network", Policy{Level: Supervised, AcceptEdits: true}, Call{Tool: "web_fetch", Class: ClassNetwork}, Ask},
		{"always_ask", Policy{Level: Supervised, AcceptEdits: true, AlwaysAsk: []string{"file_*"}}, edit, Ask},
		{"read_only", Policy{Level: ReadOnly, AcceptEdits: true}, edit, Deny},
		{"plan mode", Policy{Level: Supervised, AcceptEdits: true, Plan: true}, edit, Deny},
	} {
		if got := tt.p.DecideCall(tt.c); got != tt.want {
			t.Errorf("%s: DecideCall = %v, want %v", tt.name, got, tt.want)
		}
	}
}
