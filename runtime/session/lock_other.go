//go:build !unix

package session

import "os"

// lock is a no-op where flock is not available: two processes appending to
// one session are not detected there.
func lock(*os.File) error { return nil }
