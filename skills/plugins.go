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
// holding `.claude-plugin/` is a plugin. Its `skills/` is walked like a root
// and its `commands/` like a commands directory; what they hold is named
// `plugin:name`. The plugin's name is plugin.json's "name" when that is a
// valid skill name, else the directory's. plugin.json is optional, as in
// Claude Code; a broken one is a warning and the directory name is used.
// Plugins do not nest, and links inside a plugin must stay inside its root.

const (
	pluginDirName      = ".claude-plugin"
	pluginManifestName = "plugin.json"
	pluginSkillsDir    = "skills"
	pluginCommandsDir  = "commands"
)

// hasPluginDir reports whether entries hold .claude-plugin.
func hasPluginDir(entries []fs.DirEntry) bool {
	for _, e := range entries {
		if e.Name() == pluginDirName {
			return e.IsDir() || e.Type()&fs.ModeSymlink != 0
		}
	}
	return false
}

// walkPlugin walks the plugin in dir.
func (w *walker) walkPlugin(ctx context.Context, rw *rootWalk, dir, dirReal string, entries []fs.DirEntry) {
	name, ok := w.pluginName(rw, dir)
	if !ok {
		return
	}
	rw.plugin = name
	defer func() { rw.plugin = "" }()
	for _, e := range entries {
		if w.stop || rw.capped {
			return
		}
		if e.Name() != pluginSkillsDir && e.Name() != pluginCommandsDir {
			continue
		}
		child, childReal, childEntries, ok := w.enter(rw, dir, dirReal, e)
		if !ok {
			continue
		}
		if e.Name() == pluginCommandsDir {
			w.walkCommands(ctx, rw, child, child, childReal, childEntries, 0)
			continue
		}
		w.walkDir(ctx, rw, child, childReal, childEntries, 0)
	}
}

// pluginName decides the name of the plugin in dir. ok is false (with an
// error diagnostic) when neither plugin.json nor the directory gives a
// valid name.
func (w *walker) pluginName(rw *rootWalk, dir string) (string, bool) {
	fallback := filepath.Base(dir)
	path := filepath.Join(dir, pluginDirName, pluginManifestName)
	name, msg := readPluginManifest(path, rw.realPath, w.maxBytes)
	if name != "" {
		return name, true
	}
	if !ValidName(fallback) {
		text := fmt.Sprintf("plugin directory name %q is not a valid skill name and plugin.json names no plugin; plugin skipped", fallback)
		if msg != "" {
			text = msg + "; " + text
		}
		w.diag(path, SeverityError, text)
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
func inPlugin(s *Skill, plugin string) (*Skill, *Diagnostic) {
	n := *s
	n.Name = plugin + ":" + s.Name
	n.Plugin = plugin
	if !ValidName(n.Name) {
		return nil, &Diagnostic{Path: diagPathOf(s), Severity: SeverityError,
			Message: fmt.Sprintf("skill name %q in plugin %q is longer than %d characters", n.Name, plugin, maxNameLen)}
	}
	return &n, nil
}
