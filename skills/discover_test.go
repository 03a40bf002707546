package skills

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// discWriteTree writes files (relative path → content) under base.
func discWriteTree(t testing.TB, base string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(base, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func discSymlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks not supported: %v", err)
	}
}

// bodyOf is s's body as activation reads it ([Reread]): a discovered
// catalog does not keep bodies. "" for nil.
func bodyOf(t *testing.T, s *Skill) string {
	t.Helper()
	if s == nil {
		return ""
	}
	if s.Body != "" {
		t.Errorf("%s: a discovered skill keeps its body", s.Name)
	}
	n, err := Reread(s, 0)
	if err != nil {
		t.Fatalf("reread %s: %v", s.Name, err)
	}
	return n.Body
}

// discOpts returns hermetic options: nothing on PATH but "git", no
// environment but HOME, linux.
func discOpts(roots ...Root) Options {
	return Options{
		Roots: roots,
		GOOS:  "linux",
		LookPath: func(f string) (string, error) {
			if f == "git" {
				return "/usr/bin/git", nil
			}
			return "", os.ErrNotExist
		},
		LookupEnv: func(k string) (string, bool) {
			if k == "HOME" {
				return "/home/u", true
			}
			return "", false
		},
	}
}

// discSummary renders a catalog compactly with paths relative to base:
// one "name source status reason @dir" line per skill and one
// "severity path: message" line per diagnostic.
func discSummary(base string, c *Catalog) (skills, diags []string) {
	rel := func(p string) string {
		if r, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
		return p
	}
	for _, s := range c.Skills {
		line := s.Name + " " + string(s.Source) + " " + string(s.Status)
		if s.Reason != "" {
			line += " (" + s.Reason + ")"
		}
		if s.Dir != "" {
			line += " @" + rel(s.Dir)
		}
		skills = append(skills, line)
	}
	for _, d := range c.Diagnostics {
		msg := strings.ReplaceAll(d.Message, base+string(filepath.Separator), "")
		diags = append(diags, string(d.Severity)+" "+rel(d.Path)+": "+msg)
	}
	return skills, diags
}

func md(name, body string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n\n" + body + "\n"
}

