//go:build unix

package confine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// writeBelow is [WriteEntry] once its arguments are checked: dir is the
// folder relative to root ("." for root itself), name the entry's name.
func writeBelow(root, dir, name string, e Entry, check func(string) error) error {
	rootFD, err := openDirFD(unix.AT_FDCWD, root)
	if err != nil {
		return &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(rootFD)
	fd, err := openBelow(rootFD, dir)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	opened, err := openedPath(fd, root, dir)
	if err != nil {
		return err
	}
	if err := check(filepath.Join(opened, name)); err != nil {
		return err
	}
	switch {
	case e.Dir:
		return makeDirAt(fd, name, e.Mode)
	case e.Link != "":
		return linkAt(fd, name, e.Link)
	}
	return writeAt(fd, name, e)
}

// openedPath returns the path of the folder opened as root/dir: what the
// kernel says of the handle where it says, else the path as walked (no
// link was followed on the way, so it names the folder opened). The
// kernel's answer must still lie in root.
func openedPath(fd int, root, dir string) (string, error) {
	walked := filepath.Join(root, dir)
	p, ok := fdPath(fd)
	if !ok {
		return walked, nil
	}
	if !Within(p, root) && !Within(p, RealOrSelf(root)) {
		return "", &Refusal{Path: walked, Reason: Outside, Real: p, Root: root}
	}
	return p, nil
}

// openBelow opens the folder dir below the folder rootFD without
// following a link in any component, making missing folders.
func openBelow(rootFD int, dir string) (int, error) {
	if dir == "." {
		return unix.Dup(rootFD)
	}
	fd, err := openat2Beneath(rootFD, dir)
	switch {
	case err == nil:
		return fd, nil
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
		return -1, ErrLink
	}
	// No openat2 (an older kernel, another system, a seccomp filter), or
	// a folder to make: one component at a time.
	return walkBelow(rootFD, dir)
}

// walkBelow opens dir below rootFD one component at a time, each opened
// O_NOFOLLOW|O_DIRECTORY from the one before, making a missing one.
func walkBelow(rootFD int, dir string) (int, error) {
	fd, err := unix.Dup(rootFD)
	if err != nil {
		return -1, err
	}
	for _, c := range strings.Split(dir, string(filepath.Separator)) {
		if c == "" || c == "." || c == ".." {
			unix.Close(fd)
			return -1, fmt.Errorf("%s: not a clean relative path", dir)
		}
		next, err := openDirFD(fd, c)
		if errors.Is(err, unix.ENOENT) {
			if err = unix.Mkdirat(fd, c, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = openDirFD(fd, c)
			}
		}
		if err != nil && isLink(fd, c) {
			err = ErrLink
		}
		unix.Close(fd)
		if err != nil {
			if errors.Is(err, ErrLink) {
				return -1, err
			}
			return -1, &os.PathError{Op: "open", Path: c, Err: err}
		}
		fd = next
	}
	return fd, nil
}

// openDirFD opens the folder name in dirFD, not following a link.
func openDirFD(dirFD int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirFD, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// isLink reports whether name in dirFD is a symbolic link.
func isLink(dirFD int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirFD, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// writeAt writes e's content to name in the open folder dirFD through a
// temporary file renamed over it.
func writeAt(dirFD int, name string, e Entry) error {
	perm := uint32(e.Mode.Perm())
	if e.Mode == 0 {
		perm = 0o644
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirFD, name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			return fmt.Errorf("%s is a directory", name)
		case unix.S_IFREG:
			if e.Mode == 0 {
				perm = uint32(st.Mode) & 0o777 // an existing file keeps its mode
			}
		}
	}
	tmp := tempName(name)
	fd, err := unix.Openat(dirFD, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return &os.PathError{Op: "create", Path: tmp, Err: err}
	}
	f := os.NewFile(uintptr(fd), tmp)
	if e.Content != nil {
		_, err = io.Copy(f, e.Content)
	}
	if err == nil {
		err = f.Chmod(os.FileMode(perm)) // not the umask's
	}
	if err == nil && !e.ModTime.IsZero() {
		err = unix.Futimes(fd, []unix.Timeval{unix.NsecToTimeval(e.ModTime.UnixNano()), unix.NsecToTimeval(e.ModTime.UnixNano())})
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return renameInto(dirFD, tmp, name, err)
}

// linkAt makes name in dirFD a symbolic link to target, under a temporary
// name renamed over name.
func linkAt(dirFD int, name, target string) error {
	tmp := tempName(name)
	if err := unix.Symlinkat(target, dirFD, tmp); err != nil {
		return &os.LinkError{Op: "symlink", Old: target, New: tmp, Err: err}
	}
	return renameInto(dirFD, tmp, name, nil)
}

// renameInto renames tmp over name in dirFD unless err, and removes tmp
// when that fails.
func renameInto(dirFD int, tmp, name string, err error) error {
	if err == nil {
		if err = unix.Renameat(dirFD, tmp, dirFD, name); err != nil {
			err = &os.LinkError{Op: "rename", Old: tmp, New: name, Err: err}
		}
	}
	if err != nil {
		_ = unix.Unlinkat(dirFD, tmp, 0)
	}
	return err
}

// makeDirAt makes the folder name in dirFD when missing and sets its mode
// on the folder opened without following a link.
func makeDirAt(dirFD int, name string, mode os.FileMode) error {
	if mode == 0 {
		mode = 0o755
	}
	if err := unix.Mkdirat(dirFD, name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
		return &os.PathError{Op: "mkdir", Path: name, Err: err}
	}
	fd, err := openDirFD(dirFD, name)
	if err != nil {
		if isLink(dirFD, name) {
			return ErrLink
		}
		return &os.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	if err := unix.Fchmod(fd, uint32(mode.Perm())); err != nil {
		return &os.PathError{Op: "chmod", Path: name, Err: err}
	}
	return nil
}
