package app

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/skills/watch"
)

// writeFiles writes files (path relative to base → content) under base.
func writeFiles(t *testing.T, base string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(base, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pluginHome makes a home folder whose installed_plugins.json lists the
// plugin p@m (a folder outside ~/.claude, with a skill, an agent and a link
// out), off@m (turned off in the user's settings) and gone@m (no folder),
// and sets HOME to it.
func pluginHome(t *testing.T) (home, ws, plugin string) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, ws = filepath.Join(base, "home"), filepath.Join(base, "ws")
	plugin = filepath.Join(base, "plugins", "p")
	writeFiles(t, base, map[string]string{
		"plugins/p/skills/s/SKILL.md":   "---\ndescription: s\n---\nS.\n",
		"plugins/p/agents/a.md":         "---\nname: a\n---\nAgent.\n",
		"plugins/p/hooks/hooks.json":    `{"hooks": {}}`,
		"plugins/off/skills/o/SKILL.md": "---\ndescription: o\n---\nO.\n",
		"secret/leak/SKILL.md":          "---\ndescription: leak\n---\nLeak.\n",
		"ws/main.go":                    "package main\n",
		"home/.claude/settings.json":    `{"enabledPlugins": {"off@m": false}}`,
		"home/.claude/plugins/installed_plugins.json": `{"version": 2, "plugins": {
  "p@m": [{"scope": "user", "installPath": "` + plugin + `"}],
  "off@m": [{"scope": "user", "installPath": "` + filepath.Join(base, "plugins", "off") + `"}],
  "gone@m": [{"scope": "user", "installPath": "` + filepath.Join(base, "gone") + `"}]}}`,
	})
	if err := os.Symlink(filepath.Join(base, "secret", "leak"), filepath.Join(plugin, "skills", "leak")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	return home, ws, plugin
}

// TestInstalledPluginsWiring: the enabled plugins become skill roots, their
// folders control paths, their skill directories (only) readable, their
// agents/ folders listed; a link out of a plugin is refused; a missing
// folder is a warning; [skills].claude_plugins = false leaves them out.
func TestInstalledPluginsWiring(t *testing.T) {
	_, ws, plugin := pluginHome(t)
	cfg := &config.Config{Workspace: ws, Trusted: true, Skills: config.Skills{Enabled: true, ClaudePlugins: true}}

	var warnings []string
	got := installedPlugins(cfg, func(s string) { warnings = append(warnings, s) })
	if len(got) != 1 || got[0].Key != "p@m" || got[0].Path != plugin {
		t.Fatalf("installedPlugins = %+v", got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "gone@m: plugin folder") {
		t.Errorf("warnings = %q", warnings)
	}
	cat := DiscoverUncached(t.Context(), cfg)
	if len(cat.PluginAgents) != 1 || cat.PluginAgents[0].Path != filepath.Join(plugin, "agents") || cat.PluginAgents[0].Plugin != "p" {
		t.Errorf("PluginAgents = %+v", cat.PluginAgents)
	}
	s := cat.Lookup("p:s")
	if s == nil || s.Source != skills.SourceClaudePlugin {
		t.Fatalf("p:s = %+v", s)
	}
	var diags []string
	for _, d := range cat.Diagnostics {
		diags = append(diags, string(d.Severity)+" "+d.Message)
	}
	joined := strings.Join(diags, "\n")
	for _, want := range []string{"warning Claude Code plugins: plugins.gone@m: plugin folder", "error symbolic link to"} {
		if !strings.Contains(joined, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, joined)
		}
	}
	if cat.Lookup("p:leak") != nil || cat.Lookup("off:o") != nil {
		t.Error("a link out of a plugin, or a plugin turned off, was loaded")
	}

	sb := newSandbox(cfg, cat)
	if _, ok := sb.Control.Match(filepath.Join(plugin, "hooks", "hooks.json")); !ok {
		t.Error("a plugin's hooks.json is not a control path")
	}
	if _, err := sb.ResolveRead(filepath.Join(plugin, "skills", "s", "SKILL.md")); err != nil {
		t.Errorf("plugin skill not readable: %v", err)
	}
	if _, err := sb.ResolveRead(filepath.Join(plugin, "hooks", "hooks.json")); err == nil {
		t.Error("a plugin's other files are readable")
	}

	cfg.Skills.ClaudePlugins = false
	if got := installedPlugins(cfg, nil); len(got) != 0 || len(ClaudePlugins(cfg)) != 0 {
		t.Errorf("claude_plugins = false: %+v", got)
	}
	if DiscoverUncached(t.Context(), cfg).Lookup("p:s") != nil {
		t.Error("claude_plugins = false: plugin skill discovered")
	}
}

// TestReloaderFollowsPluginRoots: a plugin installed mid-session joins the
// catalog at the next reload, and the watcher is started again over the
// new roots.
func TestReloaderFollowsPluginRoots(t *testing.T) {
	home, ws, _ := pluginHome(t)
	cfg := &config.Config{Workspace: ws, Trusted: true, Skills: config.Skills{Enabled: true, ClaudePlugins: true, Watch: true}}
	var started [][]skills.Root
	r := &skillReloader{cfg: cfg, sb: &tools.Sandbox{SkillDirs: &tools.DirSet{}}, cache: &skillCache{cache: skills.NewParseCache()}}
	r.startWatch = func(roots []skills.Root) *watch.Watcher {
		started = append(started, roots)
		return watchSkills(t.Context(), cfg, roots, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}
	t.Cleanup(func() {
		if r.watcher != nil {
			r.watcher.Close()
		}
	})
	if cat := r.discover(t.Context()); cat.Lookup("p:s") == nil || cat.Lookup("new:n") != nil {
		t.Fatal("first discovery")
	}
	r.reload(t.Context(), false)
	r.startWatching() // what the first response event does
	writeFiles(t, home, map[string]string{
		"newplug/skills/n/SKILL.md":              "---\ndescription: n\n---\nN.\n",
		".claude/plugins/installed_plugins.json": `{"version": 2, "plugins": {"new@m": [{"scope": "user", "installPath": "` + filepath.Join(home, "newplug") + `"}]}}`,
	})
	cat, ok := r.reload(t.Context(), true)
	if !ok || cat.Lookup("new:n") == nil || cat.Lookup("p:s") != nil {
		t.Fatalf("reload after installing: ok %v, new:n %v", ok, cat != nil && cat.Lookup("new:n") != nil)
	}
	if len(started) != 2 || !slices.Contains(started[1], skills.PluginRoot("new", filepath.Join(home, "newplug"))) || slices.Contains(started[1], skills.PluginRoot("p", filepath.Join(filepath.Dir(home), "plugins", "p"))) {
		t.Errorf("watcher started over %v", started)
	}
	r.reload(t.Context(), true)
	if len(started) != 2 {
		t.Errorf("watcher restarted though the roots did not change: %v", started)
	}

	// The new watcher sees an edit of the plugin's skill and of the list.
	w := r.watcher
	changed := func(what string) {
		t.Helper()
		select {
		case <-w.Changed():
			w.Reset()
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no change reported", what)
		}
	}
	changed("watches in place")
	writeFiles(t, home, map[string]string{"newplug/skills/n/SKILL.md": "---\ndescription: edited\n---\nN.\n"})
	changed("plugin skill edited")
	writeFiles(t, home, map[string]string{".claude/settings.json": `{"enabledPlugins": {"new@m": false}}`})
	changed("settings edited")
}
