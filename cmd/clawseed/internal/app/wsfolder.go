package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// workspaceFolder makes the folder rel (slash-separated, below the
// workspace: ".clawseed/debug") and returns its real path. Each folder on
// the way must be a folder of the workspace, not a link nor a file: a
// cloned repository that ships .clawseed/debug or .clawseed/worktrees as a
// link out of the workspace would otherwise have clawseed write where the
// link leads (the debug log, a subagent's checkout of the repository in
// the user's skills). It is the one place clawseed makes its own folders
// under the workspace's .clawseed/.
func workspaceFolder(workspace, rel string) (string, error) {
	base, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return "", err
	}
	dir, way := base, ""
	for _, part := range strings.Split(rel, "/") {
		dir, way = filepath.Join(dir, part), strings.TrimPrefix(way+"/"+part, "/")
		fi, err := os.Lstat(dir)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
				return "", fmt.Errorf("make %s: %w", rel, err)
			}
			if fi, err = os.Lstat(dir); err != nil {
				return "", fmt.Errorf("make %s: %w", rel, err)
			}
		case err != nil:
			return "", fmt.Errorf("make %s: %w", rel, err)
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("%s is not a folder of the workspace (a link or a file); refused", way)
		}
	}
	return dir, nil
}
