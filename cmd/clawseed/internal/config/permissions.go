package config

import (
	"slices"

	"github.com/BurntSushi/toml"
)

// Permissions is the [permissions] table: permission rules in Claude
// Code's syntax (`Bash(npm test:*)`, `Read(./secrets/**)`,
// `WebFetch(domain:example.com)`, `mcp__github`), as in its settings.json,
// for those who keep them with the rest of clawseed's configuration. Their
// meaning is the permissions package's; the session applies them with
// the rules of Claude Code's settings files (app/permissions.go).
//
// Unlike other lists, each layer adds to the lists of the layers below it
// rather than replacing them: a rule is the decision of the file that
// wrote it, and a project file must not erase the user's deny rules (nor,
// trusted, their allow rules). An untrusted project file's allow rules are
// ignored (projectRules); its deny and ask rules count, since they only
// narrow.
type Permissions struct {
	// Allow rules pre-approve matching calls (never beyond the autonomy
	// level, the sandbox or the workspace).
	Allow []string `toml:"allow"`
	// Deny rules refuse matching calls, whatever else says.
	Deny []string `toml:"deny"`
	// Ask rules ask before every matching call, even where the autonomy
	// level would not.
	Ask []string `toml:"ask"`
}

// A PermissionRule is one [permissions] entry and where it was set.
type PermissionRule struct {
	// Kind is "allow", "deny" or "ask".
	Kind string
	// Text is the rule as written (after ${VAR} expansion).
	Text string
	// File and Line locate it.
	File string
	Line int
	// Project is set for a rule of the workspace's project file.
	Project bool
	// Ignored says why the rule does not count ("untrusted workspace: may
	// not approve tools in advance"), "" when it does.
	Ignored string
}

// PermissionRules are the [permissions] entries of every file, in layer
// order and, within a file, deny, ask, then allow; those an untrusted
// project file set in vain have Ignored set.
func (c *Config) PermissionRules() []PermissionRule { return slices.Clone(c.permissionRules) }

// addPermissions records the [permissions] entries of the file just
// applied, with its file and line, and makes each list the union of the
// layers: the decoder replaced the lists the file set, and restrict put
// back what an untrusted project file may not set (its allow rules).
// before is [permissions] as the lower layers left it, decoded as the
// file set it.
func (d *decoder) addPermissions(tree map[string]any, before, decoded Permissions, project bool) {
	table, _ := tree["permissions"].(map[string]any)
	c := &d.c.Permissions
	for _, l := range []struct {
		kind           string
		now, prev, set *[]string
	}{
		{"deny", &c.Deny, &before.Deny, &decoded.Deny},
		{"ask", &c.Ask, &before.Ask, &decoded.Ask},
		{"allow", &c.Allow, &before.Allow, &decoded.Allow},
	} {
		if _, set := table[l.kind]; !set {
			continue
		}
		key := toml.Key{"permissions", l.kind}
		merged := slices.Clone(*l.prev)
		for _, text := range *l.set {
			if slices.Contains(merged, text) {
				continue
			}
			rule := PermissionRule{Kind: l.kind, Text: text, File: d.file, Line: d.line(key), Project: project}
			if !slices.Contains(*l.now, text) {
				rule.Ignored = d.ignoredWhy(key)
			} else {
				merged = append(merged, text)
			}
			d.c.permissionRules = append(d.c.permissionRules, rule)
		}
		*l.now = merged
	}
}

// ignoredWhy is why restrict dropped key of this file.
func (d *decoder) ignoredWhy(key toml.Key) string {
	for _, ig := range slices.Backward(d.c.Ignored) {
		if ig.File == d.file && ig.Key == key.String() {
			return ig.Why
		}
	}
	return "not applied"
}
