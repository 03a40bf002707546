//go:build unix

package trust

import (
	"errors"
	"os"
	"syscall"
)

// lockFile waits for an exclusive flock on path (created if needed). The
// kernel drops it when the process dies, so a crash never leaves the store
// locked.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
