package skills

import (
	"path/filepath"
	"strings"
)

// StandardRoots returns the on-disk skill roots of SPEC §4.2 in priority
// order, highest first: the project's .clawseed/skills, .claude/skills and
// .agents/skills, then $CLAWSEED_HOME/skills, ~/.claude/skills,
// ~/.agents/skills, then each extra root ([skills].extra_roots) in order.
// It is the [Layout] with only those four fields set.
func StandardRoots(workspace, clawseedHome, home string, extra []string) []Root {
	return Layout{Workspace: workspace, ClawseedHome: clawseedHome, Home: home, Extra: extra}.Roots()
}

// A Layout says where a session's skill folders are. Every discovery's
// roots come from [Layout.Roots], so the order of precedence and the
// folder each root must stay inside are decided here alone.
type Layout struct {
	// Workspace, ClawseedHome ("" means ~/.clawseed) and Home are the
	// workspace, $CLAWSEED_HOME and the user's home folder.
	Workspace, ClawseedHome, Home string
	// Extra are [skills].extra_roots.
	Extra []string
	// Repo is the repository root (the nearest folder at or above the
	// workspace holding .git); the project skill folders of the folders
	// between it and the workspace are roots too, below the workspace's.
	Repo string
	// AddDirs are the --add-dir folders ([workspace].add_dirs): their
	// project skill folders follow the workspace's, with the same trust.
	AddDirs []string
	// Managed are the managed (policy) skill folders, /etc/clawseed/skills
	// and $CLAWSEED_MANAGED_DIR: first of all, so nothing shadows them.
	Managed []string
	// Explicit are the skills named by --skill PATH: a skill folder, or a
	// folder of skills.
	Explicit []string
	// Bare (--bare) turns automatic discovery off: only Managed, Explicit
	// and AddDirs are roots.
	Bare bool
}

// userSource maps a project folder's source to the user's, for a project
// folder that is the home folder.
func userSource(s Source) Source {
	switch s {
	case SourceProject:
		return SourceUser
	case SourceProjectClaude:
		return SourceUserClaude
	case SourceProjectAgents:
		return SourceUserAgents
	}
	return s
}

// ManagedSkillsDir is the managed skills folder every session reads.
const ManagedSkillsDir = "/etc/clawseed/skills"

// Roots returns the layout's roots in priority order, highest first:
// managed folders, explicit --skill paths, the workspace's project
// folders, those of each --add-dir folder, those of the parent folders
// up to the repository root (nearest first), the user's folders, the
// extra roots, then the Claude Code commands folders. Built-in skills
// are not a root; see [Options.Builtins].
//
// Extra roots have a leading ~ expanded with home and are resolved against
// workspace when relative. Every path is absolute and clean; a path listed
// twice is kept at its first (highest) position. Roots that need an empty
// workspace or home are left out.
//
// Each project and user root carries the directory it must stay inside
// after its links are resolved ([Root.Within]); roots the user or the
// administrator named (extra, explicit, managed) carry none.
//
// The Claude Code commands directories come last, <workspace>/.claude/commands
// then ~/.claude/commands ([Root.Commands]): a command never shadows a skill
// of any root, built-ins included (see [Discover]), so only their order
// between themselves matters.
func (l Layout) Roots() []Root {
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
	workspace, home := l.Workspace, l.Home

	// Policy first: the administrator's skills win every clash.
	for _, m := range l.Managed {
		add(m, SourceManaged, "", false)
	}
	for _, e := range l.Explicit {
		add(resolveExtraRoot(e, workspace, home), SourceExtra, "", false)
	}
	projectFolders := func(dir string) {
		if dir == "" {
			return
		}
		// A folder that is the home folder has the user's own folders as
		// its project folders: they are the user's skills, not a
		// repository's.
		isHome := home != "" && filepath.Clean(dir) == filepath.Clean(home)
		for _, f := range projectSkillFolders() {
			src := f.source
			if isHome {
				src = userSource(src)
			}
			add(filepath.Join(dir, f.dir), src, dir, false)
		}
	}
	if !l.Bare {
		projectFolders(workspace)
	}
	// Folders the user added are project folders: a repository put them
	// there, so the workspace's trust decides what their skills may do.
	for _, d := range l.AddDirs {
		projectFolders(resolveExtraRoot(d, workspace, home))
	}
	if l.Bare {
		return roots
	}
	for _, d := range parentFolders(l.Repo, workspace, home) {
		projectFolders(d)
	}
	clawseedHome := l.ClawseedHome
	if clawseedHome == "" {
		clawseedHome = under(home, ".clawseed")
	}
	add(under(clawseedHome, "skills"), SourceUser, clawseedHome, false)
	add(under(home, ".claude", "skills"), SourceUserClaude, home, false)
	add(under(home, ".agents", "skills"), SourceUserAgents, home, false)
	for _, e := range l.Extra {
		// Extra roots are named by the user's configuration; where they
		// lead is the user's choice.
		add(resolveExtraRoot(e, workspace, home), SourceExtra, "", false)
	}
	commands := SourceProjectClaude
	if workspace != "" && home != "" && filepath.Clean(workspace) == filepath.Clean(home) {
		commands = SourceUserClaude
	}
	add(under(workspace, ".claude", "commands"), commands, workspace, true)
	add(under(home, ".claude", "commands"), SourceUserClaude, home, true)
	return roots
}

// parentFolders returns the folders above workspace up to repo, nearest
// first: none when repo is "" or not above the workspace. The home folder
// and what lies above it are left out: its skill folders are the user's.
func parentFolders(repo, workspace, home string) []string {
	if repo == "" || workspace == "" {
		return nil
	}
	repo, workspace = filepath.Clean(repo), filepath.Clean(workspace)
	if repo == workspace || !within(repo, workspace) {
		return nil
	}
	var out []string
	for d := filepath.Dir(workspace); ; d = filepath.Dir(d) {
		if home != "" && within(d, filepath.Clean(home)) {
			return out
		}
		out = append(out, d)
		if d == repo || filepath.Dir(d) == d {
			return out
		}
	}
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
