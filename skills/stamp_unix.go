//go:build unix

package skills

import (
	"io/fs"
	"syscall"
)

// fileIdentity returns the device and inode of a stat result: a file
// replaced by a rename (how editors save) has a new inode even when its size
// and mtime match the old one.
func fileIdentity(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // Dev is int32 on some systems
	}
	return 0, 0
}
