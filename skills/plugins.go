package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Claude Code plugins (SPEC §4.2): a directory of a root (or the root itself)
// is a plugin when it holds `.claude-plugin/plugin.json` and plugin content:
// `skills/`, `commands/` or `agents/` ([isPlugin]). Its `skills/` is walked
// like a root and its `commands/` like a commands directory; what they hold
// is named `plugin:name`. The plugin's name is plugin.json's "name" when that
// is a valid skill name, else the directory's; a broken plugin.json is a
// warning and the directory name is used. Plugins do not nest, and links
// inside a plugin must stay inside its root.
//
// Anything else is a category folder, whatever else `.claude-plugin/` holds:
// collections put a marketplace.json (a list of plugins, not a plugin) at
// their top, or a plugin.json beside skill folders that are not in skills/,
// and their skills are found by the ordinary walk, under their own names.

const (
	pluginDirName      = ".claude-plugin"
	pluginManifestName = "plugin.json"
	pluginSkillsDir    = "skills"
	pluginCommandsDir  = "commands"
	pluginAgentsDir    = "agents"
)

// isPlugin reports whether dir, whose entries are given, is a plugin: it
// holds .claude-plugin/plugin.json and a skills/, commands/ or agents/
// folder. plugin.json is looked at (one lstat) only when the rest is there.
func (w *walker) isPlugin(dir string, entries []fs.DirEntry) bool {
	meta, content := false, false
	for _, e := range entries {
		switch e.Name() {
		case pluginDirName:
			meta = e.IsDir() || e.Type()&fs.ModeSymlink != 0
		case pluginSkillsDir, pluginCommandsDir, pluginAgentsDir:
			content = content || w.isDirEntry(joinPath(dir, e.Name()), e)
		}
	}
	if !meta || !content {
		return false
	}
	w.cache.opaque("a plugin")
	_, err := os.Lstat(filepath.Join(dir, pluginDirName, pluginManifestName))
	return err == nil
}

// isPluginContent reports whether name is a folder of a plugin that the walk
// searches.
func isPluginContent(name string) bool {
	return name == pluginSkillsDir || name == pluginCommandsDir
}

// walkPlugin walks the plugin in dir (at depth): its skills/ and commands/
// as the plugin's, and its other folders like those of a category folder,
// where other plugins and skills load under their own names (a collection
// that is itself a plugin may hold more plugins beside its skills/). When dir
// is also a skill (isSkill: it holds SKILL.md, which the caller loads), its
// other folders are the skill's and are not searched. A plugin without a
// usable name is walked as a category folder.
func (w *walker) walkPlugin(ctx context.Context, rw *rootWalk, dir, dirReal string, entries []fs.DirEntry, depth int, isSkill bool) {
	w.cache.opaque("a plugin")
	name, ok := w.pluginName(rw, dir)
	switch {
	case !ok && isSkill:
		w.passOverChildren(rw, dir, dirReal, entries, skipInSkill, nil)
		return
	case !ok:
		w.walkDir(ctx, rw, dir, dirReal, entries, depth)
		return
	}
	var rest []fs.DirEntry
	for _, e := range entries {
		if w.stop || rw.capped {
			return
		}
		if !isPluginContent(e.Name()) {
			if e.Name() == pluginAgentsDir && w.isDirEntry(joinPath(dir, e.Name()), e) {
				w.pluginAgents = append(w.pluginAgents, PluginFolder{Plugin: name, Path: joinPath(dir, e.Name()), Source: rw.root.Source, Root: rw.realPath})
			}
			rest = append(rest, e)
			continue
		}
		child, childReal, childEntries, ok := w.enter(rw, dir, dirReal, e)
		if !ok {
			continue
		}
		rw.plugin, rw.pluginDir = name, dir
		if e.Name() == pluginCommandsDir {
			w.walkCommands(ctx, rw, child, child, childReal, childEntries, 0)
		} else {
			w.visit(ctx, rw, child, childReal, childEntries, 0, true)
		}
		rw.plugin, rw.pluginDir = "", ""
	}
	if isSkill {
		w.passOverChildren(rw, dir, dirReal, rest, skipInSkill, nil)
		return
	}
	w.walkDir(ctx, rw, dir, dirReal, rest, depth)
}

