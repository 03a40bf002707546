package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPermissionsLayers: [permissions] lists add up over the layers, each
// rule with the file and line that set it; an untrusted project file's
// allow rules are ignored and reported, its deny and ask rules count.
func TestPermissionsLayers(t *testing.T) {
	t.Parallel()
	user := "[permissions]\ndeny = [\"Bash(rm *)\"]\nallow = [\"Bash(make:*)\"]\n"
	project := "# project\n[permissions]\ndeny = [\"Read(./secrets/**)\", \"Bash(rm *)\"]\nask = [\"Bash(git push *)\"]\nallow = [\"Bash(echo:*)\"]\n"
	for _, trusted := range []bool{true, false} {
		s := newSandbox(t)
		writeFile(t, s.userFile(), user)
		writeFile(t, s.projectFile(), project)
		opts := s.opts(nil)
		opts.Trusted = func(string) (bool, string) { return trusted, "" }
		c := mustLoad(t, opts)
		want := Permissions{
			Deny:  []string{"Bash(rm *)", "Read(./secrets/**)"},
			Ask:   []string{"Bash(git push *)"},
			Allow: []string{"Bash(make:*)"},
		}
		rules := []PermissionRule{
			{Kind: "deny", Text: "Bash(rm *)", File: s.userFile(), Line: 2},
			{Kind: "allow", Text: "Bash(make:*)", File: s.userFile(), Line: 3},
			{Kind: "deny", Text: "Read(./secrets/**)", File: s.projectFile(), Line: 3, Project: true},
			{Kind: "ask", Text: "Bash(git push *)", File: s.projectFile(), Line: 4, Project: true},
		}
		echo := PermissionRule{Kind: "allow", Text: "Bash(echo:*)", File: s.projectFile(), Line: 5, Project: true}
		if trusted {
			want.Allow = append(want.Allow, "Bash(echo:*)")
		} else {
			echo.Ignored = "untrusted workspace: may not approve tools in advance"
		}
		rules = append(rules, echo)
		if diff := cmp.Diff(want, c.Permissions); diff != "" {
			t.Errorf("trusted %v: Permissions (-want +got):\n%s", trusted, diff)
		}
		if diff := cmp.Diff(rules, c.PermissionRules()); diff != "" {
			t.Errorf("trusted %v: PermissionRules (-want +got):\n%s", trusted, diff)
		}
		var ignored []string
		for _, ig := range c.Ignored {
			ignored = append(ignored, ig.Key+" "+ig.Why)
		}
		var wantIgnored []string
		if !trusted {
			wantIgnored = []string{"permissions.allow untrusted workspace: may not approve tools in advance"}
		}
		if diff := cmp.Diff(wantIgnored, ignored); diff != "" {
			t.Errorf("trusted %v: Ignored (-want +got):\n%s", trusted, diff)
		}
	}
}

// TestPermissionsEmptyErasesNothing: a project file's empty list does not
// erase the user's rules, trusted or not.
func TestPermissionsEmptyErasesNothing(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, s.userFile(), "[permissions]\ndeny = [\"Bash(rm *)\"]\n")
	writeFile(t, s.projectFile(), "[permissions]\ndeny = []\n")
	c := mustLoad(t, s.opts(nil))
	if diff := cmp.Diff([]string{"Bash(rm *)"}, c.Permissions.Deny); diff != "" {
		t.Errorf("Deny (-want +got):\n%s", diff)
	}
}
