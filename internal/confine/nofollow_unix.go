//go:build unix

package confine

import (
	"os"
	"syscall"
)

// OpenNoFollow opens path for reading without following a symbolic link
// at its last element and without blocking on a FIFO. It is for the files
// of a tree clawseed copies or hashes whole (an installed skill, its lock
// file), where a link is refused rather than resolved; the caller checks
// on the handle that it is a regular file.
func OpenNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
