//go:build !unix

package confine

import (
	"fmt"
	"os"
)

// OpenNoFollow opens path for reading, failing when it is a symbolic link
// or not a regular file (checked before the open: there is no O_NOFOLLOW
// here).
func OpenNoFollow(path string) (*os.File, error) {
	if info, err := os.Lstat(path); err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return os.Open(path)
}
