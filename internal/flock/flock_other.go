//go:build !unix

package flock

import (
	"context"
	"os"
	"sync"
)

// held stands in for flock in [Lock] and [TryLock] where it does not
// exist: it orders the goroutines of one process; two processes are not
// excluded.
var held sync.Map

func lock(path string, wait bool) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	f.Close()
	v, _ := held.LoadOrStore(path, &sync.Mutex{})
	mu := v.(*sync.Mutex)
	if wait {
		mu.Lock()
	} else if !mu.TryLock() {
		return nil, ErrHeld
	}
	return mu.Unlock, nil
}

func lockContext(ctx context.Context, path string) (unlock func(), err error) {
	return lockPIDFile(ctx, path+".pid", staleAfter)
}

func tryLockFile(*os.File) error { return nil }
