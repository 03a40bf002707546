//go:build unix

package cron

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on path (created if needed): waiting
// for it when wait is set, else failing with [ErrRunning] when it is held.
// The kernel drops the lock when the process dies, even by SIGKILL, so a
// crashed run never leaves its job locked. Each call opens the file anew,
// so two goroutines of one process exclude each other like two processes.
func lockFile(path string, wait bool) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrRunning
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
