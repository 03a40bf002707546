//go:build unix

package session

import (
	"errors"
	"os"
	"syscall"
)

// lock takes an exclusive advisory lock on f without waiting. The kernel
// drops it when the file is closed or the process dies, even by SIGKILL, so
// a crashed session never stays locked.
func lock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrInUse
	}
	return err
}
