//go:build linux

package sandbox

import "golang.org/x/sys/unix"

func sysSocketpair(fds *[2]int) error {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	*fds = pair
	return nil
}
