//go:build unix

package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lockDir takes an exclusive flock on <dir>/.lock. flock belongs to the open
// file, so it excludes other processes and other Stores of this process;
// polling with LOCK_NB keeps the wait cancellable.
func lockDir(ctx context.Context, dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("memory: create %s: %w", dir, err)
	}
	path := dir + string(os.PathSeparator) + ".lock"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("memory: open lock %s: %w", path, err)
	}
	wait := time.Millisecond
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, fmt.Errorf("memory: lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("memory: waiting for lock %s: %w", path, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(wait*2, 20*time.Millisecond)
	}
	return func() {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}
