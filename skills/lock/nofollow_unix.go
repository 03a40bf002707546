//go:build unix

package lock

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading, failing when it is a symbolic link.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
