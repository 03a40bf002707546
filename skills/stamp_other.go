//go:build !unix

package skills

import "io/fs"

// fileIdentity has no portable inode or change time here; size and mtime
// must do.
func fileIdentity(fs.FileInfo) (dev, ino uint64, ctime int64) { return 0, 0, 0 }
