package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiscoverBuiltins(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	c := Discover(t.Context(), Options{Builtins: true})
	if len(c.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", c.Diagnostics)
	}
	s := c.Lookup("skill-creator")
	if s == nil || s.Source != SourceBuiltin || s.Dir != "" || s.Root != "" || s.Status != StatusListed {
		t.Fatalf("skill-creator = %+v", s)
	}
	if d := cmp.Diff([]string{"skill_create", "file_read", "file_write"}, s.Permissions); d != "" {
		t.Error(d)
	}
	for _, want := range []string{"skill_create", "`name`", "`description`", "`content`", "`triggers`", "`permissions`", "`activate`", "`overwrite`", "language"} {
		if !strings.Contains(bodyOf(t, s), want) {
			t.Errorf("skill-creator body lacks %q", want)
		}
	}
	if len(s.Triggers) == 0 || s.Description == "" {
		t.Errorf("triggers %v, description %q", s.Triggers, s.Description)
	}

	// ClawSeed §8.2 case 18, adapted: the built-in is never copied into the
	// workspace; a workspace skill of the same name shadows it.
	ws := filepath.Join(base, "ws")
	discWriteTree(t, base, map[string]string{"ws/.clawseed/skills/skill-creator/SKILL.md": md("skill-creator", "my own")})
	opts := discOpts(StandardRoots(ws, "", "", nil)...)
	opts.Builtins = true
	c = Discover(t.Context(), opts)
	skills, diags := discSummary(base, c)
	if d := cmp.Diff([]string{"skill-creator project listed @ws/.clawseed/skills/skill-creator"}, dropBuiltins(skills)); d != "" {
		t.Error(d)
	}
	if d := cmp.Diff([]string{"info builtin:skill-creator: shadowed by ws/.clawseed/skills/skill-creator"}, diags); d != "" {
		t.Error(d)
	}
	if _, err := os.Stat(filepath.Join(base, "ws", ".clawseed", "skills", "skill-creator", "manifest.toml")); !os.IsNotExist(err) {
		t.Errorf("discovery wrote into the workspace: %v", err)
	}
}

func TestDiscoverStatuses(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	discWriteTree(t, root, map[string]string{
		"listed/SKILL.md":    md("listed", "b"),
		"excluded/SKILL.md":  md("excluded", "b"),
		"user-only/SKILL.md": "---\ndisable-model-invocation: true\n---\nb",
		"needs-gh/SKILL.md":  "---\nrequires:\n  bins: [git, gh]\n---\nb",
		"has-git/SKILL.md":   "---\nmetadata:\n  openclaw:\n    requires:\n      bins: [git]\n---\nb",
		"any-bin/SKILL.md":   "---\nrequires: {anyBins: [rg, ag]}\n---\nb",
		"any-ok/SKILL.md":    "---\nrequires: {anyBins: [rg, git]}\n---\nb",
		"env/SKILL.md":       "---\nrequires: {env: [HOME, API_TOKEN]}\n---\nb",
		"mac/SKILL.md":       "---\nos: [macos]\n---\nb",
		"linux/SKILL.md":     "---\nmetadata: {openclaw: {os: [darwin, linux]}}\n---\nb",
		"always/SKILL.md":    "---\nalways: true\nrequires: {bins: [missing]}\n---\nb",
		"always-os/SKILL.md": "---\nmetadata: {openclaw: {always: true, os: [win32]}}\n---\nb",
		"many/SKILL.md":      "---\nrequires: {bins: [a1], env: [E1]}\n---\nb",
	})
	opts := discOpts(Root{Path: root, Source: SourceProject})
	opts.Excluded = []string{"excluded", "not-there"}
	c := Discover(t.Context(), opts)
	skills, diags := discSummary(root, c)
	wantSkills := []string{
		"always project listed @always",
		`always-os project hidden (not available on linux (os: win32)) @always-os`,
		`any-bin project hidden (requires one of "rg", "ag" on PATH) @any-bin`,
		"any-ok project listed @any-ok",
		`env project hidden (requires environment variable "API_TOKEN") @env`,
		"excluded project hidden (excluded by [skills].excluded) @excluded",
		"has-git project listed @has-git",
		"linux project listed @linux",
		"listed project listed @listed",
		`mac project hidden (not available on linux (os: macos)) @mac`,
		`many project hidden (requires binary "a1" not on PATH; requires environment variable "E1") @many`,
		`needs-gh project hidden (requires binary "gh" not on PATH) @needs-gh`,
		"user-only project user-only @user-only",
	}
	wantDiags := []string{
		`info always-os: not available on linux (os: win32)`,
		`info any-bin: requires one of "rg", "ag" on PATH`,
		`info env: requires environment variable "API_TOKEN"`,
		`info mac: not available on linux (os: macos)`,
		`info many: requires binary "a1" not on PATH; requires environment variable "E1"`,
		`info needs-gh: requires binary "gh" not on PATH`,
	}
	if d := cmp.Diff(wantSkills, skills); d != "" {
		t.Errorf("skills (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantDiags, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
	if got := len(c.Listed()); got != 5 {
		t.Errorf("Listed() has %d skills, want 5", got)
	}
}
