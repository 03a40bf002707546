//go:build !unix

package skills

import "os"

// openForRead opens a skill file (see open_unix.go).
func openForRead(path string) (*os.File, error) { return os.Open(path) }
