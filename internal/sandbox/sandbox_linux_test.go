//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/internal/sandbox/sandboxtest"
	"golang.org/x/sys/unix"
)

// TestMain lets the test binary be the helper, as clawseed is, and
// makes it non-dumpable as clawseed makes itself (internal/procenv): the
// helper must start from such a process.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		os.Exit(HelperMain(os.Args[1:]))
	}
	if len(os.Args) > 1 && os.Args[1] == reachArg { // reach_linux_test.go
		os.Exit(sandboxtest.ReachMain(os.Args[2:]))
	}
	if len(os.Args) > 2 && os.Args[1] == unixDialArg { // unixsocket_linux_test.go
		os.Exit(unixDialMain(os.Args[2]))
	}
	if len(os.Args) > 1 && os.Args[1] == mainThreadNSArg { // leftovers_linux_test.go
		os.Exit(mainThreadNSMain())
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "prctl(PR_SET_DUMPABLE):", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// newTestSandbox returns a Sandbox on the given path (thread or helper),
// or skips when this machine cannot confine that way.
func newTestSandbox(t *testing.T, helper bool) *Sandbox {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := New(exe, os.Args[0])
	st := s.Status()
	if !st.Active {
		t.Skipf("sandbox not available here: %s", st.Reason)
	}
	if helper != st.Helper {
		if !helper {
			t.Skip("this process cannot take namespaces on a thread (not root); the helper path is tested instead")
		}
		if os.Getuid() != 0 {
			// Not root: the helper path is the only one with namespaces,
			// and it must work wherever the kernel lets a user make them.
			if userNamespacesWork() {
				t.Fatalf("user namespaces work here, yet the helper path is off: %s", st.Reason)
			}
			t.Skipf("no user namespaces here: %s", st.Reason)
		}
		// Root takes the thread path; the helper path still works in a
		// user namespace.
		if err := s.probeHelper(st.ABI); err != nil {
			t.Skipf("no user namespaces for the helper: %v", err)
		}
		s.status.Helper, s.status.ReadOnlyPaths, s.status.NetNamespace = true, true, true
	}
	t.Cleanup(s.Close)
	return s
}

// layout makes a workspace with a control folder, a secret folder beside
// it with one kept file, and a folder outside both.
type layout struct {
	root, ws, hooks, secret, kept, outside string
}

func newLayout(t *testing.T) layout {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := layout{root: root, ws: filepath.Join(root, "ws"), secret: filepath.Join(root, "secret"), outside: filepath.Join(root, "outside")}
	l.hooks = filepath.Join(l.ws, ".git", "hooks")
	l.kept = filepath.Join(l.secret, "kept.txt")
	for _, d := range []string{l.hooks, l.secret, l.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, text := range map[string]string{
		filepath.Join(l.secret, "key"):       "TOP-SECRET",
		l.kept:                               "kept",
		filepath.Join(l.hooks, "pre-commit"): "#!/bin/sh\n",
		filepath.Join(l.ws, "file.txt"):      "inside",
	} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func (l layout) policy(network bool) Policy {
	return Policy{
		Deny:     []string{l.secret},
		Keep:     []string{l.kept},
		Writable: []string{l.ws},
		ReadOnly: []string{l.hooks},
		Network:  network,
	}
}

// run runs a shell line confined by p and returns its output and error.
func run(t *testing.T, s *Sandbox, p Policy, dir, line string) (string, error) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Dir = dir
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	wait, err := s.Start(t.Context(), cmd, p)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	err = wait()
	return out.String(), err
}

func TestConfines(t *testing.T) {
	for _, helper := range []bool{false, true} {
		t.Run(fmt.Sprintf("helper=%v", helper), func(t *testing.T) {
			s := newTestSandbox(t, helper)
			l := newLayout(t)
			p := l.policy(false)
			// readOnly cases hold only where the status says control paths
			// are read-only (a mount namespace); busy ones must fail because
			// the path is a mount point, not for any other reason.
			cases := []struct {
				name, line     string
				ok             bool
				readOnly, busy bool
			}{
				{name: "write inside", line: "echo ok > inside.txt && cat inside.txt", ok: true},
				{name: "write a file in a subfolder", line: "mkdir -p sub && echo x > sub/y", ok: true},
				{name: "read inside", line: "cat file.txt", ok: true},
				{name: "read the system", line: "cat /etc/hostname >/dev/null || ls /usr/bin >/dev/null", ok: true},
				{name: "write outside", line: "echo x > " + filepath.Join(l.outside, "f")},
				{name: "create outside via sh -c", line: "sh -c 'touch " + filepath.Join(l.outside, "g") + "'"},
				{name: "read a denied file", line: "cat " + filepath.Join(l.secret, "key")},
				{name: "read a kept file in a denied folder", line: "cat " + l.kept, ok: true},
				{name: "list the way to a denied folder", line: "ls " + l.root, ok: true},
				{name: "write a read-only control path", line: "echo evil >> .git/hooks/pre-commit", readOnly: true},
				{name: "create a file in a read-only control folder", line: "echo evil > .git/hooks/post-commit", readOnly: true},
				{name: "rename the folder above a control path", line: "mv .git .git-old", readOnly: true, busy: true},
				{name: "remove the folder above a control path", line: "rm -rf .git", readOnly: true},
				{name: "rename a control path", line: "mv .git/hooks .git/hooks-old", readOnly: true, busy: true},
				{name: "unmount a control path", line: "umount .git/hooks", readOnly: true},
				{name: "unmount a control path lazily", line: "umount -l .git/hooks", readOnly: true},
				{name: "bind over a control path", line: "mkdir -p w && mount --bind w .git/hooks", readOnly: true},
				{name: "remount a control path writable", line: "mount -o remount,rw .git/hooks", readOnly: true},
				{name: "write /dev/null", line: "echo x > /dev/null", ok: true},
			}
			for _, c := range cases {
				if c.readOnly && !s.Status().ReadOnlyPaths {
					t.Logf("%s: not checked, control paths are writable here (%s)", c.name, s.Status().Reason)
					continue
				}
				out, err := run(t, s, p, l.ws, c.line)
				if (err == nil) != c.ok {
					t.Errorf("%s: %q: err = %v, want ok=%v; output: %s", c.name, c.line, err, c.ok, out)
				}
				if c.busy && !strings.Contains(out, "busy") {
					t.Errorf("%s: %q: want a mount point's refusal (busy); output: %s", c.name, c.line, out)
				}
			}
			if _, err := os.Stat(filepath.Join(l.outside, "f")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a file outside was written")
			}
			if !s.Status().ReadOnlyPaths {
				return
			}
			if data, _ := os.ReadFile(filepath.Join(l.hooks, "pre-commit")); string(data) != "#!/bin/sh\n" {
				t.Errorf("the hook was changed: %q", data)
			}
			for _, p := range []string{filepath.Join(l.ws, ".git-old"), filepath.Join(l.hooks, "post-commit")} {
				if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s was made", p)
				}
			}
		})
	}
}

// TestNoCapabilities: a command keeps no capability, so it cannot undo
// the mounts that make control paths read-only nor ptrace the process
// holding its Landlock domain (TestCommandCannotReach), whichever way it
// starts, root's commands included; root's have an empty bounding set too
// (an ordinary user's helper has none to drop in its user namespace, and
// no_new_privs keeps its commands from gaining any).
func TestNoCapabilities(t *testing.T) {
	sets := "Inh|Prm|Eff|Amb"
	if os.Getuid() == 0 {
		sets += "|Bnd"
	}
	for _, helper := range []bool{false, true} {
		t.Run(fmt.Sprintf("helper=%v", helper), func(t *testing.T) {
			s := newTestSandbox(t, helper)
			l := newLayout(t)
			out, err := run(t, s, l.policy(false), l.ws, "grep -E '^Cap("+sets+"):' /proc/self/status; grep NoNewPrivs: /proc/self/status; id -u")
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				f := strings.Fields(line)
				switch {
				case len(f) != 2:
				case f[0] == "NoNewPrivs:":
					if f[1] != "1" {
						t.Errorf("a command may gain privileges: %s", line)
					}
				case strings.Trim(f[1], "0") != "":
					t.Errorf("a command has capabilities: %s", line)
				}
			}
			// It runs as the user, not as root in its namespace.
			if want := fmt.Sprint(os.Getuid()); !strings.HasSuffix(strings.TrimSpace(out), "\n"+want) {
				t.Errorf("a command's uid: %s, want %s", out, want)
			}
		})
	}
}

