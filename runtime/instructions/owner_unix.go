//go:build unix

package instructions

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByUser reports whether the user running clawseed owns fi, as git
// requires of a repository it enters (safe.directory): another user's .git
// above the workspace (a shared /tmp) makes no repository of it.
func ownedByUser(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Getuid()
}
