//go:build unix

package filestamp

import (
	"io/fs"
	"syscall"
)

// Identity returns the device, inode and change time of a stat result:
// a file replaced by a rename (how editors save) has a new inode even when
// its size and mtime match the old one, and a chmod or chown that leaves
// size and mtime alone still moves the change time.
func Identity(fi fs.FileInfo) (dev, ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino), statCtime(st) //nolint:unconvert // Dev is int32 on some systems
	}
	return 0, 0, 0
}
