// Package atomicfile replaces files whole: a reader sees the old bytes or
// the new ones, never half a file, and a crash leaves the old file.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write replaces path with data, with mode perm: a temporary file in the
// same folder, synced, then renamed over path. Errors name path.
func Write(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, true)
}

// WriteCache replaces path like [Write] but does not sync the data first,
// for a file that is only a cache of what can be computed again (the
// skills' parse cache, written at every start that changed it): a sync
// costs milliseconds, and after a crash the reader gets the old file, the
// new one or an empty one, which it must treat as no cache. Temporary
// files a crash left behind are named [TempPattern].
func WriteCache(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

// TempPattern is the glob of the temporary files [Write] and [WriteCache]
// make for path (a crash between create and rename leaves one).
func TempPattern(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
}

func write(path string, data []byte, perm os.FileMode, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // nothing to remove after the rename
	// The mode is set, not left to CreateTemp's 0600 or the umask: the
	// trust store must stay private, a skill's files readable.
	err = tmp.Chmod(perm)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil && sync {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
