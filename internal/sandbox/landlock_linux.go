//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The Landlock system calls are made directly: go-landlock's syscall
// package restricts all threads through libcap's psx, which needs cgo
// linker flags on every cgo build of the binary, and clawseed only ever
// restricts one thread (the one that forks or executes the process).

// landlockABI returns the kernel's Landlock ABI version, 0 when Landlock
// is missing or disabled.
func landlockABI() int {
	v, _, errno := syscall.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// Access rights by the ABI that introduced them.
const (
	fsRightsV1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	// fileRights are the rights a rule on a file (not a folder) may hold.
	fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE |
		unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	readRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR
	netRights = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
)

// handledFS returns the file-system rights an ABI can restrict: a right
// the ABI knows and the ruleset does not handle would stay allowed.
func handledFS(abi int) uint64 {
	r := uint64(fsRightsV1)
	if abi >= 2 {
		r |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		r |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return r
}

// rulesetAttr is struct landlock_ruleset_attr as of ABI 6; the kernel
// reads the size it is given, and older kernels accept a larger struct
// whose extra fields are zero.
type rulesetAttr struct {
	handledFS, handledNet, scoped uint64
}

// restrictThread confines the calling OS thread (the caller has locked
// its goroutine to it) and every process it forks from now on: the process
// not dumpable, no capability nor any way to gain one ([dropPrivileges]),
// and the Landlock ruleset of rules, with TCP refused unless network. It
// returns an error when any of it cannot be applied. Every confined
// process gets its domain here: the fork server's thread, or the helper
// that executes a command in its place.
func restrictThread(abi int, rules []rule, network bool) error {
	if abi < 1 {
		return errors.New("landlock is not available")
	}
	attr := rulesetAttr{handledFS: handledFS(abi)}
	size := unsafe.Sizeof(attr.handledFS)
	if abi >= 4 {
		size = unsafe.Offsetof(attr.scoped)
		if !network {
			attr.handledNet = netRights
		}
	}
	if abi >= 6 {
		size = unsafe.Sizeof(attr)
		// A confined process may not signal processes outside its domain
		// (clawseed, the user's other programs), nor, without network,
		// reach abstract Unix sockets outside it (D-Bus, X11).
		attr.scoped = unix.LANDLOCK_SCOPE_SIGNAL
		if !network {
			attr.scoped |= unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
		}
	}
	fd, _, errno := syscall.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer syscall.Close(int(fd))
	for _, r := range rules {
		if err := addRule(int(fd), r, attr.handledFS); err != nil {
			return err
		}
	}
	// The process holding the domain is not dumpable, and the thread
	// (so every command) keeps no capability: a command shares this
	// domain, which alone would let it ptrace the holder.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE): %w", err)
	}
	if err := dropPrivileges(); err != nil {
		return err
	}
	if !network {
		if err := blockUnixSockets(); err != nil {
			return err
		}
	}
	if _, _, errno := syscall.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// addRule adds one path-beneath rule. A path that vanished since the
// rules were computed is skipped: it grants nothing then.
func addRule(ruleset int, r rule, handled uint64) error {
	fd, err := unix.Open(r.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil
	}
	var allowed uint64
	switch r.Access {
	case accessList:
		allowed = unix.LANDLOCK_ACCESS_FS_READ_DIR
	case accessRead:
		allowed = readRights
	case accessWrite:
		allowed = handled
	}
	allowed &= handled
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		allowed &= fileRights
	}
	if allowed == 0 {
		return nil
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: allowed, Parent_fd: int32(fd)}
	// The kernel's struct is packed: 8 bytes of rights, 4 of the fd.
	_, _, errno := syscall.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", r.Path, errno)
	}
	return nil
}
