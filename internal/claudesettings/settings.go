// Package claudesettings reads Claude Code's settings files
// (`~/.claude/settings.json`, `.claude/settings.json`,
// `.claude/settings.local.json`) and its list of installed plugins
// (`~/.claude/plugins/installed_plugins.json`), so that a project set up for
// Claude Code works unchanged.
//
// It parses what clawseed honours — `hooks`, `permissions`,
// `enabledPlugins` and `disableAllHooks` — and nothing else; every other key is ignored, since
// Claude Code's settings hold many that mean nothing here (`model`, `env`,
// `statusLine`, …). A file that is not JSON is an error naming the file, line
// and column; a key that is JSON but not what Claude Code accepts (a hook
// without a command, an unknown event) is a [Diagnostic] and the rest of the
// file still counts.
//
// The trust decision lives here, in one place ([Set]): hooks from project
// files run only in a trusted workspace, permission rules that allow run only
// from the user's file or a trusted project, and rules that deny or ask count
// wherever they come from, since they only narrow. Files are read through
// [confine.Read]: regular files, capped, a project's inside the workspace.
package claudesettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
)

// Scope says where a settings file comes from.
type Scope string

// The scopes, from the lowest precedence to the highest, as Claude Code
// merges them.
const (
	// ScopeUser is ~/.claude/settings.json: the user's own.
	ScopeUser Scope = "user"
	// ScopeProject is the workspace's .claude/settings.json: a repository's.
	ScopeProject Scope = "project"
	// ScopeLocal is the workspace's .claude/settings.local.json: the user's
	// own for this project by intent, but it sits in the repository folder,
	// so it is treated as a project file.
	ScopeLocal Scope = "local"
	// ScopePlugin is a plugin's hooks/hooks.json.
	ScopePlugin Scope = "plugin"
	// ScopeSkill is a skill's `hooks:` frontmatter.
	ScopeSkill Scope = "skill"
)

// Project reports whether a file of this scope is the repository's rather
// than the user's, so that it counts only in a trusted workspace.
func (s Scope) Project() bool { return s == ScopeProject || s == ScopeLocal }

// Settings is what clawseed honours of one settings file.
type Settings struct {
	// Path is the file read.
	Path string
	// Scope is where it comes from.
	Scope Scope
	// Hooks are the file's `hooks`, by event.
	Hooks Hooks
	// Permissions are the file's `permissions` rules.
	Permissions Permissions
	// EnabledPlugins is the file's `enabledPlugins`, sorted by key.
	EnabledPlugins []PluginSwitch
	// DisableAllHooks is the file's `disableAllHooks`.
	DisableAllHooks bool
}

// Permissions are Claude Code's permission rules (`Bash(npm test:*)`,
// `Read(./secrets/**)`, `mcp__server__tool`, …), kept as written: their
// meaning is the permissions layer's.
type Permissions struct {
	Allow, Deny, Ask []string
	// DefaultMode is `permissions.defaultMode` (default, acceptEdits, plan,
	// bypassPermissions, dontAsk), or empty.
	DefaultMode string
}

// Empty reports whether there are no rules.
func (p Permissions) Empty() bool {
	return len(p.Allow)+len(p.Deny)+len(p.Ask) == 0 && p.DefaultMode == ""
}

// A PluginSwitch is one `enabledPlugins` entry: "name@marketplace": bool.
type PluginSwitch struct {
	Key     string
	Enabled bool
}

// A Diagnostic is a part of a settings file that is not used, and why.
type Diagnostic struct {
	// Path is the file; Where the key in it, such as
	// `hooks.PreToolUse[0].hooks[1]`.
	Path, Where string
	Message     string
}

func (d Diagnostic) String() string {
	if d.Path == "" {
		return d.Message
	}
	if d.Where == "" {
		return d.Path + ": " + d.Message
	}
	return d.Path + ": " + d.Where + ": " + d.Message
}

// MaxFile caps a settings file, installed_plugins.json and a plugin's
// hooks.json.
const MaxFile = confine.MaxSettingsJSON

