package config

import (
	"strings"
	"testing"
)

// TestTrustDecision: Trusted is asked about every workspace, with or
// without a project file (its skills are project input too: a repository
// with skills and no config file used to count as trusted), and
// Config.Trusted says what Load decided.
func TestTrustDecision(t *testing.T) {
	t.Parallel()
	never := func(string) (bool, string) { return false, "" }

	s := newSandbox(t)
	opts := s.opts(nil)
	asked := 0
	opts.Trusted = func(string) (bool, string) { asked++; return false, "" }
	if c := mustLoad(t, opts); c.Trusted || asked != 1 || c.HasProjectFile() || c.IgnoredSummary() != "" {
		t.Errorf("no project file: Trusted %v (asked %d times), HasProjectFile %v, summary %q", c.Trusted, asked, c.HasProjectFile(), c.IgnoredSummary())
	}

	// Why a workspace the user trusted is not trusted now is kept for
	// the messages; a trusted one has no such reason.
	opts.Trusted = func(string) (bool, string) { return false, "/w/.mcp.json changed since you trusted this workspace" }
	if c := mustLoad(t, opts); c.Trusted || c.TrustChanged != "/w/.mcp.json changed since you trusted this workspace" {
		t.Errorf("changed: Trusted %v, TrustChanged %q", c.Trusted, c.TrustChanged)
	}
	opts.Trusted = func(string) (bool, string) { return true, "stale" }
	if c := mustLoad(t, opts); !c.Trusted || c.TrustChanged != "" {
		t.Errorf("trusted: Trusted %v, TrustChanged %q", c.Trusted, c.TrustChanged)
	}

	writeFile(t, s.projectFile(), "[autonomy]\nlevel = \"full\"\n")
	if c := mustLoad(t, s.opts(nil)); !c.Trusted || c.Autonomy.Level != "full" || len(c.Ignored) != 0 {
		t.Errorf("nil Trusted: Trusted %v, level %s, ignored %v", c.Trusted, c.Autonomy.Level, c.Ignored)
	}

	// --config replaces the project file, not the workspace: the file
	// applies in full, the workspace stays untrusted.
	opts = s.opts(nil)
	opts.Trusted = never
	opts.ConfigFile = writeFile(t, s.root+"/explicit.toml", "[autonomy]\nlevel = \"full\"\n")
	if c := mustLoad(t, opts); c.Trusted || c.HasProjectFile() || c.Autonomy.Level != "full" {
		t.Errorf("--config: Trusted %v, HasProjectFile %v, level %s", c.Trusted, c.HasProjectFile(), c.Autonomy.Level)
	}

	// The environment and flags are the user's own.
	opts = s.opts(env{"CLAWSEED_AUTONOMY": "full"})
	opts.Trusted = never
	if c := mustLoad(t, opts); c.Trusted || c.Autonomy.Level != "full" {
		t.Errorf("env: Trusted %v, level %s", c.Trusted, c.Autonomy.Level)
	}

	// The workspace_dir refusal is the same either way.
	writeFile(t, s.projectFile(), "workspace_dir = \"/\"\n")
	opts = s.opts(nil)
	opts.Trusted = never
	if _, err := Load(opts); err == nil || !strings.Contains(err.Error(), "workspace_dir cannot be set in a project file") {
		t.Errorf("workspace_dir in an untrusted project file: %v", err)
	}
}

func TestDomainCovered(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		user []string
		e    string
		want bool
	}{
		{[]string{"*"}, "anything.test", true},
		{[]string{"*"}, "*", true},
		{[]string{"example.com"}, "example.com", true},
		{[]string{"example.com"}, "API.Example.com.", true},
		{[]string{"example.com"}, "*.example.com", true},
		{[]string{"example.com"}, "*example.com", false},
		{[]string{"example.com"}, "badexample.com", false},
		{[]string{"example.com"}, "*", false},
		{[]string{"*.example.com"}, "a.b.example.com", true},
		{[]string{"*.example.com"}, "example.com", false},
		{[]string{"*.com"}, "*.example.com", true},
		{[]string{"*.example.com"}, "*.com", false},
		{[]string{"api.*"}, "api.test", false},
		{[]string{"api.*"}, "api.*", true},
		{[]string{"a.test"}, "?.test", false},
		{[]string{""}, "", false},
		{nil, "example.com", false},
	} {
		if got := domainCovered(tt.user, tt.e); got != tt.want {
			t.Errorf("domainCovered(%q, %q) = %v, want %v", tt.user, tt.e, got, tt.want)
		}
	}
}
