//go:build !unix

package skills

import "io/fs"

// fileIdentity has no portable inode here; size and mtime must do.
func fileIdentity(fs.FileInfo) (dev, ino uint64) { return 0, 0 }
