package permissions

import (
	"strings"
	"testing"
)

func TestParseLevel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Level
		wantErr bool
	}{
		{"read_only", ReadOnly, false},
		{"readonly", ReadOnly, false}, // ClawSeed's spelling
		{"read-only", ReadOnly, false},
		{"supervised", Supervised, false},
		{"", Supervised, false},
		{"full", Full, false},
		{"bogus", "", true},
		{"Full", "", true},
	}
	for _, tt := range tests {
		got, err := ParseLevel(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseLevel(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), `"`+tt.in+`"`) {
			t.Errorf("error %q does not name the input", err)
		}
	}
}

func TestClassString(t *testing.T) {
	t.Parallel()
	for c, want := range map[Class]string{ClassRead: "read", ClassWrite: "write", ClassExec: "exec", ClassNetwork: "network", Class(7): "Class(7)"} {
		if got := c.String(); got != want {
			t.Errorf("Class(%d).String() = %q, want %q", int(c), got, want)
		}
	}
}

func TestMatchGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"shell", "shell", true},
		{"shell", "shell2", false},
		{"memory_*", "memory_store", true},
		{"memory_*", "memory", false},
		{"*", "anything", true},
		{"file_?ead", "file_read", true},
		{"cron_[ar]*", "cron_add", true},
		{"cron_[ar]*", "cron_list", false},
		{"[", "[", true}, // malformed: matches only itself
		{"[", "x", false},
		{"mcp__*", "mcp__github__create_issue", true},
	}
	for _, tt := range tests {
		if got := MatchGlob(tt.pattern, tt.name); got != tt.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

func TestPolicyVisible(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		policy Policy
		tool   string
		class  Class
		want   bool
	}{
		{"supervised shows writes", Policy{Level: Supervised}, "file_write", ClassWrite, true},
		{"full shows exec", Policy{Level: Full}, "shell", ClassExec, true},
		{"zero level shows all", Policy{}, "web_fetch", ClassNetwork, true},
		{"read_only shows reads", Policy{Level: ReadOnly}, "file_read", ClassRead, true},
		{"read_only hides writes", Policy{Level: ReadOnly}, "file_write", ClassWrite, false},
		{"read_only hides exec", Policy{Level: ReadOnly}, "shell", ClassExec, false},
		{"read_only hides network", Policy{Level: ReadOnly}, "web_search", ClassNetwork, false},
		{"allowed exact", Policy{Level: Full, Allowed: []string{"file_read"}}, "file_read", ClassRead, true},
		{"not in allowed", Policy{Level: Full, Allowed: []string{"file_read"}}, "shell", ClassExec, false},
		{"allowed glob", Policy{Level: Full, Allowed: []string{"memory_*"}}, "memory_recall", ClassRead, true},
		{"denied exact", Policy{Level: Full, Denied: []string{"shell"}}, "shell", ClassExec, false},
		{"denied glob", Policy{Level: Full, Denied: []string{"cron_*"}}, "cron_add", ClassWrite, false},
		{"deny wins over allow", Policy{Level: Full, Allowed: []string{"*"}, Denied: []string{"shell"}}, "shell", ClassExec, false},
		{"deny of another tool", Policy{Level: Full, Denied: []string{"shell"}}, "git", ClassExec, true},
		{"allowed does not beat read_only", Policy{Level: ReadOnly, Allowed: []string{"shell"}}, "shell", ClassExec, false},
		{"malformed glob matches itself", Policy{Level: Full, Allowed: []string{"["}}, "[", ClassRead, true},
	}
	for _, tt := range tests {
		if got := tt.policy.Visible(tt.tool, tt.class); got != tt.want {
			t.Errorf("%s: Visible(%s, %v) = %v, want %v", tt.name, tt.tool, tt.class, got, tt.want)
		}
	}
}

func TestPolicyDecide(t *testing.T) {
	t.Parallel()
	supervised := Policy{
		Level:       Supervised,
		AutoApprove: []string{"file_read", "memory_*", "calculator", "Skill"},
		AlwaysAsk:   []string{"file_read_secret", "git"},
	}
	tests := []struct {
		name        string
		policy      Policy
		tool        string
		class       Class
		preApproved bool
		want        Decision
	}{
		// full never asks, whatever the lists say
		{"full write", Policy{Level: Full}, "file_write", ClassWrite, false, Allow},
		{"full exec", Policy{Level: Full}, "shell", ClassExec, false, Allow},
		{"full always_ask", Policy{Level: Full, AlwaysAsk: []string{"shell"}}, "shell", ClassExec, false, Allow},
		// read_only runs reads and refuses the rest
		{"read_only read", Policy{Level: ReadOnly}, "file_read", ClassRead, false, Allow},
		{"read_only write", Policy{Level: ReadOnly}, "file_write", ClassWrite, false, Deny},
		{"read_only exec pre-approved", Policy{Level: ReadOnly}, "shell", ClassExec, true, Deny},
		{"read_only auto_approve", Policy{Level: ReadOnly, AutoApprove: []string{"shell"}}, "shell", ClassExec, false, Deny},
		// supervised
		{"supervised read", supervised, "content_search", ClassRead, false, Allow},
		{"supervised write asks", supervised, "file_write", ClassWrite, false, Ask},
		{"supervised exec asks", supervised, "shell", ClassExec, false, Ask},
		{"supervised network asks", supervised, "web_fetch", ClassNetwork, false, Ask},
		{"supervised pre-approved", supervised, "shell", ClassExec, true, Allow},
		{"supervised auto_approve exact", supervised, "calculator", ClassWrite, false, Allow},
		{"supervised auto_approve glob", supervised, "memory_store", ClassWrite, false, Allow},
		{"always_ask beats read", supervised, "file_read_secret", ClassRead, false, Ask},
		{"always_ask beats pre-approval", supervised, "git", ClassExec, true, Ask},
		{"always_ask beats auto_approve", Policy{Level: Supervised, AutoApprove: []string{"git"}, AlwaysAsk: []string{"g*"}}, "git", ClassExec, false, Ask},
		{"zero level is supervised", Policy{}, "file_write", ClassWrite, false, Ask},
		{"zero level read", Policy{}, "file_read", ClassRead, false, Allow},
	}
	for _, tt := range tests {
		if got := tt.policy.Decide(tt.tool, tt.class, tt.preApproved); got != tt.want {
			t.Errorf("%s: Decide(%s, %v, %v) = %v, want %v", tt.name, tt.tool, tt.class, tt.preApproved, got, tt.want)
		}
	}
}

