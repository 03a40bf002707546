//go:build linux

package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// A Sandbox starts processes under policies ([Sandbox.Start]). It probes
// the machine once, at the first use, and keeps the rules of each policy
// and one fork server per policy (forkserver_linux.go). The zero value is
// not usable: make one with [New].
type Sandbox struct {
	exe, argv0 string

	probeOnce sync.Once
	status    Status

	mu      sync.Mutex
	rules   map[string][]rule
	servers map[string]*forkServer

	// userNS says whether the helper can take namespaces ([Sandbox.Wrap]);
	// probed once, when first needed.
	userNSOnce sync.Once
	userNS     bool
}

// maxServers bounds the fork servers kept: a policy whose read-only paths
// changed (a control folder created) gets a new one.
const maxServers = 8

// New returns a Sandbox whose helper is the executable exe, started with
// argv0 as its name: clawseed itself, normally "/proc/self/exe" (the
// running binary even if its file was replaced) and os.Args[0].
func New(exe, argv0 string) *Sandbox {
	return &Sandbox{exe: exe, argv0: argv0, rules: map[string][]rule{}, servers: map[string]*forkServer{}}
}

// Unavailable returns a Sandbox that confines nothing and says why: what
// [New] gives on a machine without Landlock, for the callers' tests of
// that case.
func Unavailable(reason string) *Sandbox {
	s := New("", "")
	s.probeOnce.Do(func() { s.status = Status{Reason: reason} })
	return s
}

// Status probes the machine (once) and says how processes are confined.
func (s *Sandbox) Status() Status {
	s.probeOnce.Do(func() { s.status = s.probe() })
	return s.status
}

// ErrUnavailable is returned by [Sandbox.Start] where processes cannot be
// confined.
var ErrUnavailable = errors.New("the sandbox is not available on this machine")

// Start starts cmd confined by p, in place of cmd.Start, and returns what
// waits for it in place of cmd.Wait (which it may be): ctx ending kills the
// process as exec.CommandContext would (cmd.Cancel, else a kill). When the
// process cannot be confined it is not started and the error says why.
func (s *Sandbox) Start(ctx context.Context, cmd *exec.Cmd, p Policy) (wait func() error, err error) {
	st := s.Status()
	if !st.Active {
		return nil, ErrUnavailable
	}
	pol := helperPolicy{ABI: st.ABI, Rules: s.rulesOf(p), Network: p.Network}
	if st.ReadOnlyPaths {
		pol = p.withMounts(pol)
	}
	return s.startServed(ctx, cmd, st, pol)
}

// startServed starts cmd through the fork server of pol, starting the
// server first (and once more if it ended). Every path forks commands
// from a fork server, never from a thread of clawseed's own: the process
// holding a command's Landlock domain is one with nothing to steal, not
// dumpable and without capabilities ([restrictThread]), and clawseed has
// no thread in that domain, so a command can neither read its memory nor
// (with Landlock's signal scoping) signal it.
func (s *Sandbox) startServed(ctx context.Context, cmd *exec.Cmd, st Status, pol helperPolicy) (func() error, error) {
	data, _ := json.Marshal(pol)
	sum := sha256.Sum256(data)
	key := hex.EncodeToString(sum[:])
	for attempt := 0; ; attempt++ {
		s.mu.Lock()
		fs, ok := s.servers[key]
		if !ok {
			if len(s.servers) >= maxServers {
				for k, old := range s.servers {
					old.stop()
					delete(s.servers, k)
					break
				}
			}
			var err error
			if fs, err = s.startForkServer(st, pol); err != nil {
				s.mu.Unlock()
				return nil, err
			}
			s.servers[key] = fs
		}
		s.mu.Unlock()
		wait, err := fs.start(ctx, cmd)
		if !errors.Is(err, errServerGone) || attempt > 0 {
			return wait, err
		}
		s.mu.Lock()
		if s.servers[key] == fs {
			delete(s.servers, key)
		}
		s.mu.Unlock()
	}
}

// Close ends the fork servers, and every process their commands left
// running ([killLeftovers]): Close is the session's end.
func (s *Sandbox) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, fs := range s.servers {
		fs.stop()
		killLeftovers(fs.mntNS)
		delete(s.servers, k)
	}
}

// rulesOf returns p's rules, computed once per policy (the walk lists the
// folders on the way to every denied path).
func (s *Sandbox) rulesOf(p Policy) []rule {
	key := strings.Join(p.Deny, "\x00") + "\x01" + strings.Join(p.Keep, "\x00") + "\x01" + strings.Join(p.Writable, "\x00")
	s.mu.Lock()
	r, ok := s.rules[key]
	s.mu.Unlock()
	if ok {
		return r
	}
	r = p.rules()
	s.mu.Lock()
	s.rules[key] = r
	s.mu.Unlock()
	return r
}

