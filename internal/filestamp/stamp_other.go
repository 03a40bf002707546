//go:build !unix

package filestamp

import "io/fs"

// Identity has no portable inode or change time here; size and mtime
// must do.
func Identity(fs.FileInfo) (dev, ino uint64, ctime int64) { return 0, 0, 0 }
