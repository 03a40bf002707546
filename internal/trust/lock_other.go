//go:build !unix

package trust

import (
	"os"
	"sync"
)

// held stands in for flock where it does not exist: it orders the changes
// of one process; two processes are not excluded.
var held sync.Map

// lockFile creates path and takes an in-process lock on it; see the Unix
// version.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	f.Close()
	v, _ := held.LoadOrStore(path, &sync.Mutex{})
	mu := v.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock, nil
}
