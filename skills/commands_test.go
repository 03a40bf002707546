package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiscoverCommands covers Claude Code commands: naming, status,
// shadowing by real skills (built-ins too) and between commands, depth,
// size, and what is skipped.
func TestDiscoverCommands(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
	big := "---\ndescription: big\n---\n" + strings.Repeat("x", 300)
	discWriteTree(t, base, map[string]string{
		"ws/.claude/commands/review.md":             "---\ndescription: Review a PR\nargument-hint: \"[pr]\"\nallowed-tools: Bash(gh:*)\n---\nReview PR $ARGUMENTS.\n",
		"ws/.claude/commands/quick.md":              "Just a body, no frontmatter.\n",
		"ws/.claude/commands/frontend/lint.md":      "---\ndescription: Lint the frontend\nname: ignored\n---\nRun the linter.\n",
		"ws/.claude/commands/a/b/c/deep.md":         "---\ndescription: four components\n---\nx\n",
		"ws/.claude/commands/a/b/c/d/tooDeep.md":    "---\ndescription: five components\n---\nx\n",
		"ws/.claude/commands/.hidden/secret.md":     "secret\n",
		"ws/.claude/commands/node_modules/x/y.md":   "dep\n",
		"ws/.claude/commands/notes.txt":             "not a command\n",
		"ws/.claude/commands/my command.md":         "bad name\n",
		"ws/.claude/commands/empty.md":              "---\ndescription: nothing\n---\n",
		"ws/.claude/commands/big.md":                big,
		"ws/.claude/commands/skill-creator.md":      "---\ndescription: clash with the built-in\n---\nx\n",
		"ws/.claude/commands/deploy.md":             "---\ndescription: project deploy\n---\nproject\n",
		"ws/.clawseed/skills/fix/SKILL.md":          md("fix", "real skill"),
		"ws/.claude/commands/fix.md":                "---\ndescription: shadowed\n---\nx\n",
		"ws/.claude/commands/user-only.md":          "---\ndescription: d\ndisable-model-invocation: true\n---\nx\n",
		"home/.claude/commands/deploy.md":           "---\ndescription: home deploy\n---\nhome\n",
		"home/.claude/commands/tools/fmt.md":        "---\ndescription: Format\nmodel: haiku\n---\nFormat.\n",
		"home/.claude/skills/shared/SKILL.md":       md("shared", "a user skill"),
		"home/.claude/commands/shared.md":           "---\ndescription: loses to the user skill\n---\nx\n",
		"ws/.claude/commands/frontend/lint.md.d/x":  "a directory named like a command is walked",
		"ws/.claude/commands/frontend/sub.md/in.md": "---\ndescription: in a dir called sub.md\n---\nx\n",
	})
	opts := discOpts(StandardRoots(ws, "", home, nil)...)
	opts.Builtins = true
	opts.MaxFileBytes = 256
	c := Discover(t.Context(), opts)
	skills, diags := discSummary(base, c)
	wantSkills := []string{
		"a:b:c:deep project-claude listed @ws/.claude/commands/a/b/c",
		"deploy project-claude listed @ws/.claude/commands",
		"fix project listed @ws/.clawseed/skills/fix",
		"frontend:lint project-claude listed @ws/.claude/commands/frontend",
		"frontend:sub.md:in project-claude listed @ws/.claude/commands/frontend/sub.md",
		"quick project-claude user-only (" + commandUserOnlyReason + ") @ws/.claude/commands",
		"review project-claude listed @ws/.claude/commands",
		"shared user-claude listed @home/.claude/skills/shared",
		"skill-creator builtin listed",
		"tools:fmt user-claude listed @home/.claude/commands/tools",
		"user-only project-claude user-only @ws/.claude/commands",
	}
	if d := cmp.Diff(wantSkills, dropBuiltins(skills, "skill-creator")); d != "" {
		t.Errorf("skills (-want +got):\n%s", d)
	}
	wantDiags := []string{
		`error ws/.claude/commands/big.md: big.md too large (0.4 KiB > 0.3 KiB)`,
		`error ws/.claude/commands/empty.md: empty.md has no body and no shell command is set: the skill has no instructions`,
		`error ws/.claude/commands/my command.md: command name "my command" (from the file's path) is not a valid skill name (want letters, digits, '.', '_', ':' or '-', at most 64 characters)`,
		`info ws/.claude/commands/fix.md: shadowed by ws/.clawseed/skills/fix`,
		`info ws/.claude/commands/skill-creator.md: shadowed by builtin:skill-creator`,
		`info home/.claude/commands/deploy.md: shadowed by ws/.claude/commands/deploy.md`,
		`info home/.claude/commands/shared.md: shadowed by home/.claude/skills/shared`,
	}
	if d := cmp.Diff(wantDiags, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}

	r := c.Lookup("review")
	if r == nil {
		t.Fatal("review not found")
	}
	if !r.Command || r.SkillPath != filepath.Join(ws, ".claude", "commands", "review.md") || r.ArgumentHint != "[pr]" ||
		!cmp.Equal(r.AllowedTools, []string{"Bash(gh:*)"}) || bodyOf(t, r) != "Review PR $ARGUMENTS." || !r.UserInvocable {
		t.Errorf("review = %+v", r)
	}
	if f := c.Lookup("tools:fmt"); f == nil || f.Model != "haiku" {
		t.Errorf("tools:fmt = %+v", f)
	}
	if l := c.Lookup("frontend:lint"); l == nil || l.Status != StatusListed {
		t.Errorf("frontend:lint = %+v (a frontmatter name does not rename a command)", l)
	}
	// Listed commands reach the index; user-only ones do not.
	idx := RenderIndex(c.Skills, 100000).Text
	if !strings.Contains(idx, `name="review"`) || strings.Contains(idx, `name="quick"`) {
		t.Errorf("index:\n%s", idx)
	}
}

