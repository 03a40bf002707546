package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Without network, a confined process may not create a Unix domain socket
// (socket(AF_UNIX, …)). The network namespace and Landlock's TCP rules do
// not cover a socket file: connecting to one is no file access Landlock
// governs, and a read-only mount does not stop it. Yet the sockets on a
// host are doors out of the sandbox — Docker's (root on the host), systemd
// and D-Bus (systemd-run starts an unconfined process), ssh-agent (the
// user's keys). A seccomp filter, inherited by every child, answers EACCES
// to socket(AF_UNIX); socketpair stays allowed (pipes between the
// processes of one command), and so do sockets a process already holds.
// Abstract sockets are scoped by Landlock where its ABI has it. Where
// the architecture has no filter here (neither amd64 nor arm64), nothing
// is installed (documented).

// auditArch is this architecture's AUDIT_ARCH value, 0 where the filter
// is not written for it.
func auditArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// seccomp_data offsets: nr, arch, instruction pointer, args[6].
const (
	seccompNr   = 0
	seccompArch = 4
	seccompArg0 = 16 // the low 32 bits of args[0] (little-endian)
	// x32BitSyscall marks an x32 system call on amd64 (the same audit
	// arch): refused outright, so socket cannot be reached that way.
	x32BitSyscall = 0x40000000
)

// blockUnixSockets installs the filter on the calling thread; every process
// it starts inherits it. The thread must already have no_new_privs set.
func blockUnixSockets() error {
	arch := auditArch()
	if arch == 0 {
		return nil
	}
	deny := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES))
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jump := func(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
	}
	prog := []unix.SockFilter{
		stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, seccompArch),
		jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, arch, 1, 0),
		stmt(unix.BPF_RET|unix.BPF_K, deny), // another architecture's calls (socketcall on i386)
		stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, seccompNr),
		jump(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K, x32BitSyscall, 0, 1),
		stmt(unix.BPF_RET|unix.BPF_K, deny),
		jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.SYS_SOCKET, 0, 3),
		stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, seccompArg0),
		jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.AF_UNIX, 0, 1),
		stmt(unix.BPF_RET|unix.BPF_K, deny),
		stmt(unix.BPF_RET|unix.BPF_K, allow),
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		if errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("seccomp filters are not available: %w", err)
		}
		return fmt.Errorf("prctl(PR_SET_SECCOMP): %w", err)
	}
	runtime.KeepAlive(prog)
	return nil
}
