//go:build !unix

package instructions

import "io/fs"

// ownedByUser has no owner to compare outside Unix.
func ownedByUser(fs.FileInfo) bool { return true }
