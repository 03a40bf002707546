//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestCloseKillsLeftovers: a process a command left running, even one
// that detached into a session of its own, lives on while the session
// does and ends when the sandbox is closed (the session's end).
func TestCloseKillsLeftovers(t *testing.T) {
	for _, helper := range []bool{false, true} {
		t.Run(fmt.Sprintf("helper=%v", helper), func(t *testing.T) {
			s := newTestSandbox(t, helper)
			if !s.Status().ReadOnlyPaths {
				t.Skipf("no mount namespace here (%s): leftovers cannot be told apart", s.Status().Reason)
			}
			l := newLayout(t)
			out, err := run(t, s, l.policy(false), l.ws, "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!")
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(out))
			if err != nil {
				t.Fatalf("no pid: %q", out)
			}
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			time.Sleep(100 * time.Millisecond)
			if !alive(pid) {
				t.Fatalf("the leftover %d is not running before Close", pid)
			}
			s.Close()
			deadline := time.Now().Add(5 * time.Second)
			for alive(pid) {
				if time.Now().After(deadline) {
					t.Fatalf("the leftover %d still runs after Close", pid)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// alive reports whether pid runs (a zombie does not count).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// mainThreadNSArg runs the test binary as [mainThreadNSMain].
const mainThreadNSArg = "clawseed-test-main-thread-ns"

// TestLeftoversWhenTheMainThreadTookTheNamespace: the goroutine that
// takes a fork server's namespaces may run on the main thread, and then
// the main thread is in the server's mount namespace. The server's
// namespace must still read as private, or Close kills none of what its
// commands left running. The main thread can only be made to do it in a
// process of its own: the test binary, run as [mainThreadNSMain].
func TestLeftoversWhenTheMainThreadTookTheNamespace(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("taking a mount namespace on a thread needs root")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe, mainThreadNSArg).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}

// mainThreadNSMain takes a new mount namespace on the main thread (the
// main goroutine runs there until it is unlocked), starts a process
// there, and checks from another thread that its namespace reads as
// private.
func mainThreadNSMain() int {
	runtime.LockOSThread()
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		fmt.Fprintln(os.Stderr, "unshare:", err)
		return 1
	}
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer child.Process.Kill()
	got := make(chan string)
	go func() { // not locked: any thread but the main one
		got <- privateMountNS(child.Process.Pid)
	}()
	if ns := <-got; ns == "" {
		fmt.Fprintln(os.Stderr, "the namespace the main thread took reads as clawseed's own")
		return 1
	}
	return 0
}
