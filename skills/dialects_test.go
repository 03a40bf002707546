package skills

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// dialectOptions returns the discovery options of the dialect corpus in
// testdata/dialects: its workspace's standard roots, the built-ins, and
// fixed gating (linux; git on PATH; DIALECT_TOKEN set), so that what is
// listed does not depend on the machine. cmd/clawseed renders the same
// catalog as `skills list --json` for its golden file.
func dialectOptions(ws string) Options {
	return Options{
		Roots:    StandardRoots(ws, "", "", nil),
		Builtins: true,
		GOOS:     "linux",
		LookPath: func(f string) (string, error) {
			if f == "git" {
				return "/usr/bin/git", nil
			}
			return "", os.ErrNotExist
		},
		LookupEnv: func(k string) (string, bool) {
			if k == "DIALECT_TOKEN" {
				return "x", true
			}
			return "", false
		},
	}
}

// TestDialectCorpus: one skill per feature of each dialect loads without an
// error diagnostic, with the feature read.
func TestDialectCorpus(t *testing.T) {
	t.Parallel()
	ws, err := filepath.Abs(filepath.Join("testdata", "dialects", "ws"))
	if err != nil {
		t.Fatal(err)
	}
	c := Discover(t.Context(), dialectOptions(ws))
	for _, d := range c.Diagnostics {
		if d.Severity == SeverityError {
			t.Errorf("error diagnostic: %s: %s", d.Path, d.Message)
		} else {
			t.Logf("%s %s: %s", d.Severity, d.Path, d.Message)
		}
	}
	get := func(name string) *Skill {
		t.Helper()
		s := c.Lookup(name)
		if s == nil {
			t.Fatalf("%s not discovered", name)
		}
		return s
	}
	checks := []struct {
		name string
		ok   func(s *Skill) bool
	}{
		{"cc-allowed-tools", func(s *Skill) bool { return slices.Equal(s.AllowedTools, []string{"Read", "Grep", "Bash(git diff:*)"}) }},
		{"cc-argument-hint", func(s *Skill) bool { return s.ArgumentHint == "[file] [mode]" && len(s.Arguments) == 2 }},
		{"cc-disable-model-invocation", func(s *Skill) bool { return s.Status == StatusUserOnly }},
		{"cc-user-invocable-false", func(s *Skill) bool { return !s.UserInvocable && s.Status == StatusListed }},
		{"cc-context-fork", func(s *Skill) bool { return s.Context == "fork" && len(s.AllowedTools) == 3 }},
		{"cc-model", func(s *Skill) bool { return s.Model == "sonnet" }},
		{"cc-effort", func(s *Skill) bool { return s.Effort == "high" }},
		{"cc-when-to-use", func(s *Skill) bool { return s.WhenToUse != "" }},
		{"cc-paths", func(s *Skill) bool { return slices.Equal(s.Paths, []string{"**/*.go"}) }},
		{"cc-hooks", func(s *Skill) bool { return s.Status == StatusListed }},
		{"review", func(s *Skill) bool { return s.Command && s.Model == "haiku" && s.ArgumentHint == "[pr-number]" }},
		{"frontend:lint", func(s *Skill) bool { return s.Command && s.Status == StatusUserOnly }},
		{"myplugin:helper", func(s *Skill) bool { return s.Plugin == "myplugin" && !s.Command }},
		{"myplugin:hello", func(s *Skill) bool { return s.Plugin == "myplugin" && s.Command }},
		{"oc-requires-bins", func(s *Skill) bool { return s.Status == StatusListed && slices.Equal(s.Requires.Bins, []string{"git"}) }},
		{"oc-requires-missing-bin", func(s *Skill) bool { return s.Status == StatusHidden }},
		{"oc-any-bins", func(s *Skill) bool { return s.Status == StatusListed && len(s.Requires.AnyBins) == 2 }},
		{"oc-env", func(s *Skill) bool {
			return s.Status == StatusListed && slices.Equal(s.Requires.Env, []string{"DIALECT_TOKEN"})
		}},
		{"oc-env-missing", func(s *Skill) bool { return s.Status == StatusHidden }},
		{"oc-os", func(s *Skill) bool { return s.Status == StatusListed }},
		{"oc-os-windows", func(s *Skill) bool { return s.Status == StatusHidden }},
		{"oc-always", func(s *Skill) bool { return s.IgnoreRequires && s.Status == StatusListed }},
		{"oc-emoji-homepage", func(s *Skill) bool { return s.Status == StatusListed }},
		{"oc-legacy-clawdbot", func(s *Skill) bool { return slices.Equal(s.Requires.Bins, []string{"git"}) }},
		{"oc-command-dispatch", func(s *Skill) bool { return s.Status == StatusListed }},
		{"as-allowed-tools-string", func(s *Skill) bool { return slices.Equal(s.AllowedTools, []string{"Read", "Bash(git:*)", "Grep"}) }},
		{"as-compatibility", func(s *Skill) bool { return s.Compatibility != "" }},
		{"as-metadata", func(s *Skill) bool { return s.Metadata["author"] == "example-org" }},
		{"as-license", func(s *Skill) bool { return s.License == "Apache-2.0" }},
		{"hermes-platforms", func(s *Skill) bool { return s.Status == StatusListed && len(s.OS) == 2 }},
		{"hermes-platforms-windows", func(s *Skill) bool { return s.Status == StatusHidden }},
		{"hermes-metadata", func(s *Skill) bool { return s.Metadata["hermes"] != nil }},
		{"hermes-required-env", func(s *Skill) bool { return s.Status == StatusListed }},
		{"cs-manifest-tools", func(s *Skill) bool { return slices.Equal(s.Permissions, []string{"file_read"}) }},
		{"cs-manifest-merge", func(s *Skill) bool {
			return s.Description == "The manifest wins field by field." && s.ArgumentHint == "[branch]" && s.ManifestPath != "" && s.SkillPath != ""
		}},
		{"cs-shell", func(s *Skill) bool { return s.Shell != nil && s.Shell.Command != "" }},
		{"cs-shell-vector", func(s *Skill) bool { return s.Shell != nil && s.Shell.Command == "git" && s.Shell.TimeoutSecs == 10 }},
		{"cs-triggers", func(s *Skill) bool { return len(s.Triggers) == 2 && len(s.Permissions) == 2 }},
	}
	for _, tt := range checks {
		if s := get(tt.name); !tt.ok(s) {
			t.Errorf("%s: feature not read: %+v", tt.name, s)
		}
	}
}
