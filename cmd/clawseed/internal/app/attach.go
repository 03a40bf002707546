package app

import (
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
)

// MaxAttachment bounds a file attached with @path (the read tool's own
// limit would page it; an attachment is sent whole or not at all).
const MaxAttachment = 256 << 10

// ReadAttachment reads a workspace file the user named with @path in chat,
// through the file tools' read check ([confine.Read]: a regular file
// whose real path is inside the workspace and outside forbidden_paths, at
// most MaxAttachment bytes). rel is relative to the workspace.
func (s *Session) ReadAttachment(rel string) (string, error) {
	data, err := confine.Read(s.attachPath(rel), s.sb.ConfineOptions(MaxAttachment))
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// maxListedFiles bounds the files offered for @path completion.
const maxListedFiles = 20000

// WorkspaceFiles lists the workspace's files for @path completion,
// slash-separated and sorted: hidden files and folders, node_modules and
// vendor are left out, links are not followed, and the walk stops at
// maxListedFiles. Only names are listed; contents are read by
// [Session.ReadAttachment].
func (s *Session) WorkspaceFiles() []string {
	root := s.cfg.Workspace
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if p != root && (strings.HasPrefix(name, ".") || (d.IsDir() && (name == "node_modules" || name == "vendor"))) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, p)
			if err == nil {
				out = append(out, filepath.ToSlash(rel))
			}
			if len(out) >= maxListedFiles {
				return filepath.SkipAll
			}
		}
		return nil
	})
	sort.Strings(out)
	return out
}
