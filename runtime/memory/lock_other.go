//go:build !unix

package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// lockDir on systems without flock creates <dir>/.lock.pid exclusively and
// removes it on unlock. A lock left by a crashed process is broken after
// staleLock, so a crash cannot block memory writes forever.
func lockDir(ctx context.Context, dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("memory: create %s: %w", dir, err)
	}
	path := dir + string(os.PathSeparator) + ".lock.pid"
	const staleLock = 30 * time.Second
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("memory: lock %s: %w", path, err)
		}
		if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > staleLock {
			os.Remove(path)
			continue
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("memory: waiting for lock %s: %w", path, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
