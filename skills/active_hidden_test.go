package skills

import (
	"path/filepath"
	"testing"
)

// TestActivateHiddenSaysWhy: activating a skill the gate hid (§4.12) says
// which requirement is missing, for the model and for the user alike,
// instead of "not found"; a name that really is unknown is still "not found".
func TestActivateHiddenSaysWhy(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	discWriteTree(t, base, map[string]string{
		"ws/main.go":                          "package main",
		"ws/.clawseed/skills/gh-pr/SKILL.md":  "---\nname: gh-pr\ndescription: d\nrequires:\n  bins: [gh]\n---\nb\n",
		"ws/.clawseed/skills/any/SKILL.md":    "---\nname: any\ndescription: d\nrequires:\n  anyBins: [podman, docker]\n---\nb\n",
		"ws/.clawseed/skills/token/SKILL.md":  "---\nname: token\ndescription: d\nrequires:\n  env: [GITHUB_TOKEN]\n---\nb\n",
		"ws/.clawseed/skills/win/SKILL.md":    "---\nname: win\ndescription: d\nos: [windows]\n---\nb\n",
		"ws/.clawseed/skills/rust/SKILL.md":   "---\nname: rust\ndescription: d\npaths: [\"**/*.rs\"]\n---\nb\n",
		"ws/.clawseed/skills/two/SKILL.md":    "---\nname: two\ndescription: d\nrequires:\n  bins: [gh]\n  env: [GITHUB_TOKEN]\n---\nb\n",
		"ws/.clawseed/skills/off/SKILL.md":    "---\nname: off\ndescription: d\n---\nb\n",
		"ws/.clawseed/skills/listed/SKILL.md": "---\nname: listed\ndescription: d\n---\nb\n",
	})
	opts := discOpts(StandardRoots(ws, "", "", nil)...)
	opts.Workspace = ws
	opts.Excluded = []string{"off"}
	cat := Discover(t.Context(), opts)
	// The active set's own excluded list is [skills].excluded too; here it
	// is left empty to show that the catalog's reason alone is enough.
	set := NewActiveSet(ActiveConfig{Enabled: true}, cat)
	tests := []struct{ name, want string }{
		{"gh-pr", `Skill 'gh-pr' is hidden and cannot be activated: requires binary "gh" not on PATH.`},
		{"any", `Skill 'any' is hidden and cannot be activated: requires one of "podman", "docker" on PATH.`},
		{"token", `Skill 'token' is hidden and cannot be activated: requires environment variable "GITHUB_TOKEN".`},
		{"win", `Skill 'win' is hidden and cannot be activated: not available on linux (os: windows).`},
		{"rust", `Skill 'rust' is hidden and cannot be activated: no file matches paths.`},
		{"two", `Skill 'two' is hidden and cannot be activated: requires binary "gh" not on PATH; requires environment variable "GITHUB_TOKEN".`},
		{"off", `Skill 'off' is disabled and cannot be activated.`},
		{"gh-p", `Skill 'gh-p' not found in available skills.`},
	}
	for _, tt := range tests {
		for _, byUser := range []bool{false, true} {
			out := set.Activate(t.Context(), tt.name, "", byUser)
			want := "Failed to activate skill '" + tt.name + "': " + tt.want
			if !out.IsError || out.Text != want {
				t.Errorf("Activate(%q, byUser=%v) = %+v\nwant %q", tt.name, byUser, out, want)
			}
			_, out = set.Prepare(t.Context(), tt.name, "", byUser)
			if !out.IsError || out.Text != want {
				t.Errorf("Prepare(%q, byUser=%v) = %+v\nwant %q", tt.name, byUser, out, want)
			}
		}
	}
	if out := set.Activate(t.Context(), "listed", "", false); out.IsError {
		t.Errorf("Activate(listed) = %+v", out)
	}
}
