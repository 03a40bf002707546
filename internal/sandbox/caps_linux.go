//go:build linux

package sandbox

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Securebits (linux/securebits.h): root gains no capability by executing
// a program (NOROOT), changing uids does not touch them (NO_SETUID_FIXUP),
// none may be kept across a uid change (KEEP_CAPS off) nor raised into the
// ambient set, each locked so that no later code can undo it.
const (
	secbitNoRoot             = 1 << 0
	secbitNoRootLocked       = 1 << 1
	secbitNoSetuidFixup      = 1 << 2
	secbitNoSetuidFixupLock  = 1 << 3
	secbitKeepCapsLocked     = 1 << 5
	secbitNoCapAmbientRaise  = 1 << 6
	secbitNoCapAmbientLocked = 1 << 7

	lockedSecurebits = secbitNoRoot | secbitNoRootLocked | secbitNoSetuidFixup | secbitNoSetuidFixupLock |
		secbitKeepCapsLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientLocked
)

// dropPrivileges leaves the calling thread, and whatever it forks or
// executes from now on, no capability and no way to gain one: the
// bounding set emptied and the securebits locked (where the thread holds
// CAP_SETPCAP, as root does), the ambient, inheritable, permitted and
// effective sets cleared, and no new privileges. With no_new_privs an
// execution never yields more than the permitted set (empty), so it holds
// where the first two steps are not possible (an ordinary user has nothing
// to drop there).
//
// This is what keeps a command from reaching the process that holds its
// Landlock domain: Landlock lets a task ptrace another in the same domain,
// and what then stops it is that the holder is not dumpable and the
// command lacks CAP_SYS_PTRACE (docs/security-and-trust.md).
func dropPrivileges() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Effective&(1<<unix.CAP_SETPCAP) != 0 {
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, lockedSecurebits, 0, 0, 0); err != nil {
			return fmt.Errorf("prctl(PR_SET_SECUREBITS): %w", err)
		}
		for c := uintptr(0); ; c++ {
			err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0)
			if errors.Is(err, unix.EINVAL) {
				break // past the kernel's last capability
			}
			if err != nil {
				return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", c, err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("prctl(PR_CAP_AMBIENT_CLEAR_ALL): %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	return nil
}
