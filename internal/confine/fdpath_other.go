//go:build unix && !linux

package confine

// fdPath is not available: the caller resolves the path instead.
func fdPath(int) (string, bool) { return "", false }
