package confine

import "golang.org/x/sys/unix"

// openat2Beneath opens the folder dir below rootFD in one call, refusing a
// symbolic link in any component (ELOOP) and any way out of rootFD
// (EXDEV). Other errors (ENOSYS before Linux 5.6, EPERM under a seccomp
// filter, ENOENT for a folder still to make, EAGAIN for a rename seen
// meanwhile) send the caller to the walk.
func openat2Beneath(rootFD int, dir string) (int, error) {
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	for {
		fd, err := unix.Openat2(rootFD, dir, &how)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