// Parse reads the settings file at path from data. A file that is not a JSON
// object is an error with its line and column; the rest is in the result,
// with a diagnostic for each part that is not used.
func Parse(path string, scope Scope, data []byte) (*Settings, []Diagnostic, error) {
	var top map[string]json.RawMessage
	if err := decodeJSON(path, data, &top); err != nil {
		return nil, nil, err
	}
	s := &Settings{Path: path, Scope: scope}
	d := &diags{path: path}
	if raw, ok := top["hooks"]; ok {
		var v any
		if err := json.Unmarshal(raw, &v); err == nil {
			s.Hooks = parseHooks(d, "hooks", v)
		}
	}
	if raw, ok := top["permissions"]; ok {
		s.Permissions = parsePermissions(d, raw)
	}
	if raw, ok := top["enabledPlugins"]; ok {
		s.EnabledPlugins = parseEnabled(d, raw)
	}
	if raw, ok := top["disableAllHooks"]; ok {
		if err := json.Unmarshal(raw, &s.DisableAllHooks); err != nil {
			d.add("disableAllHooks", "not used: expected true or false")
		}
	}
	return s, d.list, nil
}

// decodeJSON decodes data into v, and gives a syntax or type error the
// file's line and column.
func decodeJSON(path string, data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off := syn.Offset - 1 // just past the byte at fault, or the end
		if off == int64(len(data))-1 && strings.Contains(syn.Error(), "end of JSON") {
			off++
		}
		line, col := lineCol(data, off)
		return fmt.Errorf("%s:%d:%d: not valid JSON: %s", path, line, col, syn.Error())
	case errors.As(err, &typ):
		line, col := lineCol(data, typ.Offset-1)
		return fmt.Errorf("%s:%d:%d: expected a JSON object", path, line, col)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}

type diags struct {
	path string
	list []Diagnostic
}

func (d *diags) add(where, format string, args ...any) {
	d.list = append(d.list, Diagnostic{Path: d.path, Where: where, Message: fmt.Sprintf(format, args...)})
}

