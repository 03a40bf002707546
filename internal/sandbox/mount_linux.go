//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// setupMounts makes, in the caller's mount namespace, which must be
// private to it (a new one), each of pol.ReadOnly read-only and each of
// pol.Hide empty: a bind mount of the path onto itself remounted
// read-only, and an empty read-only tmpfs over a hidden folder or
// /dev/null over a hidden file. Hidden paths are done first, so that a
// read-only control folder inside a hidden one stays hidden. Then each of
// pol.Holes inside a read-only path is bound writable again, after the
// read-only paths outside the holes and before those inside them: a
// worktree under the read-only .clawseed/ is writable, its own control
// paths are not. Last, the folders above the read-only paths are pinned
// ([pinned]). Paths must exist; links must have been resolved.
func setupMounts(pol helperPolicy) error {
	readOnly, hidden, holes := pol.ReadOnly, pol.Hide, pol.Holes
	if len(readOnly) == 0 && len(hidden) == 0 {
		return nil
	}
	// Nothing mounted here may reach the parent namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	for _, p := range hidden {
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			continue
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			if err := unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555"); err != nil {
				return fmt.Errorf("hide %s: %w", p, err)
			}
			continue
		}
		if err := bindOneReadOnly("/dev/null", p); err != nil {
			return fmt.Errorf("hide %s: %w", p, err)
		}
	}
	// A read-only path inside a hidden one is hidden already; so is a hole.
	inHidden := func(p string) bool { return slices.ContainsFunc(hidden, func(h string) bool { return within(p, h) }) }
	readOnly = slices.DeleteFunc(slices.Clone(readOnly), inHidden)
	holes = slices.DeleteFunc(slices.Clone(holes), func(h string) bool {
		return inHidden(h) || !slices.ContainsFunc(readOnly, func(r string) bool { return within(h, r) && h != r })
	})
	inHole := func(p string) bool { return slices.ContainsFunc(holes, func(h string) bool { return within(p, h) }) }
	var outside, inside []string
	for _, r := range readOnly {
		if inHole(r) {
			inside = append(inside, r)
		} else {
			outside = append(outside, r)
		}
	}
	if err := bindReadOnly(outside); err != nil {
		return err
	}
	for _, h := range holes {
		if err := bindWritable(h); err != nil {
			return err
		}
	}
	if err := bindReadOnly(inside); err != nil {
		return err
	}
	for _, p := range pinned(readOnly, pol.Writable) {
		// A bind of a folder onto itself, with what is mounted inside
		// it, keeps the flags of the mount it lies in: writable or not
		// as before, but a mount point.
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("pin %s: %w", p, err)
		}
	}
	// A working folder taken before the mounts would still be the one
	// beneath them: take it again, through them.
	if wd, err := os.Getwd(); err == nil {
		if err := unix.Chdir(wd); err != nil {
			return fmt.Errorf("chdir %s: %w", wd, err)
		}
	}
	return nil
}

// pinned returns the folders above each read-only path that a confined
// process could rename or remove — those whose parent lies in a writable
// folder — shallowest first. Renaming .git would take .git/hooks with it,
// and a copy put in its place would be writable; a mount point cannot be
// renamed or removed (EBUSY), so each of these is bound onto itself.
func pinned(readOnly, writable []string) []string {
	var out []string
	for _, r := range readOnly {
		for a := filepath.Dir(r); a != "/" && a != "."; a = filepath.Dir(a) {
			parent := filepath.Dir(a)
			if !slices.ContainsFunc(writable, func(w string) bool { return within(parent, w) }) {
				break
			}
			if !slices.Contains(out, a) && !slices.Contains(readOnly, a) {
				out = append(out, a)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if d := strings.Count(a, "/") - strings.Count(b, "/"); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return out
}

// bindWritable binds p onto itself and clears the read-only flag the new
// mount took from the read-only mount it lies in (made in this namespace,
// so not locked), keeping the flags the kernel locked.
func bindWritable(p string) error {
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", p, err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil {
		return fmt.Errorf("statfs %s: %w", p, err)
	}
	locked := lockedFlags(int64(st.Flags))
	if err := unix.Mount("", p, "", unix.MS_BIND|unix.MS_REMOUNT|locked, ""); err != nil {
		return fmt.Errorf("remount %s writable: %w", p, err)
	}
	return nil
}

// bindReadOnly makes each path read-only: a bind mount of the path onto
// itself, remounted read-only with the flags the kernel locked on the
// original (nosuid, nodev, noexec, atime: a user namespace may not clear
// them).
func bindReadOnly(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	for _, p := range paths {
		if err := bindOneReadOnly(p, p); err != nil {
			return err
		}
	}
	return nil
}

// bindOneReadOnly binds src onto dst and makes that mount read-only.
func bindOneReadOnly(src, dst string) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", dst, err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return fmt.Errorf("statfs %s: %w", dst, err)
	}
	locked := lockedFlags(int64(st.Flags))
	if err := unix.Mount("", dst, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|locked, ""); err != nil {
		return fmt.Errorf("remount %s read-only: %w", dst, err)
	}
	return nil
}

// lockedFlags maps statfs's ST_ flags to the MS_ flags a read-only
// remount must keep.
func lockedFlags(st int64) uintptr {
	var ms uintptr
	for _, f := range []struct {
		st int64
		ms uintptr
	}{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if st&f.st != 0 {
			ms |= f.ms
		}
	}
	return ms
}
