//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
