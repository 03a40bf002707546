//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Confining a process in the process itself would cost a start of the
// helper — a start of the whole clawseed binary, several milliseconds — per
// process. A fork server avoids that: the helper is started once per policy
// in its namespaces, confines one of its threads and forks every process of
// that policy from it on request, with CLONE_PARENT, so that the process is
// this process's child (waited for here, killed with its group here) while
// it inherits the server thread's namespaces and Landlock domain. The
// server, not a thread of clawseed, holds that domain: a command may ptrace
// or signal a task in its own domain as far as the other checks allow, and
// the server is not dumpable and has no capability (restrictThread), so a
// command can at most kill it, and a new one is started.

// forkServerFD is where the helper in serve mode finds its socket.
const forkServerFD = 4

// maxForkRequest bounds one request (argument vector and environment).
const maxForkRequest = 4 << 20

// A forkRequest asks the server to start a process; its standard streams
// travel beside it (SCM_RIGHTS).
type forkRequest struct {
	Path    string   `json:"path"`
	Args    []string `json:"args"`
	Env     []string `json:"env"`
	Dir     string   `json:"dir,omitempty"`
	Setsid  bool     `json:"setsid,omitempty"`
	Setpgid bool     `json:"setpgid,omitempty"`
}

// A forkReply is the started process's pid, or why it did not start.
type forkReply struct {
	Pid int    `json:"pid,omitempty"`
	Err string `json:"err,omitempty"`
	// NotFound says the program does not exist (exec's 127).
	NotFound bool `json:"enoent,omitempty"`
}

// A forkServer is one running helper in serve mode.
type forkServer struct {
	pid  int // the server's, for the tests
	sock *os.File
	mu   sync.Mutex // one request at a time
	dead bool
	// mntNS is the server's mount namespace ("mnt:[N]"), which every
	// process it started shares and none can leave; "" when it is
	// clawseed's own or could not be read. See [killLeftovers].
	mntNS string
}

// startForkServer starts the helper in serve mode with pol: in user
// namespaces of its own on the helper path (st.Helper), else from a thread
// that took the namespaces itself ([startOnThread]).
func (s *Sandbox) startForkServer(st Status, pol helperPolicy) (*forkServer, error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: socketpair: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(pair[0]), "fork-server"), os.NewFile(uintptr(pair[1]), "fork-server")
	pol.Serve = true
	cmd := exec.Command(s.exe)
	cmd.Env = helperEnv()
	cmd.Stderr = os.Stderr
	f, err := s.wrap(cmd, pol, st.Helper)
	if err != nil {
		ours.Close()
		theirs.Close()
		return nil, err
	}
	defer f.Close()
	cmd.ExtraFiles = append(cmd.ExtraFiles, theirs) // fd 4
	if st.Helper {
		err = cmd.Start()
		if err != nil {
			err = fmt.Errorf("sandbox: start the fork server: %w", err)
		}
	} else {
		err = startOnThread(st, pol, cmd) // which waits for it
	}
	theirs.Close()
	if err != nil {
		ours.Close()
		return nil, err
	}
	// On the helper path the helper started first makes the mounts and
	// starts the server as its sibling, our child (helper_linux.go); the
	// helper ends. Either way the server says its pid once it is confined.
	reply, err := readHello(ours)
	if st.Helper {
		cmd.Wait()
	}
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("sandbox: start the fork server: %w", err)
	}
	if st.Helper {
		server, err := os.FindProcess(reply.Pid)
		if err != nil {
			ours.Close()
			return nil, fmt.Errorf("sandbox: start the fork server: %w", err)
		}
		go server.Wait() // reaps the server when it ends
	}
	return &forkServer{pid: reply.Pid, sock: ours, mntNS: privateMountNS(reply.Pid)}, nil
}

