package claudesettings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
)

// An InstalledPlugin is a plugin installed with Claude Code
// (`/plugin install`), as ~/.claude/plugins/installed_plugins.json records
// it.
type InstalledPlugin struct {
	// Key is "name@marketplace"; Name and Marketplace its parts.
	Key, Name, Marketplace string
	// Path is the plugin's folder (installPath).
	Path string
	// Scope is "user", or "project"/"local" for a plugin installed for one
	// project (ProjectPath).
	Scope, ProjectPath string
	Version            string
}

// InstalledFile is the path of Claude Code's installed-plugins list.
func InstalledFile(home string) string {
	return filepath.Join(home, ".claude", "plugins", "installed_plugins.json")
}

// installation is one entry of installed_plugins.json, in either version.
type installation struct {
	Scope       string `json:"scope"`
	InstallPath string `json:"installPath"`
	Version     string `json:"version"`
	ProjectPath string `json:"projectPath"`
}

// ParseInstalled reads installed_plugins.json: version 2 (`"plugins":
// {"name@mkt": [{scope, installPath, projectPath, …}]}`) or version 1
// (`"plugins": {"name@mkt": {installPath, …}}`). It returns the
// installations that apply to workspace — user-wide ones, and project ones
// whose projectPath is the workspace or a parent of it — one per key (the
// project's over the user's), sorted by key.
func ParseInstalled(path string, data []byte, workspace string) ([]InstalledPlugin, []Diagnostic, error) {
	var top struct {
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if err := decodeJSON(path, data, &top); err != nil {
		return nil, nil, err
	}
	d := &diags{path: path}
	keys := make([]string, 0, len(top.Plugins))
	for k := range top.Plugins {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []InstalledPlugin
	for _, key := range keys {
		raw := top.Plugins[key]
		var list []installation
		if err := json.Unmarshal(raw, &list); err != nil {
			var one installation
			if err := json.Unmarshal(raw, &one); err != nil {
				d.add("plugins."+key, "not used: expected a list of installations")
				continue
			}
			list = []installation{one}
		}
		name, market, _ := strings.Cut(key, "@")
		var best *installation
		for i := range list {
			in := &list[i]
			if in.InstallPath == "" || !filepath.IsAbs(in.InstallPath) {
				d.add(fmt.Sprintf("plugins.%s[%d]", key, i), "not used: installPath must be an absolute path")
				continue
			}
			if in.Scope == "" {
				in.Scope = "user"
			}
			if in.Scope != "user" && !appliesTo(in.ProjectPath, workspace) {
				continue
			}
			if best == nil || best.Scope == "user" {
				best = in
			}
		}
		if best == nil {
			continue
		}
		out = append(out, InstalledPlugin{
			Key: key, Name: name, Marketplace: market,
			Path: filepath.Clean(best.InstallPath), Scope: best.Scope,
			ProjectPath: best.ProjectPath, Version: best.Version,
		})
	}
	return out, d.list, nil
}

// appliesTo reports whether a plugin installed for project applies in
// workspace: the same folder or one inside it.
func appliesTo(project, workspace string) bool {
	if project == "" || workspace == "" {
		return false
	}
	rel, err := filepath.Rel(filepath.Clean(project), filepath.Clean(workspace))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// LoadInstalled reads the installed plugins of home that apply to workspace
// and are enabled in set ([ListInstalled]).
func LoadInstalled(home, workspace string, set *Set) ([]InstalledPlugin, []Diagnostic) {
	all, diags := ListInstalled(home, workspace, set)
	var out []InstalledPlugin
	for _, p := range all {
		if p.Enabled {
			out = append(out, p.InstalledPlugin)
		}
	}
	return out, diags
}

// A PluginState is an installed plugin that applies to the workspace, and
// whether it is used.
type PluginState struct {
	InstalledPlugin
	Enabled bool
	// Why says what decided, such as `enabledPlugins in
	// /home/u/.claude/settings.json` or `folder /x not found`.
	Why string
}

// ListInstalled reads the installed plugins of home that apply to
// workspace, sorted by key, each with the decision of set
// ([Set.PluginDecision]; nil: every plugin is on). The list is the user's
// own file, so it may be a link; an enabled plugin whose folder does not
// exist is off, with a diagnostic.
func ListInstalled(home, workspace string, set *Set) ([]PluginState, []Diagnostic) {
	if home == "" {
		return nil, nil
	}
	path := InstalledFile(home)
	data, err := confine.Read(path, confine.Options{Max: MaxFile, Unconfined: true})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []Diagnostic{{Path: path, Message: "not read: " + confine.Why(err)}}
	}
	all, diags, err := ParseInstalled(path, data, workspace)
	if err != nil {
		return nil, []Diagnostic{{Message: err.Error() + " (file not used)"}}
	}
	out := make([]PluginState, 0, len(all))
	for _, p := range all {
		st := PluginState{InstalledPlugin: p, Enabled: true, Why: "installed; no enabledPlugins entry"}
		if set != nil {
			st.Enabled, st.Why = set.PluginDecision(p.Key)
		}
		if st.Enabled {
			if fi, err := os.Stat(p.Path); err != nil || !fi.IsDir() {
				st.Enabled, st.Why = false, "folder "+p.Path+" not found"
				diags = append(diags, Diagnostic{Path: path, Where: "plugins." + p.Key, Message: "plugin folder " + p.Path + " not found"})
			}
		}
		out = append(out, st)
	}
	return out, diags
}

// PluginDecision reports whether the plugin with the key
// "name@marketplace" is on, and what decided: the last file (highest
// precedence) that names it in `enabledPlugins`, and a plugin no file names
// is on (installing it is consent). An untrusted project's file may turn a
// plugin off but not on: its `true` is ignored, and why says so.
func (set *Set) PluginDecision(key string) (bool, string) {
	if len(set.Unusable) > 0 {
		return false, "off while " + strings.Join(set.Unusable, ", ") + " cannot be used (its enabledPlugins are unknown)"
	}
	on, why := true, "installed; no enabledPlugins entry"
	var ignored []string
	for _, s := range set.Files {
		i := slices.IndexFunc(s.EnabledPlugins, func(p PluginSwitch) bool { return p.Key == key })
		if i < 0 {
			continue
		}
		if s.EnabledPlugins[i].Enabled && !set.honoured(s) {
			ignored = append(ignored, s.Path)
			continue
		}
		on = s.EnabledPlugins[i].Enabled
		why = "enabledPlugins in " + s.Path
	}
	if len(ignored) > 0 && !on {
		why += "; enabling in " + strings.Join(ignored, ", ") + " ignored: the workspace is not trusted"
	}
	return on, why
}

// PluginHooks reads a plugin's hooks/hooks.json (`{"hooks": {...}}`, the
// settings files' shape), a regular file inside the plugin folder dir. A
// plugin without one has no hooks (nil, no diagnostic). The hook runner
// sets CLAUDE_PLUGIN_ROOT to dir for its commands.
func PluginHooks(dir string) (*Settings, []Diagnostic) {
	path := filepath.Join(dir, "hooks", "hooks.json")
	data, err := confine.Read(path, confine.Options{Roots: []string{dir}, Max: MaxFile})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []Diagnostic{{Path: path, Message: "not read: " + confine.Why(err)}}
	}
	s, diags, err := Parse(path, ScopePlugin, data)
	if err != nil {
		return nil, []Diagnostic{{Message: err.Error() + " (file not used)"}}
	}
	s.Permissions, s.EnabledPlugins = Permissions{}, nil
	return s, diags
}
