package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadDir(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	discWriteTree(t, base, map[string]string{
		"good/SKILL.md":     md("good", "body"),
		"gated/SKILL.md":    "---\nrequires: {bins: [gh]}\n---\nbody",
		"warn/SKILL.md":     "---\nname: warn\nbogus: 1\n---\nbody",
		"invalid/SKILL.md":  "---\nname: invalid\n---\n",
		"empty/readme.txt":  "",
		"excluded/SKILL.md": md("excluded", "body"),
	})
	tests := []struct {
		dir        string
		wantSkill  bool
		wantStatus Status
		diags      []string
	}{
		{"good", true, StatusListed, nil},
		{"gated", true, StatusHidden, []string{`info gated: requires binary "gh" not on PATH`}},
		{"warn", true, StatusListed, []string{`warning warn/SKILL.md: SKILL.md:3: unknown key "bogus"; ignored`}},
		{"invalid", false, "", []string{"error invalid: SKILL.md has no body and no shell command is set: the skill has no instructions"}},
		{"empty", false, "", []string{"error empty: not a skill: no SKILL.md or manifest.toml"}},
		{"missing", false, "", []string{"error missing: cannot read skill directory: no such file or directory"}},
		{"excluded", true, StatusHidden, nil},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			t.Parallel()
			opts := discOpts()
			opts.Excluded = []string{"excluded"}
			s, diags := LoadDir(filepath.Join(base, tt.dir), opts)
			if (s != nil) != tt.wantSkill {
				t.Fatalf("skill = %v, want skill: %v (diagnostics %v)", s, tt.wantSkill, diags)
			}
			if s != nil && (s.Status != tt.wantStatus || s.Root != filepath.Join(base, tt.dir) || s.Dir != s.Root) {
				t.Errorf("status %q root %q dir %q", s.Status, s.Root, s.Dir)
			}
			_, got := discSummary(base, &Catalog{Diagnostics: diags})
			if d := cmp.Diff(tt.diags, got); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
		})
	}
}

func TestReread(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	discWriteTree(t, base, map[string]string{
		"root/edited/SKILL.md":      md("edited", "old body"),
		"root/deleted/SKILL.md":     md("deleted", "body"),
		"root/broken/SKILL.md":      md("broken", "body"),
		"root/broken/manifest.toml": "[skill]\n",
		"root/renamed/SKILL.md":     md("renamed", "body"),
		"root/big/SKILL.md":         md("big", "body"),
	})
	c := Discover(t.Context(), discOpts(Root{Path: root, Source: SourceProject}))
	if len(c.Skills) != 5 {
		t.Fatalf("skills: %v, diagnostics %v", c.Skills, c.Diagnostics)
	}
	discWriteTree(t, base, map[string]string{
		"root/edited/SKILL.md":      md("edited", "new body"),
		"root/broken/manifest.toml": "[skill]\nname = [",
		"root/renamed/SKILL.md":     md("other-name", "body"),
		"root/big/SKILL.md":         md("big", strings.Repeat("z", 3000)),
	})
	if err := os.RemoveAll(filepath.Join(root, "deleted")); err != nil {
		t.Fatal(err)
	}

	edited := c.Lookup("edited")
	edited.Status, edited.Reason = StatusActive, "kept"
	n, err := Reread(edited, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n.Body != "new body" || n.Source != SourceProject || n.Root != root || n.Dir != edited.Dir || n.Status != StatusActive || n.Reason != "kept" {
		t.Errorf("reread = %+v", n)
	}
	if edited.Body != "" || edited.BodySize != len("old body") {
		t.Error("Reread modified its argument")
	}

	errs := map[string]string{
		"deleted": "skill directory " + filepath.Join(root, "deleted") + " no longer exists",
		"broken":  "manifest.toml:2: unexpected EOF; expected value",
		"renamed": `its name is now "other-name"`,
		"big":     "SKILL.md too large (3.0 KiB > 2 KiB)",
	}
	for name, want := range errs {
		_, err := Reread(c.Lookup(name), 2048)
		if err == nil || err.Error() != want {
			t.Errorf("Reread(%s) error = %v, want %q", name, err, want)
		}
	}
}

func TestRereadRefusesEscapedDirectory(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	discWriteTree(t, base, map[string]string{"root/real/SKILL.md": md("moving", "b"), "outside/moving/SKILL.md": md("moving", "evil")})
	link := filepath.Join(base, "root", "link")
	discSymlink(t, filepath.Join(base, "root", "real"), link)
	s := &Skill{Name: "moving", Dir: link, Root: filepath.Join(base, "root"), Source: SourceProject}
	if _, err := Reread(s, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	discSymlink(t, filepath.Join(base, "outside", "moving"), link)
	if _, err := Reread(s, 0); err == nil || !strings.Contains(err.Error(), "outside its root") {
		t.Errorf("Reread through an escaping link: %v", err)
	}
}

func TestRereadBuiltin(t *testing.T) {
	t.Parallel()
	c := Discover(t.Context(), Options{Builtins: true})
	s := c.Lookup("skill-creator")
	n, err := Reread(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n.Body == "" || len(n.Body) != s.BodySize {
		t.Errorf("reread built-in: body of %d bytes, want %d", len(n.Body), s.BodySize)
	}
	n.Body = "" // a catalog does not keep it
	if d := cmp.Diff(s, n); d != "" {
		t.Errorf("reread built-in differs:\n%s", d)
	}
	if _, err := Reread(&Skill{Name: "nope", Source: SourceBuiltin}, 0); err == nil || err.Error() != `built-in skill "nope" does not exist` {
		t.Errorf("unknown built-in: %v", err)
	}
}