// privateMountNS is the mount namespace of process pid, "" when it cannot
// be read or is clawseed's own (then no process may be killed by it).
//
// Clawseed's own is the calling thread's, not /proc/self's: /proc/self
// names the main thread, and the goroutine that took the namespaces for a
// fork server ([startOnThread]) may have run on the main thread and
// locked it there, which puts the main thread in the server's namespace:
// compared with it, the server's would read as clawseed's own and its
// leftovers would live on. The caller runs on a thread that never took
// namespaces (those stay locked to their goroutine).
func privateMountNS(pid int) string {
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", pid))
	own, errOwn := os.Readlink("/proc/thread-self/ns/mnt")
	if errOwn != nil { // before Linux 3.17
		own, errOwn = os.Readlink("/proc/self/ns/mnt")
	}
	if err != nil || errOwn != nil || ns == own {
		return ""
	}
	return ns
}

// killLeftovers kills every process in the mount namespace ns (a fork
// server's, [privateMountNS]): what the commands of a session left running
// (`setsid … &`, a daemon) ends with the session, as it would with the
// session's terminal, instead of running on, confined but unattended. A
// process cannot leave that namespace (it holds no capability), so this
// finds all of them, however they detached.
func killLeftovers(ns string) {
	if ns == "" {
		return
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if link, err := os.Readlink("/proc/" + e.Name() + "/ns/mnt"); err == nil && link == ns {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
	}
}

// readHello reads the server's first message: its pid, or why it did not
// start.
func readHello(sock *os.File) (forkReply, error) {
	buf := make([]byte, 4096)
	n, _, _, _, err := unix.Recvmsg(int(sock.Fd()), buf, nil, 0)
	for err == syscall.EINTR {
		n, _, _, _, err = unix.Recvmsg(int(sock.Fd()), buf, nil, 0)
	}
	if err != nil {
		return forkReply{}, err
	}
	if n == 0 {
		return forkReply{}, errors.New("the helper ended without a word")
	}
	var reply forkReply
	if err := json.Unmarshal(buf[:n], &reply); err != nil {
		return forkReply{}, fmt.Errorf("bad first message: %w", err)
	}
	if reply.Err != "" {
		return forkReply{}, errors.New(reply.Err)
	}
	if reply.Pid <= 0 {
		return forkReply{}, fmt.Errorf("bad first message %q", buf[:n])
	}
	return reply, nil
}

// hello sends the server's first message.
func hello(r forkReply) {
	data, _ := json.Marshal(r)
	unix.Sendmsg(forkServerFD, data, nil, nil, 0)
}

// stop ends the server (closing its socket ends its loop).
func (fs *forkServer) stop() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.dead = true
	fs.sock.Close()
}

// errServerGone says the server ended; a new one is started.
var errServerGone = errors.New("the sandbox's fork server ended")

// start starts cmd through the server and returns how to wait for it. It
// does what cmd.Start and cmd.Wait do for the parts of exec.Cmd the tools
// use: Path, Args, Env, Dir, Stdin, Stdout, Stderr (files are passed as
// they are, anything else through a pipe copied here), Setsid and Setpgid,
// Cancel (else a kill) when ctx ends, WaitDelay, and Process and
// ProcessState set as exec sets them.
func (fs *forkServer) start(ctx context.Context, cmd *exec.Cmd) (func() error, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if cmd.Process != nil {
		return nil, errors.New("exec: already started")
	}
	io, err := newStdio(cmd)
	if err != nil {
		return nil, err
	}
	req := forkRequest{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir}
	if req.Env == nil {
		req.Env = os.Environ()
	}
	if a := cmd.SysProcAttr; a != nil {
		req.Setsid, req.Setpgid = a.Setsid, a.Setpgid
	}
	reply, err := fs.call(req, io.childFDs())
	io.closeChildEnds()
	if err != nil {
		io.closeAll()
		return nil, err
	}
	if reply.Err != "" {
		io.closeAll()
		if reply.NotFound {
			return nil, &exec.Error{Name: cmd.Path, Err: exec.ErrNotFound}
		}
		return nil, fmt.Errorf("sandbox: start %s: %s", cmd.Path, reply.Err)
	}
	p, err := os.FindProcess(reply.Pid)
	if err != nil {
		io.closeAll()
		return nil, err
	}
	cmd.Process = p
	io.startCopies()
	return func() error { return wait(ctx, cmd, io) }, nil
}

