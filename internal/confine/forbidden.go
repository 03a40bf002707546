package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxLinkHops bounds symlink resolution, like the kernel's ELOOP limit.
const maxLinkHops = 40

// Forbidden is the [autonomy].forbidden_paths rule: a path under an entry is
// refused even inside the workspace, with one exception — an entry that
// contains a whole root the path belongs to (for example "/root" when the
// workspace is /root/project) does not apply inside that root, because it
// would refuse every file there; it still applies everywhere else. The file
// tools' sandbox and [Read] both apply it through [Forbidden.Covers].
//
// The zero value forbids nothing.
type Forbidden struct {
	entries []string // absolute and clean; each as configured and resolved
}

// NewForbidden resolves the configured entries: a leading ~ is expanded with
// home ("" leaves it as written), relative entries are relative to
// workspace, and each entry counts both as written and with its symbolic
// links resolved.
func NewForbidden(entries []string, workspace, home string) Forbidden {
	var f Forbidden
	var r Resolver // the entries share their folders: each is looked at once
	for _, e := range entries {
		if strings.TrimSpace(e) == "" {
			continue
		}
		if home != "" && (e == "~" || strings.HasPrefix(e, "~/")) {
			e = filepath.Join(home, e[1:])
		}
		if !filepath.IsAbs(e) {
			e = filepath.Join(workspace, e)
		}
		abs := filepath.Clean(e)
		f.entries = append(f.entries, abs)
		if real := r.RealOrSelf(abs); real != abs {
			f.entries = append(f.entries, real)
		}
	}
	return f
}

// Covers reports whether the absolute, clean path p lies under an entry.
// exempt are the root p belongs to, as configured and resolved (none when p
// is in no root): entries that contain one of them are not applied.
func (f Forbidden) Covers(p string, exempt ...string) bool {
	for _, entry := range f.entries {
		if !Within(p, entry) {
			continue
		}
		if containsAny(entry, exempt) {
			continue
		}
		return true
	}
	return false
}

// coversIn is [Forbidden.Covers] for a path that should lie in one of roots:
// the root it lies in (as given or resolved) is exempt. Roots are resolved
// only when an entry covers p.
func (f Forbidden) coversIn(p string, roots []string) bool {
	if len(f.entries) == 0 || !f.Covers(p) {
		return false
	}
	for _, r := range roots {
		if r == "" {
			continue
		}
		r = absPath(r)
		if rr := RealOrSelf(r); Within(p, r) || Within(p, rr) {
			return f.Covers(p, r, rr)
		}
	}
	return true
}

func containsAny(entry string, dirs []string) bool {
	for _, d := range dirs {
		if d != "" && Within(d, entry) {
			return true
		}
	}
	return false
}

// Within reports whether p is dir or lies beneath it, comparing whole path
// components (so /etc2 is not within /etc). Both are absolute and clean.
func Within(p, dir string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}

// RealOrSelf returns [RealPath] of p, or p when it cannot be resolved.
func RealOrSelf(p string) string {
	if r, err := RealPath(p); err == nil {
		return r
	}
	return p
}

// RealPath resolves every symlink in the absolute, clean path p. Components
// that do not exist are kept as they are, but a dangling link is followed to
// where it points, since creating the file would create its target.
func RealPath(p string) (string, error) {
	for range maxLinkHops {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r, nil
		}
		// Find the deepest prefix that exists (as a link or not).
		dir, rest := p, ""
		for {
			if _, err := os.Lstat(dir); err == nil {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return p, nil
			}
			rest = filepath.Join(filepath.Base(dir), rest)
			dir = parent
		}
		fi, err := os.Lstat(dir)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			r, err := filepath.EvalSymlinks(dir)
			if err != nil {
				return "", err
			}
			return filepath.Join(r, rest), nil
		}
		target, err := os.Readlink(dir)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(dir), target)
		}
		p = filepath.Join(target, rest)
	}
	return "", errors.New("too many levels of symbolic links")
}

// Entries returns the resolved entries: absolute and clean, each as
// configured and, when it differs, with its links resolved. The OS sandbox
// denies them to commands.
func (f Forbidden) Entries() []string { return slices.Clone(f.entries) }
