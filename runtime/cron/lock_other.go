//go:build !unix

package cron

import (
	"os"
	"sync"
)

// held stands in for flock where it does not exist: it keeps one process
// from running a job twice at once, but two processes are not detected.
var held sync.Map

// lockFile creates path and takes an in-process lock on it; see the Unix
// version.
func lockFile(path string, wait bool) (unlock func(), err error) {
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
		return nil, ErrRunning
	}
	return mu.Unlock, nil
}
