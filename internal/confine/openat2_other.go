//go:build unix && !linux

package confine

import "golang.org/x/sys/unix"

// openat2Beneath: there is no openat2 here; the caller walks.
func openat2Beneath(int, string) (int, error) { return -1, unix.ENOSYS }
