package skills

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiscoverUserRootLinks checks the link rule of links.go: a user root
// follows links that stay inside the home folder or an extra root, the way
// dotfiles tools (GNU stow, chezmoi) make them; a project root keeps the
// strict rule; every link that leaves its root gets a diagnostic naming
// the rule applied.
func TestDiscoverUserRootLinks(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir()) // messages print real paths
	if err != nil {
		t.Fatal(err)
	}
	home, ws, extra := filepath.Join(base, "home"), filepath.Join(base, "ws"), filepath.Join(base, "extra")
	discWriteTree(t, base, map[string]string{
		"home/dotfiles/claude/skills/stowed/SKILL.md": md("stowed", "Stowed body."),
		"home/dotfiles/chez/SKILL.md":                 md("chez", "Chezmoi body."),
		"home/dotfiles/team/one/SKILL.md":             md("one", "One."),
		"home/dotfiles/team/two/SKILL.md":             md("two", "Two."),
		"home/dotfiles/for-project/SKILL.md":          md("for-project", "b"),
		"outside/escape/SKILL.md":                     md("escape", "b"),
		"outside/secret.md":                           md("secret", "b"),
		"extra/shared/SKILL.md":                       md("shared", "Shared body."),
		"ws/main.go":                                  "package main",
	})
	// GNU stow: the skill folder is a link into the dotfiles repository.
	discSymlink(t, filepath.Join(home, "dotfiles", "claude", "skills", "stowed"), filepath.Join(home, ".claude", "skills", "stowed"))
	// chezmoi in symlink mode: the folder is real, SKILL.md is a link.
	discSymlink(t, filepath.Join(home, "dotfiles", "chez", "SKILL.md"), filepath.Join(home, ".claude", "skills", "chez", "SKILL.md"))
	// A category folder linked whole.
	discSymlink(t, filepath.Join(home, "dotfiles", "team"), filepath.Join(home, ".agents", "skills", "team"))
	// Out of the home folder: refused even in a user root.
	discSymlink(t, filepath.Join(base, "outside", "escape"), filepath.Join(home, ".claude", "skills", "escape"))
	discSymlink(t, filepath.Join(base, "outside", "secret.md"), filepath.Join(home, ".claude", "skills", "leaky", "SKILL.md"))
	// Into a configured extra root: followed.
	discSymlink(t, filepath.Join(extra, "shared"), filepath.Join(home, ".claude", "skills", "shared-link"))
	// A repository's link into the user's home: refused, as before.
	discSymlink(t, filepath.Join(home, "dotfiles", "for-project"), filepath.Join(ws, ".claude", "skills", "for-project"))

	opts := discOpts(StandardRoots(ws, "", home, []string{extra})...)
	opts.UserLinkRoots = UserLinkRoots(ws, home, []string{extra})
	c := Discover(t.Context(), opts)
	skills, diags := discSummary(base, c)
	wantSkills := []string{
		"chez user-claude listed @home/.claude/skills/chez",
		"one user-agents listed @home/.agents/skills/team/one",
		"shared user-claude listed @home/.claude/skills/shared-link",
		"stowed user-claude listed @home/.claude/skills/stowed",
		"two user-agents listed @home/.agents/skills/team/two",
	}
	const (
		project = " (a project skill root's links must stay inside it)"
		user    = " (a user skill root's links may lead anywhere inside the home folder or an extra_roots entry)"
	)
	wantDiags := []string{
		"error ws/.claude/skills/for-project: symbolic link to home/dotfiles/for-project leaves the skill root ws/.claude/skills; refused" + project,
		"error home/.claude/skills/escape: symbolic link to outside/escape leaves the skill root home/.claude/skills; refused" + user,
		"error home/.claude/skills/leaky/SKILL.md: SKILL.md is a symbolic link to outside/secret.md, outside the skill root; refused",
		"info home/.claude/skills/shared-link: symbolic link to extra/shared followed: it leaves the skill root home/.claude/skills but stays inside extra" + user,
		"info home/.claude/skills/stowed: symbolic link to home/dotfiles/claude/skills/stowed followed: it leaves the skill root home/.claude/skills but stays inside home" + user,
		"info home/.agents/skills/team: symbolic link to home/dotfiles/team followed: it leaves the skill root home/.agents/skills but stays inside home" + user,
		"info extra/shared: same skill directory as home/.claude/skills/shared-link; skipped",
	}
	if d := cmp.Diff(wantSkills, skills); d != "" {
		t.Errorf("skills (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantDiags, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
	// Activation reads the skill again under the same rule.
	for name, want := range map[string]string{"stowed": "Stowed body.", "chez": "Chezmoi body.", "one": "One.", "shared": "Shared body."} {
		if got := bodyOf(t, c.Lookup(name)); got != want {
			t.Errorf("%s: body %q, want %q", name, got, want)
		}
	}
}

func TestUserLinkRoots(t *testing.T) {
	t.Parallel()
	abs := func(p string) string {
		a, err := filepath.Abs(filepath.FromSlash(p))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	tests := []struct {
		name      string
		ws, home  string
		extra     []string
		wantRoots []string
	}{
		{"home and extra roots", "/w", "/home/u", []string{"~/shared", "vendor/skills", "/opt/s/../skills", ""}, []string{abs("/home/u"), abs("/home/u/shared"), abs("/w/vendor/skills"), abs("/opt/skills")}},
		{"no home", "/w", "", []string{"~/x", "/opt/skills"}, []string{abs("/opt/skills")}},
		{"nothing", "", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := UserLinkRoots(filepath.FromSlash(tt.ws), filepath.FromSlash(tt.home), tt.extra)
			if d := cmp.Diff(tt.wantRoots, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
