package flock

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// staleAfter is the age at which [lockPIDFile] takes a lock file for one
// a crashed process left behind.
const staleAfter = 30 * time.Second

// lockPIDFile is [LockContext] where flock does not exist: the lock is the
// file at path, created exclusively (holding the holder's pid, for whoever
// looks) and removed on unlock. A file older than stale is removed, since
// its holder may have crashed. It is built everywhere so that it is tested
// everywhere.
func lockPIDFile(ctx context.Context, path string, stale time.Duration) (unlock func(), err error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > stale {
			os.Remove(path)
			continue
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for lock %s: %w", path, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