func TestNetwork(t *testing.T) {
	for _, helper := range []bool{false, true} {
		t.Run(fmt.Sprintf("helper=%v", helper), func(t *testing.T) {
			s := newTestSandbox(t, helper)
			if !s.Status().NetworkRules {
				t.Skip("no network rules here")
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					c.Write([]byte("hello\n"))
					c.Close()
				}
			}()
			port := ln.Addr().(*net.TCPAddr).Port
			l := newLayout(t)
			// bash's /dev/tcp connects without any other program.
			line := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && head -1 <&3", port)
			bash, err := exec.LookPath("bash")
			if err != nil {
				t.Skip("no bash")
			}
			for _, network := range []bool{false, true} {
				cmd := exec.Command(bash, "-c", line)
				var out strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &out
				wait, err := s.Start(t.Context(), cmd, l.policy(network))
				if err != nil {
					t.Fatal(err)
				}
				err = wait()
				if got := err == nil && strings.Contains(out.String(), "hello"); got != network {
					t.Errorf("network=%v: connected=%v (err %v, output %q)", network, got, err, out.String())
				}
			}
		})
	}
}

func TestStatusString(t *testing.T) {
	cases := []struct {
		st   Status
		want string
	}{
		{Status{Reason: "the kernel has no Landlock"}, "not available (the kernel has no Landlock); commands are not sandboxed"},
		{Status{Active: true, ABI: 7, NetworkRules: true, NetNamespace: true, ReadOnlyPaths: true}, "landlock v7, network rules on (own network namespace), control paths read-only"},
		{Status{Active: true, ABI: 4, NetworkRules: true}, "landlock v4, network rules on (TCP only), control paths writable (no mount namespace)"},
		{Status{Active: true, ABI: 3}, "landlock v3, no network rules (Landlock ABI < 4), control paths writable (no mount namespace)"},
	}
	for _, c := range cases {
		if got := c.st.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// BenchmarkStart measures what confinement adds to starting a command:
// /bin/true unconfined, through the fork server started from a thread
// that took the namespaces (root), and through the one the helper started
// in user namespaces. The differences are in docs/performance.md.
func BenchmarkStart(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	p := Policy{Deny: []string{filepath.Join(root, "secret")}, Writable: []string{root}, ReadOnly: []string{root + "/.git"}}
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.MkdirAll(filepath.Join(root, "secret"), 0o755)
	bench := func(b *testing.B, start func(*exec.Cmd) (func() error, error)) {
		for b.Loop() {
			cmd := exec.Command("/bin/true")
			wait, err := start(cmd)
			if err != nil {
				b.Fatal(err)
			}
			if err := wait(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("unconfined", func(b *testing.B) {
		bench(b, func(c *exec.Cmd) (func() error, error) { return c.Wait, c.Start() })
	})
	// CLAWSEED_BENCH_HELPER names a clawseed binary to time the helper
	// path with the real program (the test binary is larger and starts
	// slower): go build -o /tmp/clawseed ./cmd/clawseed first.
	helperExe, helperArgv0 := exe, os.Args[0]
	if h := os.Getenv("CLAWSEED_BENCH_HELPER"); h != "" {
		helperExe, helperArgv0 = h, h
	}
	for _, helper := range []bool{false, true} {
		s := New(exe, os.Args[0])
		if helper {
			s = New(helperExe, helperArgv0)
		}
		st := s.Status()
		if !st.Active {
			b.Skip(st.Reason)
		}
		if helper && !st.Helper {
			if err := s.probeHelper(st.ABI); err != nil {
				continue
			}
			s.status.Helper, s.status.ReadOnlyPaths, s.status.NetNamespace = true, true, true
		} else if !helper && st.Helper {
			continue
		}
		name := map[bool]string{false: "thread", true: "helper"}[helper]
		b.Run(name, func(b *testing.B) {
			bench(b, func(c *exec.Cmd) (func() error, error) { return s.Start(b.Context(), c, p) })
		})
		s.Close()
	}
}

// TestWrap: a command prepared by Wrap and started by its caller is
// confined like one Start starts.
func TestWrap(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := New(exe, os.Args[0])
	if st := s.Status(); !st.Active {
		t.Skipf("sandbox not available here: %s", st.Reason)
	}
	l := newLayout(t)
	ns := userNamespacesWork()
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{"echo ok > inside.txt", true},
		{"cat " + filepath.Join(l.secret, "key"), false},
		{"touch " + filepath.Join(l.outside, "x"), false},
		{"exec nonexistent-program-xyz", false},
		// With user namespaces the control paths are read-only here too.
		{"echo evil >> .git/hooks/pre-commit", !ns},
		{"mv .git .git-old", !ns},
	} {
		cmd := exec.Command("/bin/sh", "-c", c.line)
		cmd.Dir = l.ws
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := s.Wrap(cmd, l.policy(false)); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); (err == nil) != c.ok {
			t.Errorf("%q: err = %v, want ok=%v; output %q", c.line, err, c.ok, out.String())
		}
	}
	// A program that does not exist fails as exec's would, with 127.
	cmd := exec.Command("no-such-program-xyz")
	if err := s.Wrap(cmd, l.policy(false)); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Run(); err == nil || cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 127 {
		t.Errorf("missing program: err %v, state %v", err, cmd.ProcessState)
	}
}

// TestHideInsideWritable: a denied path inside a writable folder (a
// forbidden file in the workspace; CLAWSEED_HOME when the workspace is the
// home folder) cannot be read, while a kept path inside it can.
func TestHideInsideWritable(t *testing.T) {
	for _, helper := range []bool{false, true} {
		t.Run(fmt.Sprintf("helper=%v", helper), func(t *testing.T) {
			s := newTestSandbox(t, helper)
			if !s.Status().ReadOnlyPaths {
				t.Skip("no mount namespace: denied paths inside writable folders stay readable")
			}
			l := newLayout(t)
			home := filepath.Join(l.ws, "home")
			for p, text := range map[string]string{
				filepath.Join(l.ws, "secret.env"):              "TOKEN=1",
				filepath.Join(home, "config.toml"):             "api_key = 'k'",
				filepath.Join(home, "sessions", "s.jsonl"):     "{}",
				filepath.Join(home, "skills", "x", "SKILL.md"): "skill",
			} {
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p := l.policy(false)
			p.Deny = append(p.Deny, filepath.Join(l.ws, "secret.env"), home)
			p.Keep = append(p.Keep, filepath.Join(home, "skills"))
			for _, c := range []struct {
				line string
				ok   bool
			}{
				{"grep -q TOKEN secret.env", false},
				{"grep -q api_key home/config.toml", false},
				{"cat home/sessions/s.jsonl", false},
				{"cat home/skills/x/SKILL.md", true},
				{"echo ok > other.txt", true},
			} {
				if out, err := run(t, s, p, l.ws, c.line); (err == nil) != c.ok {
					t.Errorf("%q: err = %v, want ok=%v; output %q", c.line, err, c.ok, out)
				}
			}
		})
	}
}

// TestForkServerLikeExec: a process the fork server starts behaves as
// exec.Cmd's would for what the tools use: stdin from a reader, stdout
// and stderr into one writer, the exit status in ProcessState, a missing
// program, cancellation through cmd.Cancel, and WaitDelay with a
// background process holding the output open.
func TestForkServerLikeExec(t *testing.T) {
	s := newTestSandbox(t, true)
	l := newLayout(t)
	p := l.policy(false)
	start := func(ctx context.Context, cmd *exec.Cmd) (func() error, error) { return s.Start(ctx, cmd, p) }

	cmd := exec.Command("/bin/sh", "-c", "read line; echo \"got $line\"; echo err >&2; exit 3")
	cmd.Stdin = strings.NewReader("hello\n")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	wait, err := start(t.Context(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	err = wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
		t.Errorf("exit: err %v, state %v", err, cmd.ProcessState)
	}
	if got := out.String(); got != "got hello\nerr\n" {
		t.Errorf("output %q", got)
	}

	if _, err := start(t.Context(), exec.Command("/no/such/program")); err == nil {
		t.Error("a missing program started")
	}

	// The process has nothing of the server's: with the server's socket it could ask for forks or answer for it.
	cmd = exec.Command("/bin/ls", "-l", "/proc/self/fd")
	out.Reset()
	cmd.Stdout = &out
	if wait, err = start(t.Context(), cmd); err != nil {
		t.Fatal(err)
	}
	if err := wait(); err != nil || strings.Contains(out.String(), "socket:") {
		t.Errorf("descriptors: err %v, %s, want no socket", err, out.String())
	}

	ctx, cancel := context.WithCancel(t.Context())
	cmd = exec.CommandContext(ctx, "/bin/sleep", "30")
	wait, err = start(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	cancel()
	if err := wait(); err == nil || time.Since(began) > 10*time.Second {
		t.Errorf("cancel: err %v after %s", err, time.Since(began))
	}

	cmd = exec.Command("/bin/sh", "-c", "sleep 30 & echo started")
	out.Reset()
	cmd.Stdout = &out
	cmd.WaitDelay = 100 * time.Millisecond
	wait, err = start(t.Context(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := wait(); !errors.Is(err, exec.ErrWaitDelay) || !strings.Contains(out.String(), "started") {
		t.Errorf("WaitDelay: err %v, output %q", err, out.String())
	}
}

// TestHoleInReadOnly: a hole (a subagent's worktree under the read-only
// .clawseed/) is writable; the rest of the read-only folder is not, nor
// are the read-only paths inside the hole.
func TestHoleInReadOnly(t *testing.T) {
	for _, helper := range []bool{false, true} {
		t.Run(fmt.Sprintf("helper=%v", helper), func(t *testing.T) {
			s := newTestSandbox(t, helper)
			if !s.Status().ReadOnlyPaths {
				t.Skip("no mount namespace: control paths are not read-only here")
			}
			l := newLayout(t)
			control := filepath.Join(l.ws, ".clawseed")
			hole := filepath.Join(control, "worktrees", "w1")
			inner := filepath.Join(hole, ".clawseed")
			for _, d := range []string{inner} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			p := l.policy(false)
			p.ReadOnly = append(p.ReadOnly, control, inner)
			p.Holes = []string{hole}
			for _, c := range []struct {
				line string
				ok   bool
			}{
				{"echo x > .clawseed/worktrees/w1/file && mkdir .clawseed/worktrees/w1/sub", true},
				{"echo x > .clawseed/config.toml", false},
				{"mkdir .clawseed/worktrees/w2", false},
				{"echo x > .clawseed/worktrees/w1/.clawseed/config.toml", false},
				{"echo x > file2.txt", true},
			} {
				if out, err := run(t, s, p, l.ws, c.line); (err == nil) != c.ok {
					t.Errorf("%q: err = %v, want ok=%v; output %q", c.line, err, c.ok, out)
				}
			}
			// Without the hole, the worktree is read-only like the rest.
			p.Holes = nil
			if _, err := run(t, s, p, l.ws, "echo y > .clawseed/worktrees/w1/file3"); err == nil {
				t.Errorf("wrote inside the read-only folder without a hole")
			}
		})
	}
}
