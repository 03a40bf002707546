package skills

import (
	"os"
	"path/filepath"
	"strings"
)

// projectSkillFolders are the skill folders of a project folder, in the
// order of their sources' precedence.
func projectSkillFolders() [3]projectFolder {
	return [3]projectFolder{
		{filepath.Join(".clawseed", "skills"), SourceProject},
		{filepath.Join(".claude", "skills"), SourceProjectClaude},
		{filepath.Join(".agents", "skills"), SourceProjectAgents},
	}
}

// A projectFolder is one skill folder of a project folder.
type projectFolder struct {
	dir    string
	source Source
}

// NestedRoots returns the project skill folders that exist between the
// workspace and path, a file or folder a tool read, wrote, edited or
// searched (absolute, or relative to the workspace): for each folder
// below the workspace down to path's own (path itself when it is a
// folder), outermost first, its .clawseed/skills, .claude/skills and
// .agents/skills. The workspace's own folders are roots already and are
// not returned. The way down stops at a hidden folder, node_modules, or a
// folder the workspace's .gitignore files ignore, as the `paths` walk
// does: a build output or a vendored tree brings no skills. A path outside
// the workspace has none.
//
// Each root carries the workspace as [Root.Within] and the folder as
// [Root.Nested]: it is walked, limited and trusted like the workspace's
// own folders. A skill folder whose .clawseed, .claude, .agents or skills
// is a link is passed by (namedAsSkillFolder).
func NestedRoots(workspace, path string) []Root {
	if workspace == "" || path == "" {
		return nil
	}
	workspace = filepath.Clean(workspace)
	if !filepath.IsAbs(path) {
		path = filepath.Join(workspace, path)
	}
	path = filepath.Clean(path)
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		path = filepath.Dir(path)
	}
	rel, err := filepath.Rel(workspace, path)
	if err != nil || rel == "." || !within(workspace, path) {
		return nil
	}
	var roots []Root
	var stack []*ignoreFile
	if f := readGitignore(filepath.Join(workspace, ".gitignore"), "", workspace); f != nil {
		stack = append(stack, f)
	}
	dir, relDir := workspace, ""
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if _, skip := skipRuleFor(part); skip {
			return roots
		}
		dir = filepath.Join(dir, part)
		if relDir == "" {
			relDir = part
		} else {
			relDir += "/" + part
		}
		if ignored(stack, relDir, true) {
			return roots
		}
		if f := readGitignore(filepath.Join(dir, ".gitignore"), relDir, workspace); f != nil {
			stack = append(stack, f)
		}
		for _, f := range projectSkillFolders() {
			p := filepath.Join(dir, f.dir)
			if fi, err := os.Stat(p); err == nil && fi.IsDir() && namedAsSkillFolder(dir, p, f.dir) {
				roots = append(roots, Root{Path: p, Source: f.source, Within: workspace, Nested: relDir})
			}
		}
	}
	return roots
}

// namedAsSkillFolder reports whether the skill folder p (dir's sub, such
// as .claude/skills) is where its name says, links resolved: dir's real
// path joined with sub. A nested folder's files are control paths by
// their names at any depth (tools.ControlPaths: a write there is always
// asked); a .claude or skills that is a link would make some other
// folder of the workspace (data/, which the model may write without
// asking) a skill folder, and a file the model wrote there a skill whose
// commands run at activation.
func namedAsSkillFolder(dir, p, sub string) bool {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(p)
	return err == nil && real == filepath.Join(realDir, sub)
}
