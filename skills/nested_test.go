package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNestedRoots: the skill folders between the workspace and a path a
// tool reached, outermost first, passing by hidden, node_modules and
// gitignored folders and never leaving the workspace.
func TestNestedRoots(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	discWriteTree(t, ws, map[string]string{
		".gitignore":                               "build/\n",
		".claude/skills/root/SKILL.md":             "x",
		"a/x.txt":                                  "x",
		"a/.agents/skills/s/SKILL.md":              "x",
		"a/b/.clawseed/skills/s/SKILL.md":          "x",
		"a/b/.claude/skills/s/SKILL.md":            "x",
		"a/b/c/file.go":                            "x",
		"a/b/.gitignore":                           "gen/\n",
		"a/b/gen/.claude/skills/s/SKILL.md":        "x",
		"a/b/gen/x.txt":                            "x",
		"build/.claude/skills/s/SKILL.md":          "x",
		"build/x.txt":                              "x",
		".hidden/.claude/skills/s/SKILL.md":        "x",
		".hidden/x.txt":                            "x",
		"node_modules/m/.claude/skills/s/SKILL.md": "x",
		"node_modules/m/x.js":                      "x",
	})
	root := func(rel, src, nested string) Root {
		return Root{Path: filepath.Join(ws, filepath.FromSlash(rel)), Source: Source(src), Within: ws, Nested: nested}
	}
	tests := []struct {
		path string
		want []Root
	}{
		{"a/x.txt", []Root{root("a/.agents/skills", "project-agents", "a")}},
		{"a/b/c/file.go", []Root{
			root("a/.agents/skills", "project-agents", "a"),
			root("a/b/.clawseed/skills", "project", "a/b"),
			root("a/b/.claude/skills", "project-claude", "a/b"),
		}},
		{filepath.Join(ws, "a", "b"), []Root{ // a folder (a search's) counts itself
			root("a/.agents/skills", "project-agents", "a"),
			root("a/b/.clawseed/skills", "project", "a/b"),
			root("a/b/.claude/skills", "project-claude", "a/b"),
		}},
		{"a/b/gen/x.txt", []Root{ // a/b/.gitignore ignores gen/
			root("a/.agents/skills", "project-agents", "a"),
			root("a/b/.clawseed/skills", "project", "a/b"),
			root("a/b/.claude/skills", "project-claude", "a/b"),
		}},
		{"build/x.txt", nil},
		{".hidden/x.txt", nil},
		{"node_modules/m/x.js", nil},
		{"x.txt", nil},            // the workspace's own folders are roots already
		{"", nil},                 // the workspace itself
		{"../outside/x.txt", nil}, // outside the workspace
		{"a/missing/new.txt", []Root{root("a/.agents/skills", "project-agents", "a")}},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.path, "/", "_"), func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tt.want, NestedRoots(ws, tt.path)); d != "" {
				t.Errorf("NestedRoots(%q) (-want +got):\n%s", tt.path, d)
			}
		})
	}
}

