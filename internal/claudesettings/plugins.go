package claudesettings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
// and are enabled in set. The list is the user's own file, so it may be a
// link; a plugin folder that does not exist is a diagnostic.
func LoadInstalled(home, workspace string, set *Set) ([]InstalledPlugin, []Diagnostic) {
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
	var out []InstalledPlugin
	for _, p := range all {
		if set != nil && !set.PluginEnabled(p.Key) {
			continue
		}
		if fi, err := os.Stat(p.Path); err != nil || !fi.IsDir() {
			diags = append(diags, Diagnostic{Path: path, Where: "plugins." + p.Key, Message: "plugin folder " + p.Path + " not found"})
			continue
		}
		out = append(out, p)
	}
	return out, diags
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
