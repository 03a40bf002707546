package skills

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiscoverInstalledPlugins covers plugins installed with Claude Code,
// each a root of its own: named by plugin.json or by the installed name,
// skills and commands namespaced, a top SKILL.md, other folders not
// searched, links out refused, and a configured root winning a clash.
func TestDiscoverInstalledPlugins(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	discWriteTree(t, base, map[string]string{
		// A plugin with plugin.json: its name wins over the installed one.
		"cache/mkt/fmt/1.0.0/.claude-plugin/plugin.json": `{"name": "formatter", "version": "1.0.0"}`,
		"cache/mkt/fmt/1.0.0/skills/go/SKILL.md":         md("go", "format go"),
		"cache/mkt/fmt/1.0.0/skills/lang/py/SKILL.md":    "---\ndescription: py\n---\npy\n",
		"cache/mkt/fmt/1.0.0/commands/run.md":            "---\ndescription: Run it\n---\nRun $ARGUMENTS.\n",
		"cache/mkt/fmt/1.0.0/commands/sub/deep.md":       "deep\n",
		"cache/mkt/fmt/1.0.0/agents/reviewer.md":         "---\nname: reviewer\n---\nan agent, not a skill\n",
		"cache/mkt/fmt/1.0.0/agents/odd/SKILL.md":        md("odd", "not searched"),
		"cache/mkt/fmt/1.0.0/hooks/hooks.json":           `{"hooks": {}}`,
		"cache/mkt/fmt/1.0.0/SKILL.md":                   md("top", "ignored: the plugin has skills/"),
		"cache/mkt/fmt/1.0.0/skills/clash/SKILL.md":      md("clash", "loses to the configured root"),
		// No plugin.json: the installed name names it.
		"cache/mkt/bare/abc123/skills/lint/SKILL.md": md("lint", "lint"),
		"cache/mkt/bare/abc123/commands/fix.md":      "---\ndescription: Fix\n---\nFix.\n",
		// A plugin that is one skill, at its top.
		"cache/mkt/solo/2.0/SKILL.md": md("solo", "solo"),
		// A broken plugin.json falls back to the installed name.
		"cache/mkt/broken/1/.claude-plugin/plugin.json": "{oops",
		"cache/mkt/broken/1/skills/b/SKILL.md":          md("b", "b"),
		// An installed name that is no skill name, and no plugin.json.
		"cache/mkt/weird/1/skills/w/SKILL.md": md("w", "w"),
		// Links out of the plugin are refused.
		"cache/mkt/leaky/1/skills/ok/SKILL.md": md("ok", "ok"),
		"outside/leak/SKILL.md":                md("leak", "leak"),
		// A configured root's plugin claims formatter:clash first.
		"ws/.claude/skills/formatter/.claude-plugin/plugin.json": `{"name":"formatter"}`,
		"ws/.claude/skills/formatter/skills/clash/SKILL.md":      md("clash", "the project's"),
	})
	discSymlink(t, filepath.Join(base, "outside", "leak"), filepath.Join(base, "cache/mkt/leaky/1/skills/leak"))
	plugin := func(name, rel string) Root { return PluginRoot(name, filepath.Join(base, filepath.FromSlash(rel))) }
	roots := WithPlugins(StandardRoots(ws, "", "", nil), []Root{
		plugin("bare", "cache/mkt/bare/abc123"),
		plugin("broken", "cache/mkt/broken/1"),
		plugin("fmt", "cache/mkt/fmt/1.0.0"),
		plugin("leaky", "cache/mkt/leaky/1"),
		plugin("solo", "cache/mkt/solo/2.0"),
		plugin("bad name", "cache/mkt/weird/1"),
		plugin("missing", "cache/mkt/missing/1"),
	})
	c := Discover(t.Context(), discOpts(roots...))
	skills, diags := discSummary(base, c)
	wantSkills := []string{
		"bare:fix claude-plugin listed @cache/mkt/bare/abc123/commands",
		"bare:lint claude-plugin listed @cache/mkt/bare/abc123/skills/lint",
		"broken:b claude-plugin listed @cache/mkt/broken/1/skills/b",
		"formatter:clash project-claude listed @ws/.claude/skills/formatter/skills/clash",
		"formatter:go claude-plugin listed @cache/mkt/fmt/1.0.0/skills/go",
		"formatter:py claude-plugin listed @cache/mkt/fmt/1.0.0/skills/lang/py",
		"formatter:run claude-plugin listed @cache/mkt/fmt/1.0.0/commands",
		"formatter:sub:deep claude-plugin user-only (" + commandUserOnlyReason + ") @cache/mkt/fmt/1.0.0/commands/sub",
		"leaky:ok claude-plugin listed @cache/mkt/leaky/1/skills/ok",
		"solo:solo claude-plugin listed @cache/mkt/solo/2.0",
	}
	if d := cmp.Diff(wantSkills, skills); d != "" {
		t.Errorf("skills (-want +got):\n%s", d)
	}
	wantDiags := []string{
		`warning cache/mkt/broken/1/.claude-plugin/plugin.json: plugin.json:1: invalid JSON: invalid character 'o' looking for beginning of object key string; using the installed name "broken"`,
		`info cache/mkt/fmt/1.0.0/skills/clash: shadowed by ws/.claude/skills/formatter/skills/clash`,
		`info cache/mkt/fmt/1.0.0: 1 SKILL.md file in this plugin's folder not loaded (agents/odd/SKILL.md): only a plugin's skills/ and commands/ folders are searched`,
		`error cache/mkt/leaky/1/skills/leak: symbolic link to outside/leak leaves the skill root cache/mkt/leaky/1; refused (an installed plugin's links must stay inside it)`,
		`error cache/mkt/weird/1: installed plugin name "bad name" is not a valid skill name and plugin.json names no plugin; not loaded`,
	}
	if d := cmp.Diff(wantDiags, diags); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}

	// Activation re-reads a plugin's skill and command under their names.
	s := c.Lookup("formatter:go")
	if s == nil || s.Plugin != "formatter" || s.Root != filepath.Join(base, "cache/mkt/fmt/1.0.0") {
		t.Fatalf("formatter:go = %+v", s)
	}
	if n, err := Reread(s, 0); err != nil || n.Name != "formatter:go" || n.Source != SourceClaudePlugin {
		t.Errorf("Reread = %+v, %v", n, err)
	}
	if n, err := Reread(c.Lookup("bare:fix"), 0); err != nil || n.Name != "bare:fix" || n.Body != "Fix." {
		t.Errorf("Reread(command) = %+v, %v", n, err)
	}
}

// TestWithPlugins: plugin roots go after every skill root and before the
// commands folders; a folder that is already a root is not added twice.
func TestWithPlugins(t *testing.T) {
	t.Parallel()
	std := StandardRoots("/ws", "/ch", "/h", []string{"/extra"})
	got := WithPlugins(std, []Root{PluginRoot("a", "/p/a"), PluginRoot("dup", "/extra"), PluginRoot("b", "/p/b")})
	var paths []string
	for _, r := range got {
		paths = append(paths, string(r.Source)+" "+r.Path)
	}
	want := []string{
		"project /ws/.clawseed/skills", "project-claude /ws/.claude/skills", "project-agents /ws/.agents/skills",
		"user /ch/skills", "user-claude /h/.claude/skills", "user-agents /h/.agents/skills", "extra /extra",
		"claude-plugin /p/a", "claude-plugin /p/b",
		"project-claude /ws/.claude/commands", "user-claude /h/.claude/commands",
	}
	if d := cmp.Diff(want, paths); d != "" {
		t.Errorf("roots (-want +got):\n%s", d)
	}
	if got := WithPlugins(std, nil); len(got) != len(std) {
		t.Errorf("WithPlugins(nil) = %d roots, want %d", len(got), len(std))
	}
}