// startOnThread starts cmd, the fork server of pol on the thread path,
// from an OS thread of its own that first takes the policy's mount and
// (without network) network namespaces, when the status says this process
// may, and drops every capability ([dropPrivileges]): the server inherits
// the namespaces and starts without capabilities in any of its threads.
// The thread then waits for the server and ends with it (it is never handed
// back to the runtime); the server's death signal is tied to it.
func startOnThread(st Status, pol helperPolicy, cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // for good: the thread changed its namespaces and credentials
		if err := namespaceThread(st, pol); err != nil {
			errc <- err
			return
		}
		if err := cmd.Start(); err != nil {
			errc <- fmt.Errorf("sandbox: start the fork server: %w", err)
			return
		}
		errc <- nil
		cmd.Wait()
	}()
	return <-errc
}

// namespaceThread takes a mount namespace with the read-only and hiding
// mounts and, without network, a network namespace (when the status says
// the process may), then drops the thread's capabilities. The Landlock
// domain is the fork server's own to take (serve).
func namespaceThread(st Status, pol helperPolicy) error {
	if st.ReadOnlyPaths || st.NetNamespace {
		flags := unix.CLONE_NEWNS
		if !pol.Network && st.NetNamespace {
			flags |= unix.CLONE_NEWNET
		}
		if err := unix.Unshare(flags); err != nil {
			return fmt.Errorf("sandbox: unshare: %w", err)
		}
		if err := setupMounts(pol); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	if err := dropPrivileges(); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	return nil
}

// probe finds how this process can confine others: Landlock's ABI, then
// whether a thread may take mount and network namespaces itself (root or
// CAP_SYS_ADMIN: the thread path), else whether the helper works in a user
// namespace (the helper path), else Landlock alone.
func (s *Sandbox) probe() Status {
	abi := landlockABI()
	if abi < 1 {
		return Status{Reason: "the kernel has no Landlock (Linux 5.13 or later, with landlock in the lsm= list)"}
	}
	st := Status{Active: true, ABI: abi, NetworkRules: abi >= 4}
	if err := threadNamespaces(); err == nil {
		st.ReadOnlyPaths, st.NetNamespace, st.NetworkRules = true, true, true
		return st
	}
	err := s.probeHelper(abi)
	if err == nil {
		st.Helper, st.ReadOnlyPaths, st.NetNamespace, st.NetworkRules = true, true, true, true
		return st
	}
	st.Reason = "no user namespaces: " + err.Error()
	if !st.NetworkRules {
		st.Reason += "; Landlock ABI < 4 has no network rules"
	}
	return st
}

// threadNamespaces reports whether a thread of this process may take new
// mount and network namespaces, on a thread thrown away afterwards.
func threadNamespaces() error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		errc <- unix.Unshare(unix.CLONE_NEWNS | unix.CLONE_NEWNET)
	}()
	return <-errc
}

// probeHelper starts the helper in probe mode in new namespaces: it binds a
// file read-only, confines itself and checks that the file cannot be
// written.
func (s *Sandbox) probeHelper(abi int) error {
	dir, err := os.MkdirTemp("", "clawseed-sandbox-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	file := dir + "/probe"
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		return err
	}
	dir, _ = realPathOf(dir)
	file = dir + "/probe"
	cmd := exec.Command(s.exe)
	cmd.Env = helperEnv()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	pol := helperPolicy{ABI: abi, Probe: file, ReadOnly: []string{file},
		Rules: []rule{{Path: "/", Access: accessRead}, {Path: dir, Access: accessWrite}}}
	if err := s.startHelper(cmd, pol); err != nil {
		return err
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(out.String()))
	}
	if strings.TrimSpace(out.String()) != "ok" {
		return fmt.Errorf("unexpected answer %q", out.String())
	}
	return nil
}

func realPathOf(p string) (string, error) {
	r := existingReal([]string{p})
	if len(r) == 0 {
		return p, errors.New("not found")
	}
	return r[0], nil
}

// helperPolicyFD is where the helper reads its policy ([Sandbox.wrap]).
const helperPolicyFD = 3

