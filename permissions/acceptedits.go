package permissions

import (
	"path/filepath"
	"slices"
	"strings"
)

// editTools are the tools whose calls accept-edits mode approves: Claude
// Code's Write, Edit and MultiEdit. Other tools that write files (memory,
// skill_create, backups) write outside the workspace's files, and are
// asked about as before.
var editTools = []string{"file_write", "file_edit"}

// WorkspaceEdit reports whether s, a call as permission rules see it, only
// edits files inside workspace: a call of an edit tool that names the
// files it writes, every form of each (as named, links resolved) inside
// the workspace. A link out of the workspace, or a workspace path that is
// not absolute, makes it false: the call is then asked about as usual.
func WorkspaceEdit(s Subject, workspace string) bool {
	if !slices.Contains(editTools, s.Tool) || len(s.Writes) == 0 || !filepath.IsAbs(workspace) {
		return false
	}
	ws := filepath.Clean(workspace)
	return !slices.ContainsFunc(s.Writes, func(w string) bool {
		rel, err := filepath.Rel(ws, w)
		return err != nil || !filepath.IsAbs(w) || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
	})
}