func parsePermissions(d *diags, raw json.RawMessage) Permissions {
	var p struct {
		Allow, Deny, Ask []string
		DefaultMode      string `json:"defaultMode"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		d.add("permissions", "not used: expected {\"allow\": [...], \"deny\": [...], \"ask\": [...]} of strings")
		return Permissions{}
	}
	clean := func(kind string, rules []string) []string {
		var out []string
		for i, r := range rules {
			r = strings.TrimSpace(r)
			if r == "" {
				d.add(fmt.Sprintf("permissions.%s[%d]", kind, i), "empty rule ignored")
				continue
			}
			out = append(out, r)
		}
		return out
	}
	return Permissions{
		Allow:       clean("allow", p.Allow),
		Deny:        clean("deny", p.Deny),
		Ask:         clean("ask", p.Ask),
		DefaultMode: p.DefaultMode,
	}
}

func parseEnabled(d *diags, raw json.RawMessage) []PluginSwitch {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		d.add("enabledPlugins", "not used: expected an object of \"plugin@marketplace\": true|false")
		return nil
	}
	var out []PluginSwitch
	for k, v := range m {
		b, ok := v.(bool)
		if !ok {
			d.add("enabledPlugins."+k, "not used: expected true or false")
			continue
		}
		out = append(out, PluginSwitch{Key: k, Enabled: b})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// A Source is a settings file to read.
type Source struct {
	Path  string
	Scope Scope
}

// Sources are Claude Code's settings files for a workspace and a home
// folder, lowest precedence first. An empty home or workspace leaves its
// files out.
func Sources(home, workspace string) []Source {
	var out []Source
	if home != "" {
		out = append(out, Source{filepath.Join(home, ".claude", "settings.json"), ScopeUser})
	}
	if workspace != "" {
		out = append(out,
			Source{filepath.Join(workspace, ".claude", "settings.json"), ScopeProject},
			Source{filepath.Join(workspace, ".claude", "settings.local.json"), ScopeLocal})
	}
	return out
}

// Options say how [Load] reads and which files it honours.
type Options struct {
	// Workspace is the folder a project file's real path must lie in.
	Workspace string
	// Forbidden are the [autonomy].forbidden_paths, which no project file
	// may be read from.
	Forbidden confine.Forbidden
	// Trusted is the workspace's trust decision.
	Trusted bool
}

// Load reads the sources that exist. A user file may be a link to anywhere
// (dotfile managers link it); a project file must be a regular file inside
// the workspace and outside forbidden_paths. A file that cannot be read or
// parsed is a diagnostic; the others still count.
func Load(sources []Source, opt Options) *Set {
	set := &Set{Trusted: opt.Trusted}
	for _, src := range sources {
		ro := confine.Options{Max: MaxFile, Unconfined: true}
		if src.Scope.Project() {
			ro = confine.Options{Roots: []string{opt.Workspace}, Forbidden: opt.Forbidden, Max: MaxFile}
		}
		data, err := confine.Read(src.Path, ro)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			set.Diagnostics = append(set.Diagnostics, Diagnostic{Path: src.Path, Message: "not read: " + confine.Why(err)})
			set.Unusable = append(set.Unusable, src.Path)
			continue
		}
		s, diags, err := Parse(src.Path, src.Scope, data)
		if err != nil {
			set.Diagnostics = append(set.Diagnostics, Diagnostic{Message: err.Error() + " (file not used)"})
			set.Unusable = append(set.Unusable, src.Path)
			continue
		}
		set.Diagnostics = append(set.Diagnostics, diags...)
		set.Files = append(set.Files, s)
	}
	return set
}

// A Set is the settings files of a session and the trust decision that says
// which of their parts count.
type Set struct {
	// Files are the files read, lowest precedence first.
	Files []*Settings
	// Unusable are the files that exist but could not be read or parsed.
	// What they say is unknown, so the decisions they could narrow fail
	// closed: no installed plugin is on while one is unusable.
	Unusable []string
	// Trusted is the workspace's trust decision.
	Trusted bool
	// Diagnostics are the files and parts not used.
	Diagnostics []Diagnostic
}

// honoured reports whether s's hooks and allow rules count.
func (set *Set) honoured(s *Settings) bool { return set.Trusted || !s.Scope.Project() }

// HookFiles are the files whose hooks run: the user's, and the project's in
// a trusted workspace.
func (set *Set) HookFiles() []*Settings {
	var out []*Settings
	for _, s := range set.Files {
		if len(s.Hooks) > 0 && set.honoured(s) {
			out = append(out, s)
		}
	}
	return out
}

// HooksDisabled reports whether the user's own file says
// `"disableAllHooks": true`: then no hook runs, whatever file or skill
// declares it. A repository's file cannot turn the user's hooks off.
func (set *Set) HooksDisabled() bool {
	for _, s := range set.Files {
		if s.Scope == ScopeUser && s.DisableAllHooks {
			return true
		}
	}
	return false
}

// A Rule is one permission rule and the file it comes from.
type Rule struct {
	// Kind is "allow", "deny" or "ask".
	Kind string
	// Text is the rule as written, such as `Bash(npm test:*)`.
	Text string
	// Path is the settings file; Scope its scope.
	Path  string
	Scope Scope
}

// Rules are the permission rules that count, deny first, then ask, then
// allow, each in file order: deny and ask from every file (they only
// narrow), allow from the user's file and a trusted project's.
func (set *Set) Rules() []Rule {
	var out []Rule
	for _, kind := range []string{"deny", "ask", "allow"} {
		for _, s := range set.Files {
			var texts []string
			switch kind {
			case "deny":
				texts = s.Permissions.Deny
			case "ask":
				texts = s.Permissions.Ask
			case "allow":
				if !set.honoured(s) {
					continue
				}
				texts = s.Permissions.Allow
			}
			for _, t := range texts {
				out = append(out, Rule{Kind: kind, Text: t, Path: s.Path, Scope: s.Scope})
			}
		}
	}
	return out
}

// Ignored describes what the untrusted workspace's files hold that does not
// count (hooks, allow rules, plugins enabled), one line per file, for the
// start-up "ignored" line; empty in a trusted workspace.
func (set *Set) Ignored() []string {
	var out []string
	for _, s := range set.Files {
		if set.honoured(s) {
			continue
		}
		var parts []string
		if n := s.Hooks.Count(); n > 0 {
			parts = append(parts, plural(n, "hook"))
		}
		if n := len(s.Permissions.Allow); n > 0 {
			parts = append(parts, plural(n, "allow rule"))
		}
		if n := countEnabled(s.EnabledPlugins); n > 0 {
			parts = append(parts, plural(n, "enabled plugin"))
		}
		if len(parts) > 0 {
			out = append(out, s.Path+" ("+strings.Join(parts, ", ")+")")
		}
	}
	return out
}

func countEnabled(sw []PluginSwitch) int {
	n := 0
	for _, p := range sw {
		if p.Enabled {
			n++
		}
	}
	return n
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// PluginEnabled reports whether the plugin with the key "name@marketplace"
// is on ([Set.PluginDecision]).
func (set *Set) PluginEnabled(key string) bool {
	on, _ := set.PluginDecision(key)
	return on
}