// TestCommandSymlinks: links inside the commands directory are followed;
// links that leave it, and a commands directory that leaves the workspace,
// are refused.
func TestCommandSymlinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
	discWriteTree(t, base, map[string]string{
		"ws/.claude/commands/real/inside.md": "---\ndescription: inside\n---\nx\n",
		"outside/secret.md":                  "---\ndescription: secret\n---\nsecret\n",
		"outside/dir/leak.md":                "---\ndescription: leak\n---\nleak\n",
		"elsewhere/cmds/evil.md":             "---\ndescription: evil\n---\nevil\n",
	})
	cmds := filepath.Join(ws, ".claude", "commands")
	discSymlink(t, filepath.Join(cmds, "real"), filepath.Join(cmds, "alias"))
	discSymlink(t, filepath.Join(cmds, "real", "inside.md"), filepath.Join(cmds, "linked.md"))
	discSymlink(t, filepath.Join(base, "outside", "secret.md"), filepath.Join(cmds, "secret.md"))
	discSymlink(t, filepath.Join(base, "outside", "dir"), filepath.Join(cmds, "out"))
	// The home folder's commands directory is itself a link out of home.
	discSymlink(t, filepath.Join(base, "elsewhere", "cmds"), filepath.Join(home, ".claude", "commands"))

	c := Discover(t.Context(), discOpts(StandardRoots(ws, "", home, nil)...))
	skills, diags := discSummary(base, c)
	// The folder is reached first through the link "alias" (names sort
	// before "real"), as for skill directories.
	wantSkills := []string{"alias:inside project-claude listed @ws/.claude/commands/alias"}
	if d := cmp.Diff(wantSkills, skills); d != "" {
		t.Errorf("skills (-want +got):\n%s", d)
	}
	wantDiags := []string{
		"info ws/.claude/commands/linked.md: same command file as ws/.claude/commands/alias/inside.md; skipped",
		"error ws/.claude/commands/out: symbolic link to outside/dir leaves the skill root ws/.claude/commands; refused (a project skill root's links must stay inside it)",
		"error ws/.claude/commands/secret.md: secret.md is a symbolic link to outside/secret.md, outside the skill root; refused",
		"error home/.claude/commands: skill root resolves to elsewhere/cmds, which is outside home; refused",
	}
	if d := cmp.Diff(wantDiags, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
}

// TestRereadCommand: activation re-reads a command's file, and refuses it
// once its folder is a link out of the root.
func TestRereadCommand(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	discWriteTree(t, base, map[string]string{
		"ws/.claude/commands/git/review.md": "---\ndescription: Review\n---\nold body\n",
		"outside/review.md":                 "---\ndescription: Review\n---\nstolen\n",
	})
	c := Discover(t.Context(), discOpts(StandardRoots(ws, "", "", nil)...))
	s := c.Lookup("git:review")
	if s == nil {
		t.Fatal("git:review not found")
	}
	path := filepath.Join(ws, ".claude", "commands", "git", "review.md")
	if err := os.WriteFile(path, []byte("---\ndescription: Review\n---\nnew body\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := Reread(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n.Body != "new body" || n.Name != "git:review" || !n.Command || n.Source != SourceProjectClaude || n.SkillPath != path {
		t.Errorf("reread = %+v", n)
	}
	gitDir := filepath.Join(ws, ".claude", "commands", "git")
	if err := os.RemoveAll(gitDir); err != nil {
		t.Fatal(err)
	}
	if _, err := Reread(s, 0); err == nil || !strings.Contains(err.Error(), "no longer exists") {
		t.Errorf("removed: err = %v", err)
	}
	discSymlink(t, filepath.Join(base, "outside"), gitDir)
	if _, err := Reread(s, 0); err == nil || !strings.Contains(err.Error(), "outside its root") {
		t.Errorf("link out: err = %v", err)
	}
}
