//go:build linux

package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// bindReadOnly makes each path read-only in the caller's mount namespace,
// which must be private to it (a new one): a bind mount of the path onto
// itself, remounted read-only with the flags the kernel locked on the
// original (nosuid, nodev, noexec, atime: a user namespace may not clear
// them). Paths must exist; links must have been resolved.
func bindReadOnly(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	// Nothing mounted here may reach the parent namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	for _, p := range paths {
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p, err)
		}
		var st unix.Statfs_t
		if err := unix.Statfs(p, &st); err != nil {
			return fmt.Errorf("statfs %s: %w", p, err)
		}
		locked := lockedFlags(st.Flags)
		if err := unix.Mount("", p, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|locked, ""); err != nil {
			return fmt.Errorf("remount %s read-only: %w", p, err)
		}
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