// A helperPolicy is what the helper applies before executing the command.
type helperPolicy struct {
	ABI      int      `json:"abi"`
	Rules    []rule   `json:"rules"`
	ReadOnly []string `json:"ro,omitempty"`
	// Hide are denied paths inside writable folders, mounted over empty.
	Hide []string `json:"hide,omitempty"`
	// Holes are writable folders inside read-only ones ([Policy.Holes]).
	Holes   []string `json:"holes,omitempty"`
	Network bool     `json:"net,omitempty"`
	// Probe, when set, makes the helper check that this file (bound
	// read-only) cannot be written, print "ok" and exit, instead of
	// executing anything.
	Probe string `json:"probe,omitempty"`
	// Serve makes the helper a fork server (forkserver_linux.go).
	Serve bool `json:"serve,omitempty"`
	// Writable are the real paths of [Policy.Writable], where a folder
	// above a read-only path could be renamed ([setupMounts]).
	Writable []string `json:"w,omitempty"`
	// Outer makes the helper the first of two stages (helper_linux.go):
	// it runs as root in its user namespace, makes the mounts and starts
	// the second stage as UID and GID, the user's ids outside.
	Outer bool `json:"outer,omitempty"`
	UID   int  `json:"uid,omitempty"`
	GID   int  `json:"gid,omitempty"`
}

// withMounts returns pol with what the mounts of p need: the read-only
// paths that exist where something is writable, the holes and writable
// folders that exist, and the denied paths to hide.
func (p Policy) withMounts(pol helperPolicy) helperPolicy {
	pol.ReadOnly, pol.Hide, pol.Holes = p.readOnlyMounts(), p.hidden(), existingReal(p.Holes)
	pol.Writable = existingReal(p.Writable)
	return pol
}

// startHelper starts cmd through the helper ([Sandbox.wrap]).
func (s *Sandbox) startHelper(cmd *exec.Cmd, pol helperPolicy) error {
	f, err := s.wrap(cmd, pol, true)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	return nil
}

// Wrap prepares cmd to start confined by p, through the helper, for code
// that calls cmd.Start itself (the MCP SDK starts its servers). The
// helper takes user, mount and network namespaces where this machine lets
// it (see [Status]); where not, Landlock alone.
func (s *Sandbox) Wrap(cmd *exec.Cmd, p Policy) error {
	st := s.Status()
	if !st.Active {
		return ErrUnavailable
	}
	s.userNSOnce.Do(func() { s.userNS = st.Helper || s.probeHelper(st.ABI) == nil })
	pol := helperPolicy{ABI: st.ABI, Rules: s.rulesOf(p), Network: p.Network}
	if s.userNS {
		pol = p.withMounts(pol)
	}
	// The policy file stays open until the garbage collector finds it:
	// the caller starts cmd whenever it likes, and the child gets a copy.
	_, err := s.wrap(cmd, pol, s.userNS)
	return err
}

// wrap makes cmd run the helper — clawseed re-executed with [HelperArg] —
// which reads pol from the returned file (an anonymous memory file, so no
// limit of the environment or the argument list applies), to close once
// cmd has started. With namespaces, the helper starts in new user, mount
// (and, without network, network) namespaces, where it becomes root mapped
// to the caller's user and group, so that it may mount; it is then the
// first of two stages (helper_linux.go), and no command runs as that root.
func (s *Sandbox) wrap(cmd *exec.Cmd, pol helperPolicy, namespaces bool) (*os.File, error) {
	if len(cmd.ExtraFiles) > 0 {
		return nil, errors.New("sandbox: a confined command cannot take extra files")
	}
	uid, gid := os.Getuid(), os.Getgid()
	if namespaces {
		pol.Outer, pol.UID, pol.GID = true, uid, gid
	}
	f, err := policyFile(pol)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	target := cmd.Path
	if pol.Probe != "" {
		target = ""
	}
	cmd.ExtraFiles = []*os.File{f}
	cmd.Args = append([]string{s.argv0, HelperArg, target}, cmd.Args...)
	cmd.Path = s.exe
	if cmd.Err != nil {
		// exec.Command could not find the program: the helper reports
		// it, as exec would have, with 127.
		cmd.Err = nil
	}
	if !namespaces {
		return f, nil
	}
	attr := &syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		c := *cmd.SysProcAttr
		attr = &c
	}
	attr.Cloneflags |= unix.CLONE_NEWUSER | unix.CLONE_NEWNS
	if !pol.Network {
		attr.Cloneflags |= unix.CLONE_NEWNET
	}
	// The helper maps its user itself ([mapSelf]), keeping across its
	// execution the capabilities it needs for that and for the mounts:
	// clawseed could not write the maps of a child it forks, since it is
	// not dumpable (internal/procenv), and until the child executes, the
	// child's /proc files are root's.
	attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETUID, unix.CAP_SETGID, unix.CAP_SETFCAP}
	cmd.SysProcAttr = attr
	return f, nil
}