// call sends one request and reads its reply.
func (fs *forkServer) call(req forkRequest, fds []int) (forkReply, error) {
	data, err := json.Marshal(req)
	if err != nil {
		return forkReply{}, err
	}
	if len(data) > maxForkRequest {
		return forkReply{}, errors.New("sandbox: the command's arguments and environment are too large")
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.dead {
		return forkReply{}, errServerGone
	}
	conn := int(fs.sock.Fd())
	if err := unix.Sendmsg(conn, data, unix.UnixRights(fds...), nil, 0); err != nil {
		fs.dead = true
		return forkReply{}, errServerGone
	}
	buf := make([]byte, 4096)
	n, _, _, _, err := unix.Recvmsg(conn, buf, nil, 0)
	if err != nil || n == 0 {
		fs.dead = true
		return forkReply{}, errServerGone
	}
	var reply forkReply
	if err := json.Unmarshal(buf[:n], &reply); err != nil {
		return forkReply{}, fmt.Errorf("sandbox: fork server reply: %w", err)
	}
	return reply, nil
}

// wait is cmd.Wait for a process the server started.
func wait(ctx context.Context, cmd *exec.Cmd, io *stdio) error {
	exited := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			if cmd.Cancel != nil {
				cmd.Cancel()
			} else {
				cmd.Process.Kill()
			}
		case <-exited:
		}
	}()
	state, err := cmd.Process.Wait()
	close(exited)
	cmd.ProcessState = state
	copyErr, delayed := io.wait(cmd.WaitDelay)
	switch {
	case err != nil:
		return err
	case !state.Success():
		return &exec.ExitError{ProcessState: state}
	case copyErr != nil:
		return copyErr
	case delayed:
		return exec.ErrWaitDelay
	}
	return nil
}

// stdio are the standard streams of a process the server starts: the
// file each gets, and for a stream that is not a file, the pipe and the
// goroutine copying it.
type stdio struct {
	child  [3]*os.File // what the process gets
	owned  [3]bool     // child[i] was opened here (closed after the start)
	parent []*os.File  // this side of the pipes, closed after the copies
	copies []func() error
	errs   chan error
}

func newStdio(cmd *exec.Cmd) (*stdio, error) {
	s := &stdio{}
	fail := func(err error) (*stdio, error) {
		s.closeChildEnds()
		s.closeAll()
		return nil, err
	}
	switch r := cmd.Stdin.(type) {
	case nil:
		f, err := os.Open(os.DevNull)
		if err != nil {
			return fail(err)
		}
		s.child[0], s.owned[0] = f, true
	case *os.File:
		s.child[0] = r
	default:
		pr, pw, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		s.child[0], s.owned[0] = pr, true
		s.parent = append(s.parent, pw)
		s.copies = append(s.copies, func() error {
			_, err := io.Copy(pw, r)
			pw.Close()
			if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
				err = nil // the process did not read it all
			}
			return err
		})
	}
	for i, w := range []io.Writer{cmd.Stdout, cmd.Stderr} {
		fd := i + 1
		if fd == 2 && cmd.Stderr != nil && cmd.Stderr == cmd.Stdout {
			s.child[2] = s.child[1]
			continue
		}
		switch w := w.(type) {
		case nil:
			f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				return fail(err)
			}
			s.child[fd], s.owned[fd] = f, true
		case *os.File:
			s.child[fd] = w
		default:
			pr, pw, err := os.Pipe()
			if err != nil {
				return fail(err)
			}
			s.child[fd], s.owned[fd] = pw, true
			s.parent = append(s.parent, pr)
			s.copies = append(s.copies, func() error {
				_, err := io.Copy(w, pr)
				if errors.Is(err, os.ErrClosed) {
					err = nil // WaitDelay closed it
				}
				return err
			})
		}
	}
	return s, nil
}