// A PluginFolder is the agents/ folder of a plugin discovery found: its
// Markdown files are subagent definitions, which package subagents reads
// (named plugin:name). The skill walk does not read them.
type PluginFolder struct {
	Plugin string
	// Path is the folder as reached from its root.
	Path string
	// Source is the source of the skill root the plugin is in.
	Source Source
	// Root is the real path of that skill root: what the folder and its
	// files must stay inside, as the plugin's skills must.
	Root string
}

// pluginName decides the name of the plugin in dir. ok is false (with a
// warning) when neither plugin.json nor the directory gives a valid name.
func (w *walker) pluginName(rw *rootWalk, dir string) (string, bool) {
	fallback := filepath.Base(dir)
	path := filepath.Join(dir, pluginDirName, pluginManifestName)
	name, msg := readPluginManifest(path, rw.realPath, w.maxBytes)
	if name != "" {
		return name, true
	}
	if !ValidName(fallback) {
		text := fmt.Sprintf("plugin directory name %q is not a valid skill name and plugin.json names no plugin; searched as a category folder", fallback)
		if msg != "" {
			text = msg + "; " + text
		}
		w.diag(path, SeverityWarning, text)
		return "", false
	}
	if msg != "" {
		w.diag(path, SeverityWarning, fmt.Sprintf("%s; using the directory name %q", msg, fallback))
	}
	return fallback, true
}

// readPluginManifest returns the valid plugin name set in the plugin.json at
// path, or "" and why not ("" when the file does not exist or sets no name).
// The file is read only when it is a regular file inside rootReal and within
// the size limit.
func readPluginManifest(path, rootReal string, limit int64) (string, string) {
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", ""
	}
	if err != nil {
		return "", "cannot resolve " + pluginManifestName + ": " + describeErr(err)
	}
	if !within(rootReal, real) {
		return "", fmt.Sprintf("%s resolves to %s, outside the skill root; refused", pluginManifestName, real)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", "cannot read " + pluginManifestName + ": " + describeErr(err)
	}
	if !fi.Mode().IsRegular() {
		return "", pluginManifestName + " is not a regular file"
	}
	data, msg := readSkillFile(real, rootReal, limit)
	if msg != "" {
		return "", msg
	}
	return parsePluginManifest(data)
}

// parsePluginManifest returns the plugin name a plugin.json sets when it is
// valid, or "" and a `plugin.json:LINE: ` message saying what is wrong ("" when
// the file is fine but sets no name).
func parsePluginManifest(data []byte) (string, string) {
	if msg := checkText(pluginManifestName, data); msg != "" {
		return "", msg
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return "", jsonMsg(data, err)
	}
	raw, ok := m["name"]
	if !ok {
		return "", ""
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return "", pluginManifestName + `: "name" is not a string`
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return "", "" // null or empty: unset
	}
	if !ValidName(name) {
		return "", fmt.Sprintf("%s: invalid plugin name %q (want letters, digits, '.', '_', ':' or '-', at most %d characters)", pluginManifestName, name, maxNameLen)
	}
	return name, ""
}

// jsonMsg turns a decoding error into `plugin.json:LINE: invalid JSON: ...`.
func jsonMsg(data []byte, err error) string {
	offset := int64(-1)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		offset = se.Offset
	case errors.As(err, &te):
		offset = te.Offset
	}
	if offset < 0 || offset > int64(len(data)) {
		return pluginManifestName + ": invalid JSON: " + err.Error()
	}
	line := 1 + bytes.Count(data[:offset], []byte{'\n'})
	return fmt.Sprintf("%s:%d: invalid JSON: %s", pluginManifestName, line, err.Error())
}

// inPlugin returns a copy of s named plugin:name (s may be shared with a
// parse cache, so it is not changed), or an error diagnostic when the
// combined name is too long.
func inPlugin(s *Skill, plugin, pluginDir string) (*Skill, *Diagnostic) {
	n := *s
	n.Name = plugin + ":" + s.Name
	n.Plugin, n.PluginDir = plugin, pluginDir
	if !ValidName(n.Name) {
		return nil, &Diagnostic{Path: diagPathOf(s), Severity: SeverityError,
			Message: fmt.Sprintf("skill name %q in plugin %q is longer than %d characters", n.Name, plugin, maxNameLen)}
	}
	return &n, nil
}
