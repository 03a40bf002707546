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
// edits files inside the workspace, given in each of its forms (as named,
// links resolved): a call of an edit tool that names the files it writes,
// every form of each (as named, links resolved) inside one of the
// workspace's forms. A link out of the workspace makes it false, and so
// does a relative path: the call is then asked about as usual.
func WorkspaceEdit(s Subject, workspace ...string) bool {
	if !slices.Contains(editTools, s.Tool) || len(s.Writes) == 0 {
		return false
	}
	return !slices.ContainsFunc(s.Writes, func(w string) bool {
		return !slices.ContainsFunc(workspace, func(ws string) bool { return inside(ws, w) })
	})
}

// inside reports whether the absolute path p is below the absolute
// folder dir (not dir itself).
func inside(dir, p string) bool {
	if !filepath.IsAbs(dir) || !filepath.IsAbs(p) {
		return false
	}
	rel, err := filepath.Rel(filepath.Clean(dir), p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