// TestDiscoverNested: a nested folder's skills are claimed after every
// other root's; a name that is taken becomes dir:name (the folder's `/`
// as `:`), and reading the skill again (activation) keeps that name.
func TestDiscoverNested(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	skill := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\n---\nBody of " + desc + "\n"
	}
	discWriteTree(t, ws, map[string]string{
		".claude/skills/deploy/SKILL.md":                skill("deploy", "root"),
		"pkg/api/.claude/skills/deploy/SKILL.md":        skill("deploy", "nested"),
		"pkg/api/.claude/skills/only/SKILL.md":          skill("only", "only nested"),
		"pkg/api/.claude/skills/skill-creator/SKILL.md": skill("skill-creator", "nested creator"),
	})
	opts := discOpts(StandardRoots(ws, "", "", nil)...)
	opts.Builtins = true
	opts.Roots = append(opts.Roots, NestedRoots(ws, "pkg/api/x.go")...)
	cat := Discover(t.Context(), opts)
	got := map[string]string{}
	for _, s := range cat.Skills {
		if s.Source == SourceBuiltin && s.Name != "skill-creator" {
			continue // the other bundled skills: not what is tested here
		}
		got[s.Name] = s.Description
	}
	want := map[string]string{
		"deploy":                "root",
		"pkg:api:deploy":        "nested",
		"only":                  "only nested",
		"skill-creator":         got["skill-creator"], // the built-in's
		"pkg:api:skill-creator": "nested creator",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("catalog (-want +got):\n%s\n%v", d, cat.Diagnostics)
	}
	if got["skill-creator"] == "nested creator" {
		t.Error("a nested folder shadowed a built-in skill")
	}
	s := cat.Lookup("pkg:api:deploy")
	if s.Nested != "pkg/api" {
		t.Errorf("Nested = %q, want pkg/api", s.Nested)
	}
	n, err := Reread(s, 0)
	if err != nil {
		t.Fatalf("Reread: %v", err)
	}
	if n.Name != "pkg:api:deploy" || !strings.Contains(n.Body, "Body of nested") {
		t.Errorf("Reread = %q %q", n.Name, n.Body)
	}
}

// TestManagedSkills: a managed skill wins every clash and [skills].excluded
// does not hide it (with an info diagnostic saying so).
func TestManagedSkills(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws, managed := filepath.Join(base, "ws"), filepath.Join(base, "managed")
	discWriteTree(t, base, map[string]string{
		"managed/policy/SKILL.md":           "---\nname: policy\ndescription: managed\n---\nBody\n",
		"ws/.claude/skills/policy/SKILL.md": "---\nname: policy\ndescription: project\n---\nBody\n",
	})
	opts := discOpts(Layout{Workspace: ws, Managed: []string{managed}}.Roots()...)
	opts.Excluded = []string{"policy"}
	cat := Discover(t.Context(), opts)
	s := cat.Lookup("policy")
	if s == nil || s.Source != SourceManaged || s.Status != StatusListed {
		t.Fatalf("policy = %+v, want the managed skill, listed", s)
	}
	var msgs []string
	for _, d := range cat.Diagnostics {
		msgs = append(msgs, d.Message)
	}
	joined := strings.Join(msgs, "\n")
	for _, want := range []string{"shadowed by managed skill " + filepath.Join(managed, "policy"), "managed skill: [skills].excluded does not apply"} {
		if !strings.Contains(joined, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, joined)
		}
	}
}

// TestNestedRootsLinks: a nested skill folder whose .claude or skills is a
// link is passed by (its files would be skills without their path saying
// so, and the model writes such files without being asked); a folder on
// the way that is a link keeps its skill folder, whose real path names it.
func TestNestedRootsLinks(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	discWriteTree(t, ws, map[string]string{
		"data/skills/s/SKILL.md":         "x",
		"real/.claude/skills/s/SKILL.md": "x",
		"a/x.txt":                        "x",
		"b/.claude/README":               "x",
		"b/x.txt":                        "x",
		"c/.agents/skills/s/SKILL.md":    "x",
		"c/x.txt":                        "x",
	})
	discLink(t, filepath.Join(ws, "a", ".claude"), "../data")
	discLink(t, filepath.Join(ws, "b", ".claude", "skills"), "../../data/skills")
	discLink(t, filepath.Join(ws, "linked"), "real")
	for _, p := range []string{"a/x.txt", "b/x.txt"} {
		if got := NestedRoots(ws, p); got != nil {
			t.Errorf("NestedRoots(%q) = %v, want none (a link on the way to the skill folder)", p, got)
		}
	}
	want := []Root{{Path: filepath.Join(ws, "linked", ".claude", "skills"), Source: SourceProjectClaude, Within: ws, Nested: "linked"}}
	if d := cmp.Diff(want, NestedRoots(ws, "linked/x.txt")); d != "" {
		t.Errorf("NestedRoots(linked/x.txt) (-want +got):\n%s", d)
	}
}

// discLink makes the link path → target.
func discLink(t *testing.T, path, target string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}
