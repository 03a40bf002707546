//go:build linux

package sandboxtest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// helperArg is the sandbox's helper argument (sandbox.HelperArg), which
// the fork servers' command lines hold; not imported, to keep this
// package free of the one it tests.
const helperArg = "__sandbox-exec"

// ReachMain is a program the tests run as a confined command: it tries to
// reach every thread of the processes around it (getfd: pidfd_getfd, once
// a process) — its ancestors (clawseed,
// which the fork server makes every command's parent) and the fork servers
// among their children — and prints one line per thread:
//
//	pid=P tid=T role=ancestor|server readv=R writev=W mem=M ptrace=A [getfd=G] signal=S
//
// each result "refused" (EPERM, EACCES, ESRCH) or what happened ("ok", or
// another error, which means the permission checks passed). With -find S
// it searches the memory of each thread whose /proc mem file it could open
// for S and adds found=yes. A first line gives its own capability sets
// (the Cap lines of /proc/self/status). It returns 0 unless it could not
// look at all.
func ReachMain(args []string) int {
	fl := flag.NewFlagSet("reach", flag.ContinueOnError)
	find := fl.String("find", "", "a string to look for in the memory of the threads reached")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Fprintln(os.Stderr, "reach:", err)
		return 2
	}
	var caps []string
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "Cap") {
			caps = append(caps, strings.Join(strings.Fields(l), ""))
		}
	}
	fmt.Println("caps", strings.Join(caps, " "))
	for _, t := range targets() {
		tids, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", t.pid))
		if err != nil {
			fmt.Printf("pid=%d role=%s tasks=%s\n", t.pid, t.role, result(err))
			continue
		}
		for _, d := range tids {
			tid, err := strconv.Atoi(d.Name())
			if err != nil {
				continue
			}
			fmt.Printf("pid=%d tid=%d role=%s %s\n", t.pid, tid, t.role, probe(t.pid, tid, *find))
		}
	}
	return 0
}

type target struct {
	pid  int
	role string
}

// targets returns this process's ancestors below init and the fork
// servers among their children, in pid order within each role.
func targets() []target {
	anc := map[int]bool{}
	var out []target
	for p := ppid(os.Getpid()); p > 1; p = ppid(p) {
		anc[p] = true
		out = append(out, target{p, "ancestor"})
	}
	entries, _ := os.ReadDir("/proc")
	var servers []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil || anc[p] || !anc[ppid(p)] {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		if bytes.Contains(cmdline, []byte(helperArg)) {
			servers = append(servers, p)
		}
	}
	sort.Ints(servers)
	for _, p := range servers {
		out = append(out, target{p, "server"})
	}
	return out
}

// ppid returns the parent of pid, 0 when unknown.
func ppid(pid int) int {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

// probe tries each way into the thread tid of pid.
func probe(pid, tid int, find string) string {
	addr := writableAddr(pid, tid)
	buf := make([]byte, 8)
	local := []unix.Iovec{{Base: &buf[0]}}
	local[0].SetLen(len(buf))
	remote := []unix.RemoteIovec{{Base: addr, Len: len(buf)}}
	_, rerr := unix.ProcessVMReadv(tid, local, remote, 0)
	written := "-" // not tried without the bytes to write back
	if rerr == nil {
		_, werr := unix.ProcessVMWritev(tid, local, remote, 0) // the same bytes back
		written = result(werr)
	}
	s := fmt.Sprintf("readv=%s writev=%s", result(rerr), written)
	mem, merr := os.Open(fmt.Sprintf("/proc/%d/task/%d/mem", pid, tid))
	s += " mem=" + result(merr)
	if merr == nil {
		if find != "" && search(pid, tid, mem, find) {
			s += " found=yes"
		}
		mem.Close()
	}
	_, _, errno := syscall.Syscall6(syscall.SYS_PTRACE, unix.PTRACE_SEIZE, uintptr(tid), 0, 0, 0, 0)
	s += " ptrace=" + result(errnoErr(errno))
	if tid == pid {
		s += " getfd=" + getfd(pid)
	}
	_, _, errno = syscall.Syscall(syscall.SYS_TGKILL, uintptr(pid), uintptr(tid), 0)
	return s + " signal=" + result(errnoErr(errno))
}

// getfd tries to take a copy of the process's standard input (any
// descriptor needs the same right: the fork server's socket to clawseed
// is another), as pidfd_getfd does it.
func getfd(pid int) string {
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return result(err)
	}
	defer unix.Close(pidfd)
	fd, err := unix.PidfdGetfd(pidfd, 0, 0)
	if err == nil {
		unix.Close(fd)
	}
	return result(err)
}

func errnoErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// result names the outcome of one try.
func result(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES), errors.Is(err, unix.ESRCH):
		return "refused"
	}
	return "other:" + strings.ReplaceAll(err.Error(), " ", "_")
}

// writableAddr returns the start of the thread's first writable mapping
// when its maps can be read, else an address that is mapped in no Go
// program (the permission check comes first, and a fault means it passed).
func writableAddr(pid, tid int) uintptr {
	for _, m := range maps(pid, tid) {
		if strings.HasPrefix(m.perm, "rw") {
			return m.start
		}
	}
	return 0x10000
}

type mapping struct {
	start, end uintptr
	perm       string
}

func maps(pid, tid int) []mapping {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/maps", pid, tid))
	if err != nil {
		return nil
	}
	var out []mapping
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		a, b, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		s, err1 := strconv.ParseUint(a, 16, 64)
		e, err2 := strconv.ParseUint(b, 16, 64)
		if err1 == nil && err2 == nil {
			out = append(out, mapping{uintptr(s), uintptr(e), f[1]})
		}
	}
	return out
}

// search reads the readable mappings of the thread (up to 256 MiB each)
// through its mem file, looking for find.
func search(pid, tid int, mem *os.File, find string) bool {
	for _, m := range maps(pid, tid) {
		if !strings.HasPrefix(m.perm, "r") || m.end-m.start > 256<<20 {
			continue
		}
		b := make([]byte, m.end-m.start)
		n, err := mem.ReadAt(b, int64(m.start))
		if err != nil && !errors.Is(err, io.EOF) && n == 0 {
			continue
		}
		if bytes.Contains(b[:n], []byte(find)) {
			return true
		}
	}
	return false
}

// Reached returns the lines of ReachMain's output that show a way in:
// any try that was not refused, but signals to the fork server (a command
// shares the server's Landlock domain, so it may kill it; clawseed then
// starts another), and signals at all unless signals is true (Landlock's
// signal scoping, ABI 6, is what refuses them to root's commands). It also
// reports a missing role: the run must have seen clawseed and a server.
func Reached(out string, signals bool) []string {
	var bad []string
	seen := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "pid=") {
			continue
		}
		server := strings.Contains(l, " role=server")
		seen["ancestor"] = seen["ancestor"] || strings.Contains(l, " role=ancestor")
		seen["server"] = seen["server"] || server
		for _, f := range strings.Fields(l) {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "pid", "tid", "role":
				continue
			case "signal":
				if server || !signals {
					continue
				}
			case "writev":
				if v == "-" {
					continue
				}
			}
			if v != "refused" {
				bad = append(bad, l)
				break
			}
		}
	}
	for _, r := range []string{"ancestor", "server"} {
		if !seen[r] {
			bad = append(bad, "no "+r+" seen")
		}
	}
	return bad
}
