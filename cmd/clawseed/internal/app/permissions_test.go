package app

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/claudesettings"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/subagents"
)

// TestSessionPermissions: the rules of the settings files in the order
// they are evaluated, with sources; what is not used (an untrusted
// project's allow rules, a rule that does not parse, a defaultMode a
// project may not set) with why; acceptEdits in the user's own file as an
// allow of Edit; a warning for a rule that names no tool.
func TestSessionPermissions(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Workspace = "/ws"
	set := &claudesettings.Set{Trusted: false, Files: []*claudesettings.Settings{
		{Path: "/home/u/.claude/settings.json", Scope: claudesettings.ScopeUser, Permissions: claudesettings.Permissions{
			Allow: []string{"Bash(make:*)", "Frobnicate"}, Ask: []string{"Bash(git push *)"}, DefaultMode: "acceptEdits"}},
		{Path: "/ws/.claude/settings.json", Scope: claudesettings.ScopeProject, Permissions: claudesettings.Permissions{
			Allow: []string{"Bash(curl:*)"}, Deny: []string{"Read(./secrets/**)", "Bash(rm"}, DefaultMode: "bypassPermissions"}},
	}}
	r := sessionPermissions(cfg, set, []string{"shell", "file_read", "file_write", "file_edit"})
	var got []string
	for _, rule := range r.rules {
		got = append(got, string(rule.Kind)+" "+rule.Text+" "+rule.Scope+" "+rule.Source)
	}
	want := []string{
		"deny Read(./secrets/**) project /ws/.claude/settings.json",
		"ask Bash(git push *) user /home/u/.claude/settings.json",
		"allow Bash(make:*) user /home/u/.claude/settings.json",
		"allow Frobnicate user /home/u/.claude/settings.json",
		"allow Edit user /home/u/.claude/settings.json (permissions.defaultMode = acceptEdits)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	var notUsed []string
	for _, n := range r.notUsed {
		notUsed = append(notUsed, n.kind+" "+n.text+": "+n.why)
	}
	wantNotUsed := []string{
		"deny Bash(rm: missing closing parenthesis: write Tool or Tool(specifier)",
		"allow Bash(curl:*): " + whyUntrusted,
		"defaultMode bypassPermissions: a project file may not change how calls are approved",
	}
	if diff := cmp.Diff(wantNotUsed, notUsed); diff != "" {
		t.Errorf("not used (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`allow rule "Frobnicate" in /home/u/.claude/settings.json names no tool of this session`}, r.warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	var out bytes.Buffer
	r.notify(&out)
	for _, line := range []string{
		`clawseed: warning: permissions.deny "Bash(rm" in /ws/.claude/settings.json not used: missing closing parenthesis`,
		"clawseed: untrusted workspace: ignored the allow rules of /ws/.claude/settings.json: Bash(curl:*) (trust it with `clawseed trust`, or run with --trust)",
		`clawseed: warning: allow rule "Frobnicate" in /home/u/.claude/settings.json names no tool of this session`,
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("notices lack %q:\n%s", line, out.String())
		}
	}
	if !strings.Contains(out.String(), "bypassPermissions") {
		t.Errorf("notices lack the defaultMode:\n%s", out.String())
	}

	set.Trusted = true
	r = sessionPermissions(cfg, set, []string{"shell"})
	if !strings.Contains(r.rules[len(r.rules)-1].Text+r.rules[len(r.rules)-2].Text, "Bash(curl:*)") {
		t.Errorf("a trusted project's allow rule does not count: %+v", r.rules)
	}
}

// TestPermissionsListingEscapes: a rule's text and source are shown with
// control characters escaped.
func TestPermissionsListingEscapes(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Workspace = "/ws"
	set := &claudesettings.Set{Trusted: true, Files: []*claudesettings.Settings{
		{Path: "/ws/.claude/\x1b[31msettings.json", Scope: claudesettings.ScopeProject, Permissions: claudesettings.Permissions{
			Deny: []string{"Bash(rm \x1b[0m*)"}}},
	}}
	var out bytes.Buffer
	if err := sessionPermissions(cfg, set, []string{"shell"}).write(&out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("raw escape in %q", out.String())
	}
	out.Reset()
	if err := sessionPermissions(cfg, &claudesettings.Set{}, nil).write(&out); err != nil || !strings.HasPrefix(out.String(), "No permission rules") {
		t.Errorf("empty listing %q, %v", out.String(), err)
	}
}

// TestVisibleToolsAgent: the Agent tool counts as a tool of the session
// when subagents are offered, so a rule on Agent draws no warning; not
// when the policy hides it or no subagent exists.
func TestVisibleToolsAgent(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cat := &subagents.Catalog{Agents: []*subagents.Definition{{Name: "general-purpose"}}}
	supervised := permissions.Policy{Level: permissions.Supervised}
	tests := []struct {
		name   string
		policy permissions.Policy
		cat    *subagents.Catalog
		want   bool
	}{
		{"offered", supervised, cat, true},
		{"denied_tools", permissions.Policy{Level: permissions.Supervised, Denied: []string{"Agent"}}, cat, false},
		{"no subagents", supervised, &subagents.Catalog{}, false},
	}
	for _, tt := range tests {
		if got := slices.Contains(visibleTools(cfg, tt.policy, nil, tt.cat), "Agent"); got != tt.want {
			t.Errorf("%s: Agent visible = %v, want %v", tt.name, got, tt.want)
		}
	}
	set := &claudesettings.Set{Files: []*claudesettings.Settings{{Path: "/home/u/.claude/settings.json", Scope: claudesettings.ScopeUser,
		Permissions: claudesettings.Permissions{Deny: []string{"Agent(Explore)"}}}}}
	if r := sessionPermissions(cfg, set, visibleTools(cfg, supervised, nil, cat)); len(r.warnings) != 0 {
		t.Errorf("warnings %v, want none", r.warnings)
	}
}