func TestDiscoverClawSeedLoaderCases(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
	discWriteTree(t, base, map[string]string{
		// Case 8 (with a SKILL.md body: SPEC §4.3 makes a skill without body
		// and without shell invalid, unlike ClawSeed).
		"ws/.clawseed/skills/auto-coder/manifest.toml": "[skill]\nname = \"auto-coder\"\ndescription = \"Autonomous code generation agent.\"\ntriggers = [\"write code\"]\n",
		"ws/.clawseed/skills/auto-coder/SKILL.md":      "# Auto Coder\n\nFollow these steps.",
		// Case 11: directory name differs from the manifest name.
		"ws/.clawseed/skills/my-skill-dir/manifest.toml": "[skill]\nname = \"renamed\"\n",
		"ws/.clawseed/skills/my-skill-dir/SKILL.md":      "body",
		// Case 12: two directories, one name.
		"ws/.clawseed/skills/a-dir/manifest.toml": "[skill]\nname = \"same-name\"\n",
		"ws/.clawseed/skills/a-dir/SKILL.md":      "first",
		"ws/.clawseed/skills/b-dir/manifest.toml": "[skill]\nname = \"same-name\"\n",
		"ws/.clawseed/skills/b-dir/SKILL.md":      "second",
		// Case 14: a real home-vs-workspace collision.
		"home/.clawseed/skills/auto-coder/SKILL.md": md("auto-coder", "home version"),
		// Case 13: a skill only in an extra root.
		"extra/extra-skill/SKILL.md": md("extra-skill", "x"),
	})
	c := Discover(t.Context(), discOpts(StandardRoots(ws, "", home, []string{"../extra"})...))
	skills, diags := discSummary(base, c)
	wantSkills := []string{
		"auto-coder project listed @ws/.clawseed/skills/auto-coder",
		"extra-skill extra listed @extra/extra-skill",
		"renamed project listed @ws/.clawseed/skills/my-skill-dir",
		"same-name project listed @ws/.clawseed/skills/a-dir",
	}
	wantDiags := []string{
		"info ws/.clawseed/skills/b-dir: shadowed by ws/.clawseed/skills/a-dir",
		"info home/.clawseed/skills/auto-coder: shadowed by ws/.clawseed/skills/auto-coder",
	}
	if d := cmp.Diff(wantSkills, skills); d != "" {
		t.Errorf("skills (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantDiags, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
	if s := c.Lookup("auto-coder"); s == nil || s.Description != "Autonomous code generation agent." || !cmp.Equal(s.Triggers, []string{"write code"}) || bodyOf(t, s) != "# Auto Coder\n\nFollow these steps." {
		t.Errorf("Lookup(auto-coder) = %+v", s)
	}
	// Case 10.
	if s := c.Lookup("nonexistent"); s != nil {
		t.Errorf("Lookup(nonexistent) = %v", s)
	}
	if s := c.Lookup("same-name"); bodyOf(t, s) != "first" {
		t.Errorf("same-name body = %q, want the first in sorted order", bodyOf(t, s))
	}
}

func TestDiscoverRootPriority(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws, home, cs := filepath.Join(base, "ws"), filepath.Join(base, "home"), filepath.Join(base, "cshome")
	dirs := []string{"ws/.clawseed/skills", "ws/.claude/skills", "ws/.agents/skills", "cshome/skills", "home/.claude/skills", "home/.agents/skills", "x1", "x2"}
	files := map[string]string{}
	for i, d := range dirs {
		files[d+"/dup/SKILL.md"] = md("dup", d)
		files[d+"/only-"+string(rune('a'+i))+"/SKILL.md"] = md("only-"+string(rune('a'+i)), d)
	}
	discWriteTree(t, base, files)
	c := Discover(t.Context(), discOpts(StandardRoots(ws, cs, home, []string{filepath.Join(base, "x1"), "~/../x2"})...))
	if s := c.Lookup("dup"); s == nil || s.Source != SourceProject || !strings.Contains(bodyOf(t, s), "ws/.clawseed/skills") {
		t.Fatalf("dup = %+v", s)
	}
	_, diags := discSummary(base, c)
	var want []string
	for _, d := range dirs[1:] {
		want = append(want, "info "+d+"/dup: shadowed by ws/.clawseed/skills/dup")
	}
	if d := cmp.Diff(want, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
	wantSources := []Source{SourceProject, SourceProjectClaude, SourceProjectAgents, SourceUser, SourceUserClaude, SourceUserAgents, SourceExtra, SourceExtra}
	for i, src := range wantSources {
		s := c.Lookup("only-" + string(rune('a'+i)))
		if s == nil || s.Source != src || s.Root != filepath.Join(base, filepath.FromSlash(dirs[i])) {
			t.Errorf("only-%c = %+v, want source %s", 'a'+i, s, src)
		}
	}
}

func TestDiscoverWalkRules(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	discWriteTree(t, base, map[string]string{
		"root/top/SKILL.md":                    md("top", "b"),
		"root/cat/sub/SKILL.md":                md("sub", "b"),
		"root/a/b/c/depth4/SKILL.md":           md("depth4", "b"),
		"root/a/b/c/d/depth5/SKILL.md":         md("depth5", "b"),
		"root/.hidden/h/SKILL.md":              md("hidden", "b"),
		"root/cat/.hidden-skill/SKILL.md":      md("hidden2", "b"),
		"root/node_modules/pkg/SKILL.md":       md("nm", "b"),
		"root/top/nested/SKILL.md":             md("nested-in-skill", "b"),
		"root/manifest-only/manifest.toml":     "[skill]\nname = \"mo\"\n",
		"root/cat/README.md":                   "not a skill",
		"root/cat/empty/.keep":                 "",
		"root/cat/docs/guide.md":               "no skill here",
		"root/cat/sub2/SKILL.md":               "just a body",
		"root/cat/sub2/scripts/other/SKILL.md": md("inside-skill", "b"),
	})
	c := Discover(t.Context(), discOpts(Root{Path: root, Source: SourceExtra}))
	skills, diags := discSummary(base, c)
	want := []string{
		"depth4 extra listed @root/a/b/c/depth4",
		"sub extra listed @root/cat/sub",
		"sub2 extra listed @root/cat/sub2",
		"top extra listed @root/top",
	}
	if d := cmp.Diff(want, skills); d != "" {
		t.Errorf("skills (-want +got):\n%s", d)
	}
	// Every SKILL.md the walk passes over is named, one line per folder.
	wantDiags := []string{
		"error root/manifest-only: no SKILL.md and no shell command: the skill has no instructions",
		"info root/.hidden: 1 SKILL.md file in this hidden folder not loaded (h/SKILL.md): folders whose names start with '.' are not searched",
		"warning root/a/b/c/d: 1 SKILL.md file below this folder not loaded (depth5/SKILL.md): skills are searched at most 4 folders below a root",
		"info root/cat/.hidden-skill: 1 SKILL.md file in this hidden folder not loaded (SKILL.md): folders whose names start with '.' are not searched",
		"warning root/cat/sub2: 1 SKILL.md file inside this skill's folder not loaded (scripts/other/SKILL.md): a skill's folder is not searched for more skills",
		"info root/node_modules: 1 SKILL.md file in this node_modules folder not loaded (pkg/SKILL.md): node_modules folders are not searched",
		"warning root/top: 1 SKILL.md file inside this skill's folder not loaded (nested/SKILL.md): a skill's folder is not searched for more skills",
	}
	if d := cmp.Diff(wantDiags, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
}

func TestDiscoverRootIsSkill(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	discWriteTree(t, base, map[string]string{
		"single/SKILL.md":              md("single", "the body"),
		"single/manifest.toml":         "[skill]\ntriggers = [\"go\"]\n",
		"single/child/SKILL.md":        md("child", "not searched"),
		"manifest-root/manifest.toml":  "[skill]\nname = \"m\"\n",
		"manifest-root/inner/SKILL.md": md("inner", "found: a root with only manifest.toml is not a skill"),
	})
	c := Discover(t.Context(), discOpts(Root{Path: filepath.Join(base, "single"), Source: SourceUser}, Root{Path: filepath.Join(base, "manifest-root"), Source: SourceExtra}))
	skills, diags := discSummary(base, c)
	want := []string{"inner extra listed @manifest-root/inner", "single user listed @single"}
	if d := cmp.Diff(want, skills); d != "" {
		t.Errorf("skills (-want +got):\n%s", d)
	}
	wantDiags := []string{"warning single: 1 SKILL.md file inside this skill's folder not loaded (child/SKILL.md): a skill's folder is not searched for more skills"}
	if d := cmp.Diff(wantDiags, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
	if s := c.Lookup("single"); !cmp.Equal(s.Triggers, []string{"go"}) {
		t.Errorf("single triggers = %v", s.Triggers)
	}
}

func TestDiscoverSymlinks(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir()) // messages print real paths
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "root")
	discWriteTree(t, base, map[string]string{
		"root/cat/real/SKILL.md":       md("real", "b"),
		"outside/evil/SKILL.md":        md("evil", "b"),
		"outside/secret.txt":           "secret",
		"root/filelink/manifest.toml":  "[skill]\nname = \"filelink\"\n",
		"root/ok-filelink/target.md":   md("ok-filelink", "linked inside"),
		"linked-root/linked/SKILL.md":  md("linked", "via a symlinked root"),
		"root/cat/zz-loop-holder/x.md": "",
	})
	discSymlink(t, filepath.Join(root, "cat", "real"), filepath.Join(root, "alias"))
	discSymlink(t, filepath.Join(base, "outside", "evil"), filepath.Join(root, "escape"))
	discSymlink(t, filepath.Join(base, "outside", "secret.txt"), filepath.Join(root, "filelink", "SKILL.md"))
	discSymlink(t, "target.md", filepath.Join(root, "ok-filelink", "SKILL.md"))
	discSymlink(t, root, filepath.Join(root, "cat", "zz-loop-holder", "loop"))
	discSymlink(t, filepath.Join(base, "nowhere"), filepath.Join(root, "broken"))
	discSymlink(t, filepath.Join(base, "linked-root"), filepath.Join(base, "root-link"))
	discSymlink(t, root, filepath.Join(base, "root-again"))

	c := Discover(t.Context(), discOpts(
		Root{Path: root, Source: SourceProject},
		Root{Path: filepath.Join(base, "root-link"), Source: SourceUser},
		Root{Path: filepath.Join(base, "root-again"), Source: SourceExtra},
	))
	skills, diags := discSummary(base, c)
	wantSkills := []string{
		"linked user listed @root-link/linked",
		"ok-filelink project listed @root/ok-filelink",
		"real project listed @root/alias",
	}
	wantDiags := []string{
		"warning root/broken: broken symbolic link skipped: no such file or directory",
		"info root/cat/real: same skill directory as root/alias; skipped",
		"error root/escape: symbolic link to outside/evil leaves the skill root root; refused (a project skill root's links must stay inside it)",
		"error root/filelink/SKILL.md: SKILL.md is a symbolic link to outside/secret.txt, outside the skill root; refused",
		"info root-again: same directory as skill root root; skipped",
	}
	if d := cmp.Diff(wantSkills, skills); d != "" {
		t.Errorf("skills (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantDiags, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
}

func TestDiscoverBadFilesAreIsolated(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	discWriteTree(t, base, map[string]string{
		"root/a-good/SKILL.md":            md("a-good", "fine"),
		"root/big/SKILL.md":               md("big", strings.Repeat("x", 300*1024)),
		"root/bin/SKILL.md":               "---\nname: bin\n---\n\x00\x01\x02",
		"root/latin1/SKILL.md":            "---\nname: latin1\n---\ncaf\xe9",
		"root/bad-toml/manifest.toml":     "[skill\nname = \"bad-toml\"\n",
		"root/bad-toml/SKILL.md":          md("bad-toml", "body"),
		"root/big-toml/manifest.toml":     "[skill]\n#" + strings.Repeat("x", 300*1024) + "\n",
		"root/big-toml/SKILL.md":          md("big-toml", "body"),
		"root/bad-yaml/SKILL.md":          "---\nname: bad-yaml\ndescription: \"oops\n---\nstill usable",
		"root/z-good/SKILL.md":            md("z-good", "fine"),
		"root/dir-named-skill/SKILL.md/x": "",
	})
	c := Discover(t.Context(), discOpts(Root{Path: root, Source: SourceProject}))
	skills, diags := discSummary(base, c)
	wantSkills := []string{
		"a-good project listed @root/a-good",
		"bad-yaml project listed @root/bad-yaml",
		"z-good project listed @root/z-good",
	}
	wantDiags := []string{
		"error root/bad-toml/manifest.toml: manifest.toml:1: expected '.' or ']' to end table name, but got '\\n' instead",
		"warning root/bad-yaml/SKILL.md: SKILL.md:3: invalid YAML frontmatter ignored: found unexpected end of stream",
		"error root/big/SKILL.md: SKILL.md too large (300.1 KiB > 256 KiB)",
		"error root/big-toml/manifest.toml: manifest.toml too large (300.1 KiB > 256 KiB)",
		"error root/bin/SKILL.md: SKILL.md is binary (contains NUL bytes)",
		"error root/dir-named-skill/SKILL.md: SKILL.md is not a regular file",
		"error root/latin1/SKILL.md: SKILL.md is not valid UTF-8",
	}
	if d := cmp.Diff(wantSkills, skills); d != "" {
		t.Errorf("skills (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantDiags, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
	// The bad-yaml skill keeps its body and takes the directory name.
	if s := c.Lookup("bad-yaml"); s == nil || bodyOf(t, s) != "still usable" {
		t.Errorf("bad-yaml = %+v", s)
	}
}

func TestDiscoverMaxFileBytes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	discWriteTree(t, root, map[string]string{"s/SKILL.md": md("s", strings.Repeat("y", 2000))})
	opts := discOpts(Root{Path: root, Source: SourceProject})
	opts.MaxFileBytes = 1024
	c := Discover(t.Context(), opts)
	_, diags := discSummary(root, c)
	want := []string{"error s/SKILL.md: SKILL.md too large (2.0 KiB > 1 KiB)"}
	if d := cmp.Diff(want, diags); d != "" || len(c.Skills) != 0 {
		t.Errorf("skills %v; diagnostics (-want +got):\n%s", c.Skills, d)
	}
}

func TestDiscoverDirectoryCap(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	discWriteTree(t, base, map[string]string{
		"r1/a/SKILL.md":      md("a", "b"),
		"r1/b/x/SKILL.md":    md("b", "b"),
		"r1/c/SKILL.md":      md("c", "b"),
		"r1/d/SKILL.md":      md("d", "b"),
		"r2/second/SKILL.md": md("second", "the cap is per root"),
	})
	// Root, a, b, b/x: four directories; c is the fifth.
	c := discover(t.Context(), discOpts(Root{Path: filepath.Join(base, "r1"), Source: SourceProject}, Root{Path: filepath.Join(base, "r2"), Source: SourceUser}), walkLimits{maxDirs: 4, scanDirs: defaultMaxScanDirs})
	skills, diags := discSummary(base, c)
	wantSkills := []string{"a project listed @r1/a", "b project listed @r1/b/x", "second user listed @r2/second"}
	wantDiags := []string{"warning r1: stopped after 4 directories; skills further down were not loaded"}
	if d := cmp.Diff(wantSkills, skills); d != "" {
		t.Errorf("skills (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantDiags, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
}

func TestDiscoverMissingAndUnreadableRoots(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	discWriteTree(t, base, map[string]string{"file-root": "not a directory", "ok/s/SKILL.md": md("s", "b"), "ok/locked/x/SKILL.md": md("x", "b")})
	unreadable := os.Getuid() != 0 // root ignores permissions
	if unreadable {
		if err := os.Chmod(filepath.Join(base, "ok", "locked"), 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(filepath.Join(base, "ok", "locked"), 0o755) })
	}
	c := Discover(t.Context(), discOpts(
		Root{Path: filepath.Join(base, "does-not-exist"), Source: SourceProject},
		Root{Path: filepath.Join(base, "file-root"), Source: SourceUser},
		Root{Path: filepath.Join(base, "ok"), Source: SourceExtra},
	))
	_, diags := discSummary(base, c)
	want := []string{"error file-root: cannot read skill root: not a directory"}
	if unreadable {
		want = append(want, "error ok/locked: cannot read directory: permission denied")
	}
	if d := cmp.Diff(want, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
	if c.Lookup("s") == nil {
		t.Error("skill s missing")
	}
}

func TestDiscoverDeterministic(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	files := map[string]string{}
	for i := range 200 {
		name := "s" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		files["r"+string(rune('0'+i%3))+"/cat"+string(rune('a'+i%5))+"/"+name+"/SKILL.md"] = md(name, "b")
	}
	files["r0/broken/SKILL.md"] = "---\nname: x\n---\n"
	discWriteTree(t, base, files)
	opts := discOpts(Root{Path: filepath.Join(base, "r0"), Source: SourceProject}, Root{Path: filepath.Join(base, "r1"), Source: SourceUser}, Root{Path: filepath.Join(base, "r2"), Source: SourceExtra})
	first := Discover(t.Context(), opts)
	for range 5 {
		again := Discover(t.Context(), opts)
		if d := cmp.Diff(first, again); d != "" {
			t.Fatalf("second run differs:\n%s", d)
		}
	}
}

func TestDiscoverCancelled(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	discWriteTree(t, root, map[string]string{"a/SKILL.md": md("a", "b")})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	opts := discOpts(Root{Path: root, Source: SourceProject})
	opts.Builtins = true
	c := Discover(ctx, opts)
	if len(c.Diagnostics) != 1 || !strings.Contains(c.Diagnostics[0].Message, "interrupted") {
		t.Errorf("diagnostics = %v", c.Diagnostics)
	}
	if c.Lookup("a") != nil {
		t.Error("a cancelled discovery still walked the root")
	}
}
