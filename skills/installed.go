package skills

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
)

// Plugins installed with Claude Code (issue 23): each is a root of its own
// ([PluginRoot]), which the app builds from
// ~/.claude/plugins/installed_plugins.json. Such a root IS a plugin, with or
// without .claude-plugin/plugin.json (Claude Code makes the manifest
// optional): its skills/ is walked like a root and its commands/ like a
// commands directory, everything named `plugin:name`; a plugin without
// skills/ whose top holds SKILL.md has that one skill, as in Claude Code.
// Its other folders (agents/, hooks/, scripts/, …) are its own and are not
// searched for skills. Links inside it must stay inside its folder, like
// any root's.

// skipInPlugin is why the other folders of an installed plugin are not
// searched.
var skipInPlugin = skipRule{SeverityInfo, "in this plugin's folder",
	"only a plugin's skills/ and commands/ folders are searched"}

// walkInstalledPlugin walks the installed plugin whose folder is the root
// dir (real path dirReal).
func (w *walker) walkInstalledPlugin(ctx context.Context, rw *rootWalk, dir, dirReal string, entries []fs.DirEntry) {
	w.cache.opaque("a plugin")
	name, ok := w.installedPluginName(rw, dir)
	if !ok {
		return
	}
	rw.plugin, rw.pluginDir = name, dir
	defer func() { rw.plugin, rw.pluginDir = "", "" }()
	hasSkillsDir := false
	for _, e := range entries {
		switch {
		case e.Name() == pluginSkillsDir && w.isDirEntry(joinPath(dir, e.Name()), e):
			hasSkillsDir = true
		case e.Name() == pluginAgentsDir && w.isDirEntry(joinPath(dir, e.Name()), e):
			w.pluginAgents = append(w.pluginAgents, PluginFolder{Plugin: name, Path: joinPath(dir, e.Name()), Source: rw.root.Source, Root: rw.realPath})
		}
	}
	if !hasSkillsDir && hasSkillFile(entries, false) {
		if first, seen := w.seenSkill[dirReal]; seen {
			w.diag(dir, SeverityInfo, "same skill directory as "+first+"; skipped")
		} else {
			w.seenSkill[dirReal] = dir
			w.addCandidate(rw, dir, dirReal, entries)
		}
	}
	for _, e := range entries {
		if w.stop || rw.capped {
			return
		}
		if !isPluginContent(e.Name()) {
			continue
		}
		child, childReal, childEntries, ok := w.enter(rw, dir, dirReal, e)
		if !ok {
			continue
		}
		if e.Name() == pluginCommandsDir {
			w.walkCommands(ctx, rw, child, child, childReal, childEntries, 0)
		} else {
			w.visit(ctx, rw, child, childReal, childEntries, 0, true)
		}
	}
	w.passOverChildren(rw, dir, dirReal, entries, skipInPlugin, isPluginContent)
}

// installedPluginName decides the name of the installed plugin in dir:
// its plugin.json's "name" when that is set and valid, else the name it was
// installed under. ok is false (with an error diagnostic) when neither is a
// valid skill name.
func (w *walker) installedPluginName(rw *rootWalk, dir string) (string, bool) {
	path := filepath.Join(dir, pluginDirName, pluginManifestName)
	name, msg := readPluginManifest(path, rw.realPath, w.maxBytes)
	if name != "" {
		return name, true
	}
	fallback := rw.root.Plugin
	if !ValidName(fallback) {
		text := fmt.Sprintf("installed plugin name %q is not a valid skill name and plugin.json names no plugin; not loaded", fallback)
		if msg != "" {
			text = msg + "; " + text
		}
		w.diag(dir, SeverityError, text)
		return "", false
	}
	if msg != "" {
		w.diag(path, SeverityWarning, fmt.Sprintf("%s; using the installed name %q", msg, fallback))
	}
	return fallback, true
}
