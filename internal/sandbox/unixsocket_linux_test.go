//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// unixDialArg makes the test binary unixDialMain (TestMain).
const unixDialArg = "__unixdial"

// unixDialMain connects to the Unix socket at path and prints what came of
// it, then makes a socketpair (which stays allowed).
func unixDialMain(path string) int {
	c, err := net.Dial("unix", path)
	if err != nil {
		fmt.Println("dial:", err)
	} else {
		fmt.Println("dial: connected")
		c.Close()
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		fmt.Println("socketpair:", err)
		return 0
	}
	unix.Close(pair[0])
	unix.Close(pair[1])
	fmt.Println("socketpair: ok")
	return 0
}

// TestUnixSocketsWithoutNetwork: without network a confined command cannot
// connect to a Unix socket outside (Docker's, D-Bus, ssh-agent are doors
// out of the sandbox: a socket file is no file access Landlock governs),
// while socketpair still works; with network it can.
func TestUnixSocketsWithoutNetwork(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A short path: a socket address holds 108 bytes.
	dir, err := os.MkdirTemp("", "cs-sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	for _, helper := range []bool{false, true} {
		for _, network := range []bool{false, true} {
			t.Run(fmt.Sprintf("helper=%v/network=%v", helper, network), func(t *testing.T) {
				s := newTestSandbox(t, helper)
				l := newLayout(t)
				cmd := exec.Command(exe, unixDialArg, sock)
				cmd.Dir = l.ws
				var out strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &out
				wait, err := s.Start(t.Context(), cmd, l.policy(network))
				if err != nil {
					t.Fatal(err)
				}
				if err := wait(); err != nil {
					t.Fatalf("%v: %s", err, out.String())
				}
				connected := strings.Contains(out.String(), "dial: connected")
				if connected != network {
					t.Errorf("network=%v: %s", network, out.String())
				}
				if !strings.Contains(out.String(), "socketpair: ok") {
					t.Errorf("socketpair refused: %s", out.String())
				}
			})
		}
	}
}