// TestNetworkNeverAutoApprovedByGlob: a network tool runs without asking
// only when auto_approve or an active skill's allowed-tools names it
// (issue 10); always_ask still wins.
func TestNetworkNeverAutoApprovedByGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		auto, ask []string
		name      string
		class     Class
		want      Decision
	}{
		{[]string{"*"}, nil, "web_fetch", ClassNetwork, Ask},
		{[]string{"web_*"}, nil, "web_fetch", ClassNetwork, Ask},
		{[]string{"web_fetch"}, nil, "web_fetch", ClassNetwork, Allow},
		{[]string{"web_fetch"}, []string{"web_*"}, "web_fetch", ClassNetwork, Ask},
		{[]string{"*"}, nil, "file_write", ClassWrite, Allow},
		{[]string{"file_*"}, []string{"file_write"}, "file_write", ClassWrite, Ask},
	}
	for _, tt := range tests {
		p := Policy{Level: Supervised, AutoApprove: tt.auto, AlwaysAsk: tt.ask}
		if got := p.Decide(tt.name, tt.class, false); got != tt.want {
			t.Errorf("auto %v ask %v: Decide(%s) = %v, want %v", tt.auto, tt.ask, tt.name, got, tt.want)
		}
	}
	for entries, want := range map[string]bool{"*": false, "web_*": false, "web_fetch": true, "WebFetch": true, "web_fetch(https://*)": true} {
		if got := AllowedToolsCoverClass([]string{entries}, "web_fetch", "https://example.com", ClassNetwork); got != want {
			t.Errorf("allowed-tools %q covers web_fetch = %v, want %v", entries, got, want)
		}
	}
	if !AllowedToolsCoverClass([]string{"*"}, "file_read", "x", ClassRead) {
		t.Error("a glob no longer covers a read tool")
	}
}

func TestLevelLower(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ l, cap, want Level }{
		{Full, Supervised, Supervised},
		{Supervised, Full, Supervised},
		{Supervised, ReadOnly, ReadOnly},
		{ReadOnly, Full, ReadOnly},
		{Full, Full, Full},
	} {
		if got := tt.l.Lower(tt.cap); got != tt.want {
			t.Errorf("%s.Lower(%s) = %s, want %s", tt.l, tt.cap, got, tt.want)
		}
	}
}

// Plan mode lets reads and fetches through, at every level and whatever
// pre-approves a call, and denies everything else; the level still
// decides whether what it lets through is asked about.
func TestPlanMode(t *testing.T) {
	for _, tc := range []struct {
		level Level
		call  Call
		want  Decision
	}{
		{Full, Call{Tool: "file_read", Class: ClassRead}, Allow},
		{Full, Call{Tool: "git", Class: ClassRead}, Allow}, // git status: a read call
		{Full, Call{Tool: "file_write", Class: ClassWrite}, Deny},
		{Full, Call{Tool: "shell", Class: ClassExec, Sandboxed: true}, Deny},
		{Full, Call{Tool: "web_fetch", Class: ClassNetwork}, Allow},
		{Supervised, Call{Tool: "web_search", Class: ClassNetwork}, Ask},
		{Supervised, Call{Tool: "http_request", Class: ClassNetwork, PreApproved: true}, Deny},
		{Supervised, Call{Tool: "mcp__github__create_issue", Class: ClassNetwork}, Deny},
		{Full, Call{Tool: "mcp_resource_read", Class: ClassNetwork}, Allow},
		{Supervised, Call{Tool: "file_edit", Class: ClassWrite, PreApproved: true}, Deny},
		{Supervised, Call{Tool: "memory_store", Class: ClassWrite}, Deny},
		{ReadOnly, Call{Tool: "content_search", Class: ClassRead}, Allow},
	} {
		p := Policy{Level: tc.level, Plan: true, AutoApprove: []string{"*"}, AutoApproveSandboxed: true}
		if tc.call.Tool == "web_search" {
			p.AutoApprove = nil
		}
		if got := p.DecideCall(tc.call); got != tc.want {
			t.Errorf("%s %+v = %v, want %v", tc.level, tc.call, got, tc.want)
		}
		if !p.Visible(tc.call.Tool, tc.call.Class) && tc.level != ReadOnly {
			t.Errorf("plan mode hides %s", tc.call.Tool)
		}
	}
}
