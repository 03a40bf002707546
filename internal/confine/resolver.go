package confine

import (
	"io/fs"
	"os"
	"path/filepath"
)

// A Resolver resolves symbolic links as [RealOrSelf] does, remembering every
// path it resolved: resolving many paths under the same folders (the
// control paths and the forbidden_paths entries of a session, each under
// the workspace or the home folder) then costs one lstat per distinct path
// component instead of one per component of every path.
//
// It sees the file system as it was when it first looked at each
// component, so it serves one construction (a session's start) and is
// dropped: a check made later, when the model may have changed links,
// resolves afresh. The zero value is ready to use; it is not safe for
// concurrent use.
type Resolver struct {
	real map[string]string // absolute clean path → its resolution
}

// RealOrSelf returns [RealOrSelf] of the absolute, clean path p.
func (r *Resolver) RealOrSelf(p string) string {
	if r.real == nil {
		r.real = map[string]string{}
	}
	return r.resolve(p)
}

func (r *Resolver) resolve(p string) string {
	if got, ok := r.real[p]; ok {
		return got
	}
	parent := filepath.Dir(p)
	if parent == p { // the root
		return p
	}
	real := r.resolve(parent)
	joined := filepath.Join(real, filepath.Base(p))
	fi, err := os.Lstat(joined)
	switch {
	case err != nil && !os.IsNotExist(err):
		// Unreadable: the uncached answer, whatever it is.
		real = RealOrSelf(p)
	case err != nil:
		// Missing: kept as it is, under its resolved parent, as RealPath
		// keeps components that do not exist.
		real = joined
	case fi.Mode()&fs.ModeSymlink != 0:
		// A link (dangling or not): followed as RealPath follows it.
		real = RealOrSelf(joined)
	default:
		real = joined
	}
	r.real[p] = real
	return real
}
