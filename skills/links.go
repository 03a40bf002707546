package skills

import (
	"fmt"
	"io/fs"
	"path/filepath"
)

// The link rule: where a symbolic link met in a skill root may lead. It
// lives here and only here; the walk (directory links), the skill's files
// (SKILL.md, manifest.toml) and [Reread] all ask it.
//
//   - A project root (the workspace's .clawseed/, .claude/, .agents/
//     folders) is a repository's, that is untrusted input: its links must
//     stay inside the root.
//   - An installed plugin's links must stay inside the plugin (a plugin
//     found inside a skill root follows that root's rule).
//   - A user root (the home folder's roots and [skills].extra_roots) is
//     the user's own: its links may also lead anywhere inside the home
//     folder or a configured extra root, where dotfiles tools (GNU stow,
//     chezmoi, yadm) keep the real folders. They are
//     [Options.UserLinkRoots].
//   - Whatever the root, a link that leaves it never leads under an
//     [autonomy].forbidden_paths entry ([Options.Forbidden]): a skill
//     would bring that file into the model's prompt.

// Rule names, as `skills doctor` prints them.
const (
	ruleProject = "a project skill root's links must stay inside it"
	rulePlugin  = "an installed plugin's links must stay inside it"
	ruleUser    = "a user skill root's links may lead anywhere inside the home folder or an extra_roots entry"
)

// userRoot reports whether the links of a root of source s follow the user
// rule: the home folder's roots and the extra roots.
func (s Source) userRoot() bool {
	switch s {
	case SourceUser, SourceUserClaude, SourceUserAgents, SourceExtra:
		return true
	}
	return false
}

// UserLinkRoots returns the folders a symbolic link in a user skill root
// may lead into besides the root itself: the home folder and each extra
// root ([skills].extra_roots, resolved as [StandardRoots] resolves them).
func UserLinkRoots(workspace, home string, extra []string) []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		out = append(out, filepath.Clean(p))
	}
	add(home)
	for _, e := range extra {
		add(resolveExtraRoot(e, workspace, home))
	}
	return out
}

// linkBounds sets rw.bounds: the real folders a path in the root may lie
// in, rw.realPath last. For a user root the link roots come first, so
// that a skill in ~/.claude/skills is bounded by the home folder and its
// SKILL.md may be a chezmoi link elsewhere in it.
func (w *walker) linkBounds(rw *rootWalk) {
	rw.rule = ruleProject
	switch {
	case rw.root.Plugin != "" || rw.root.Source == SourceClaudePlugin:
		rw.rule = rulePlugin
	case rw.root.Source.userRoot():
		rw.rule = ruleUser
		for _, p := range w.userLinkRoots {
			real, ok := w.realWithin[p]
			if !ok {
				real = p
				if r, err := w.cache.evalSymlinks(p); err == nil {
					real = r
				}
				w.realWithin[p] = real
			}
			rw.bounds = append(rw.bounds, real)
		}
	}
	rw.bounds = append(rw.bounds, rw.realPath)
}

// boundOf returns the bound real lies in: the folder the files of a skill
// directory at real must stay inside. ok is false when real lies in none,
// and the link that led there is refused.
func (rw *rootWalk) boundOf(real string) (string, bool) {
	for _, b := range rw.bounds {
		if within(b, real) {
			return b, true
		}
	}
	return "", false
}

// followLink decides whether the symbolic link child, resolved to target,
// is followed, with a diagnostic that names the rule applied whenever the
// link leaves the root.
func (w *walker) followLink(rw *rootWalk, child, target string) bool {
	if within(rw.realPath, target) {
		return true
	}
	if !w.linkNotForbidden(rw, child, target) {
		return false
	}
	bound, ok := rw.boundOf(target)
	if !ok {
		w.diag(child, SeverityError, fmt.Sprintf("symbolic link to %s leaves the skill root %s; refused (%s)", target, rw.root.Path, rw.rule))
		return false
	}
	w.diag(child, SeverityInfo, fmt.Sprintf("symbolic link to %s followed: it leaves the skill root %s but stays inside %s (%s)", target, rw.root.Path, bound, rw.rule))
	return true
}

// linkNotForbidden refuses, with a diagnostic, a symbolic link child that
// leaves its root for target under a forbidden_paths entry.
func (w *walker) linkNotForbidden(rw *rootWalk, child, target string) bool {
	if within(rw.realPath, target) || !w.forbidden.Covers(target) {
		return true
	}
	w.diag(child, SeverityError, fmt.Sprintf("symbolic link to %s leaves the skill root %s for a path under [autonomy].forbidden_paths; refused", target, rw.root.Path))
	return false
}

// fileLinksAllowed applies [walker.linkNotForbidden] to the skill files
// (SKILL.md, manifest.toml) of a skill directory that are links; a
// refused one refuses the skill.
func (w *walker) fileLinksAllowed(rw *rootWalk, dir string, entries []fs.DirEntry) bool {
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink == 0 || e.Name() != skillFileName && e.Name() != manifestFileName {
			continue
		}
		w.cache.opaque("a symbolic link")
		path := joinPath(dir, e.Name())
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			continue // loadSkillDir reports it
		}
		if !w.linkNotForbidden(rw, path, target) {
			return false
		}
	}
	return true
}