func (s *stdio) childFDs() []int {
	fds := make([]int, 3)
	for i, f := range s.child {
		fds[i] = int(f.Fd())
	}
	return fds
}

// closeChildEnds closes what was opened for the process, now that it has
// its own copies.
func (s *stdio) closeChildEnds() {
	for i, f := range s.child {
		if f != nil && s.owned[i] && (i != 2 || s.child[2] != s.child[1]) {
			f.Close()
		}
	}
}

// closeAll closes this side of the pipes.
func (s *stdio) closeAll() {
	for _, f := range s.parent {
		f.Close()
	}
}

func (s *stdio) startCopies() {
	s.errs = make(chan error, len(s.copies))
	for _, c := range s.copies {
		go func() { s.errs <- c() }()
	}
}

// wait waits for the copies after the process ended: for ever, or up to
// delay, after which the pipes are closed (a background process holding
// them open) and delayed is true.
func (s *stdio) wait(delay time.Duration) (err error, delayed bool) {
	var timeout <-chan time.Time
	if delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		timeout = t.C
	}
	for remaining := len(s.copies); remaining > 0; {
		select {
		case e := <-s.errs:
			remaining--
			if err == nil && !delayed {
				err = e
			}
		case <-timeout:
			delayed, timeout = true, nil
			s.closeAll()
		}
	}
	if !delayed {
		s.closeAll()
	}
	return err, delayed
}

// serve is the helper's serve mode: it confines this (locked) thread —
// which also makes the server not dumpable and leaves the thread no
// capability (restrictThread) — and forks the processes asked for on the
// socket from it, until the socket closes.
func serve(pol helperPolicy) int {
	// The socket is not the processes' to inherit: with it a process
	// could ask for forks or answer in the server's place.
	unix.CloseOnExec(forkServerFD)
	// The server dies with clawseed (its parent: it was started as the
	// first stage's sibling); the socket closing would end it too.
	unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0)
	if err := restrictThread(pol.ABI, pol.Rules, pol.Network); err != nil {
		hello(forkReply{Err: err.Error()})
		fmt.Fprintf(os.Stderr, "clawseed sandbox: %v\n", err)
		return 126
	}
	hello(forkReply{Pid: os.Getpid()})
	conn := forkServerFD
	buf := make([]byte, maxForkRequest)
	oob := make([]byte, unix.CmsgSpace(3*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(conn, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return 0 // clawseed closed the socket or ended
		}
		fds := receivedFDs(oob[:oobn])
		reply := forkOne(buf[:n], fds)
		for _, fd := range fds {
			unix.Close(fd)
		}
		data, _ := json.Marshal(reply)
		if err := unix.Sendmsg(conn, data, nil, nil, 0); err != nil {
			return 0
		}
	}
}

// receivedFDs returns the descriptors that came with a request.
func receivedFDs(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

// forkOne starts one requested process from this thread.
func forkOne(data []byte, fds []int) forkReply {
	var req forkRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return forkReply{Err: "bad request: " + err.Error()}
	}
	if len(fds) != 3 {
		return forkReply{Err: fmt.Sprintf("bad request: %d descriptors", len(fds))}
	}
	pid, err := syscall.ForkExec(req.Path, req.Args, &syscall.ProcAttr{
		Dir:   req.Dir,
		Env:   req.Env,
		Files: []uintptr{uintptr(fds[0]), uintptr(fds[1]), uintptr(fds[2])},
		// CLONE_PARENT: the process is clawseed's child, not the server's.
		Sys: &syscall.SysProcAttr{Setsid: req.Setsid, Setpgid: req.Setpgid, Cloneflags: syscall.CLONE_PARENT},
	})
	if err != nil {
		return forkReply{Err: err.Error(), NotFound: errors.Is(err, syscall.ENOENT)}
	}
	return forkReply{Pid: pid}
}
