package skills

import (
	"path/filepath"
	"strings"
)

// StandardRoots returns the on-disk skill roots of SPEC §4.2 in priority
// order, highest first: the project's .clawseed/skills, .claude/skills and
// .agents/skills, then $CLAWSEED_HOME/skills, ~/.claude/skills,
// ~/.agents/skills, then each extra root ([skills].extra_roots) in order.
// Built-in skills are not a root; see [Options.Builtins].
//
// clawseedHome "" means ~/.clawseed. Extra roots have a leading ~ expanded
// with home and are resolved against workspace when relative. Every path is
// absolute and clean; a path listed twice is kept at its first (highest)
// position. Roots that need an empty workspace or home are left out.
//
// Each standard root carries the directory it must stay inside after its
// links are resolved ([Root.Within]); extra roots carry none.
//
// The Claude Code commands directories come last, <workspace>/.claude/commands
// then ~/.claude/commands ([Root.Commands]): a command never shadows a skill
// of any root, built-ins included (see [Discover]), so only their order
// between themselves matters.
func StandardRoots(workspace, clawseedHome, home string, extra []string) []Root {
	var roots []Root
	seen := map[string]bool{}
	add := func(p string, src Source, within string, commands bool) {
		if p == "" {
			return
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		p = filepath.Clean(p)
		if within != "" {
			if abs, err := filepath.Abs(within); err == nil {
				within = abs
			}
		}
		if seen[p] {
			return
		}
		seen[p] = true
		roots = append(roots, Root{Path: p, Source: src, Within: within, Commands: commands})
	}
	under := func(base string, parts ...string) string {
		if base == "" {
			return ""
		}
		return filepath.Join(append([]string{base}, parts...)...)
	}

	// A workspace that is the home folder has the user's own folders as its
	// project folders: they are the user's skills, not a repository's.
	project, projectClaude, projectAgents := SourceProject, SourceProjectClaude, SourceProjectAgents
	if workspace != "" && home != "" && filepath.Clean(workspace) == filepath.Clean(home) {
		project, projectClaude, projectAgents = SourceUser, SourceUserClaude, SourceUserAgents
	}
	add(under(workspace, ".clawseed", "skills"), project, workspace, false)
	add(under(workspace, ".claude", "skills"), projectClaude, workspace, false)
	add(under(workspace, ".agents", "skills"), projectAgents, workspace, false)
	if clawseedHome == "" {
		clawseedHome = under(home, ".clawseed")
	}
	add(under(clawseedHome, "skills"), SourceUser, clawseedHome, false)
	add(under(home, ".claude", "skills"), SourceUserClaude, home, false)
	add(under(home, ".agents", "skills"), SourceUserAgents, home, false)
	for _, e := range extra {
		// Extra roots are named by the user's configuration; where they
		// lead is the user's choice.
		add(resolveExtraRoot(e, workspace, home), SourceExtra, "", false)
	}
	add(under(workspace, ".claude", "commands"), projectClaude, workspace, true)
	add(under(home, ".claude", "commands"), SourceUserClaude, home, true)
	return roots
}

// resolveExtraRoot expands ~ and resolves a relative path against workspace.
// It returns "" when the path cannot be resolved (~ without a home).
func resolveExtraRoot(p, workspace, home string) string {
	p = strings.TrimSpace(p)
	switch {
	case p == "":
		return ""
	case p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"+string(filepath.Separator)):
		if home == "" {
			return ""
		}
		return filepath.Join(home, p[1:])
	case filepath.IsAbs(p):
		return p
	case workspace == "":
		return ""
	}
	return filepath.Join(workspace, p)
}

// PluginRoot is the root of a plugin installed with Claude Code: dir is the
// plugin's folder (its installPath), name the name it was installed under
// (the "name" of "name@marketplace"), which names its skills when its
// plugin.json does not. The list of installed plugins is the user's own
// file, so where the folder lies is the user's choice (no [Root.Within]);
// links inside the plugin must still stay inside it.
func PluginRoot(name, dir string) Root {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return Root{Path: filepath.Clean(dir), Source: SourceClaudePlugin, Plugin: name}
}

// WithPlugins returns roots with the installed plugins' roots added after
// the skill roots (extra roots included) and before the commands
// directories: a plugin's skills are named `plugin:name`, so they clash
// only with a skill that takes such a name, and then the configured root
// wins, with a "shadowed by" diagnostic (Claude Code, too, ranks plugin
// skills last). A plugin whose folder is already a root is left out.
func WithPlugins(roots, plugins []Root) []Root {
	if len(plugins) == 0 {
		return roots
	}
	at := len(roots)
	seen := map[string]bool{}
	for i, r := range roots {
		seen[r.Path] = true
		if r.Commands && at == len(roots) {
			at = i
		}
	}
	out := make([]Root, 0, len(roots)+len(plugins))
	out = append(out, roots[:at]...)
	for _, p := range plugins {
		if !seen[p.Path] {
			seen[p.Path] = true
			out = append(out, p)
		}
	}
	return append(out, roots[at:]...)
}
