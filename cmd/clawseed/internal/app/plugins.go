package app

import (
	"fmt"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/claudesettings"
	"github.com/clawseed/clawseed/skills"
)

// Plugins installed with Claude Code (issue 23, part 5): the plugins that
// ~/.claude/plugins/installed_plugins.json lists for this workspace (user
// installs, and project or local installs made for it), less those
// `enabledPlugins` turns off, each a skill root of its own
// ([skills.PluginRoot], source "claude-plugin"): its skills/ give
// `plugin:skill`, its commands/ `/plugin:command`; its agents/ and
// hooks/hooks.json are for the subagents (discovery records the agents/
// folders in the catalog's PluginAgents) and the hooks
// (claudesettings.PluginHooks).
//
// Trust: the list is the user's own file in their home, so an installed
// plugin is the user's, like ~/.claude/skills, also when it was installed
// for one project (that install is still recorded in the user's
// ~/.claude). Its skills count as user skills (dynamic context under
// "trusted", allowed-tools, no untrusted-workspace limits). What the
// repository may say is limited to turning a plugin off: an untrusted
// project's `enabledPlugins: true` is ignored (claudesettings.Set), and an
// untrusted project's `[skills].claude_plugins` may only be false.
//
// The list is read again for each discovery (a few small files), so a
// plugin installed, removed or switched off mid-session shows at the next
// reload: the watcher watches these files too ([pluginWatchFiles]).

// claudePlugins reads the plugins installed with Claude Code that apply to
// cfg's workspace, each with its decision, and what was wrong with the
// files. Nothing when [skills].claude_plugins is false or there is no home.
func claudePlugins(cfg *config.Config) ([]claudesettings.PluginState, []claudesettings.Diagnostic) {
	home := homeDir()
	if !cfg.Skills.ClaudePlugins || home == "" {
		return nil, nil
	}
	return claudesettings.ListInstalled(home, cfg.Workspace, loadClaudeSettings(cfg, cfg.Trusted))
}

// installedPlugins returns the enabled installed plugins of cfg's
// workspace (sorted by key), with each problem of the files on warn: the
// session keeps them ([parts].plugins) for what else a plugin brings,
// hooks and agents.
func installedPlugins(cfg *config.Config, warn func(string)) []claudesettings.InstalledPlugin {
	states, diags := claudePlugins(cfg)
	if warn != nil {
		for _, d := range diags {
			warn("Claude Code plugins: " + d.String())
		}
	}
	return enabledPlugins(states)
}

// enabledPlugins are the plugins of states that are on.
func enabledPlugins(states []claudesettings.PluginState) []claudesettings.InstalledPlugin {
	var out []claudesettings.InstalledPlugin
	for _, p := range states {
		if p.Enabled {
			out = append(out, p.InstalledPlugin)
		}
	}
	return out
}

// pluginRoots are the skill roots of the enabled plugins.
func pluginRoots(plugins []claudesettings.InstalledPlugin) []skills.Root {
	roots := make([]skills.Root, 0, len(plugins))
	for _, p := range plugins {
		roots = append(roots, skills.PluginRoot(p.Name, p.Path))
	}
	return roots
}

// pluginDiagnostics turns the problems of the plugin files into skill
// diagnostics, so that `skills doctor` and /skills show them.
func pluginDiagnostics(diags []claudesettings.Diagnostic) []skills.Diagnostic {
	out := make([]skills.Diagnostic, 0, len(diags))
	for _, d := range diags {
		msg := d.Message
		if d.Where != "" {
			msg = d.Where + ": " + msg
		}
		out = append(out, skills.Diagnostic{Path: d.Path, Severity: skills.SeverityWarning, Message: "Claude Code plugins: " + msg})
	}
	return out
}

// pluginWatchFiles are the files that decide the plugin roots, for hot
// reload: the installed list and the settings files that may switch a
// plugin off.
func pluginWatchFiles(cfg *config.Config) []string {
	home := homeDir()
	if !cfg.Skills.ClaudePlugins || home == "" {
		return nil
	}
	files := []string{claudesettings.InstalledFile(home)}
	for _, s := range claudesettings.Sources(home, cfg.Workspace) {
		files = append(files, s.Path)
	}
	return files
}

// A PluginStatus is one installed plugin as `clawseed skills list` shows
// it.
type PluginStatus struct {
	Key     string `json:"key"`
	Name    string `json:"name"`
	Path    string `json:"path"`
	Scope   string `json:"scope"`
	Version string `json:"version,omitempty"`
	Enabled bool   `json:"enabled"`
	// Why says what decided.
	Why string `json:"why"`
}

// ClaudePlugins lists the plugins installed with Claude Code that apply to
// cfg's workspace, enabled or not, with what decided; an empty list when
// [skills].claude_plugins is false.
func ClaudePlugins(cfg *config.Config) []PluginStatus {
	states, _ := claudePlugins(cfg)
	out := make([]PluginStatus, 0, len(states))
	for _, p := range states {
		scope := p.Scope
		if p.ProjectPath != "" {
			scope = fmt.Sprintf("%s (%s)", p.Scope, p.ProjectPath)
		}
		out = append(out, PluginStatus{Key: p.Key, Name: p.Name, Path: p.Path, Scope: scope, Version: p.Version, Enabled: p.Enabled, Why: p.Why})
	}
	return out
}
