// Package pgtest starts a real PostgreSQL server for tests: Debian's
// postgresql package (initdb and postgres, found on PATH or in
// /usr/lib/postgresql/*/bin), a throw-away cluster in a temporary folder,
// listening on a free loopback port and on a unix socket in that folder,
// tuned for speed (no fsync, small buffers). One server is shared by the
// tests of a package; each test gets a database of its own:
//
//	var pg = pgtest.New()
//
//	func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }
//
//	func TestX(t *testing.T) {
//		url := pg.Database(t) // skips the test when PostgreSQL is not installed
//		...
//	}
//
// The server starts at the first Database call, so a run that selects no
// such test starts nothing. PostgreSQL refuses to run as root: as root
// (containers, CI) the server runs as the `postgres` user the Debian package
// creates, and the folder is made its own.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// SkipMessage is the reason tests skip when the server cannot be started
// because PostgreSQL is not installed.
const SkipMessage = "PostgreSQL not installed: apt-get install -y postgresql"

// startTimeout bounds initdb plus the server's start on a loaded machine.
const startTimeout = 90 * time.Second

// A Server is a PostgreSQL server for the tests of one package, started
// lazily. Its methods are safe for concurrent use.
type Server struct {
	once sync.Once
	// Set by start:
	skip    string // why tests skip ("" when the server runs)
	err     error  // why the server failed although installed
	dir     string // the temporary folder: data, socket, log
	port    int
	cmd     *exec.Cmd
	exited  chan struct{}
	counter atomic.Int64
}

// New returns a server that starts at its first use.
func New() *Server { return &Server{} }

// Main runs the package's tests and stops the server after them: call it
// from TestMain.
func (s *Server) Main(m *testing.M) int {
	code := m.Run()
	s.Stop()
	return code
}

// Database creates a new, empty database for t and returns its URL
// (postgres://…@127.0.0.1:PORT/NAME). It skips t when PostgreSQL is not
// installed and fails it when the server could not start.
func (s *Server) Database(t testing.TB) string {
	t.Helper()
	url, err := s.NewDatabase(context.Background())
	var skip *SkipError
	if errors.As(err, &skip) {
		t.Skip(skip.Reason)
	}
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// A SkipError says why no server can run here (PostgreSQL not installed,
// or no unprivileged user to run it as).
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return e.Reason }

// NewDatabase is [Server.Database] for callers without a testing.TB
// (testscript's Setup): an error that is a *[SkipError] means skip.
func (s *Server) NewDatabase(ctx context.Context) (string, error) {
	s.once.Do(s.start)
	if s.skip != "" {
		return "", &SkipError{Reason: s.skip}
	}
	if s.err != nil {
		return "", s.err
	}
	name := fmt.Sprintf("t%d", s.counter.Add(1))
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return "", fmt.Errorf("pgtest: connect: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("pgtest: create database: %w", err)
	}
	return s.URL(name), nil
}

// URL is the connection URL of database name on the server.
func (s *Server) URL(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, name)
}

// Stop stops the server (immediate shutdown: the cluster is thrown away)
// and removes its folder. It does nothing when the server never started.
func (s *Server) Stop() {
	s.once.Do(func() { s.skip = "pgtest: stopped" }) // never start after Stop
	s.stop()
}

// stop ends the server process and removes the folder.
func (s *Server) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
		s.cmd = nil
	}
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
		s.dir = ""
	}
}

// Available reports why no server can run here (a *[SkipError]: not
// installed, or no unprivileged user to run it as), nil when one can: a
// testscript condition.
func Available() error {
	if _, ok := binDir(); !ok {
		return &SkipError{Reason: SkipMessage}
	}
	if _, why := runAs(); why != "" {
		return &SkipError{Reason: why}
	}
	return nil
}

// start sets skip, or err, or a running server.
func (s *Server) start() {
	if err := Available(); err != nil {
		s.skip = err.Error()
		return
	}
	bin, _ := binDir()
	cred, _ := runAs()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := s.run(ctx, bin, cred); err != nil {
		s.err = fmt.Errorf("pgtest: start PostgreSQL from %s: %w", bin, err)
		s.stop()
	}
}

// run makes the cluster and starts the server in it.
func (s *Server) run(ctx context.Context, bin string, cred *syscall.Credential) error {
	// Not t.TempDir: its parents are private to the test process's user,
	// and the server may run as another.
	dir, err := os.MkdirTemp("", "clawseed-pgtest-")
	if err != nil {
		return err
	}
	s.dir = dir
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := command(ctx, cred, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres",
		"--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions")
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	// A free port can be taken by another test process between the probe
	// and the server's bind: try a few.
	var last error
	for range 5 {
		port, err := freePort()
		if err != nil {
			return err
		}
		if last = s.serve(ctx, bin, cred, data, port); last == nil {
			return nil
		}
	}
	return last
}

// serve starts the server on port and waits until it accepts connections.
func (s *Server) serve(ctx context.Context, bin string, cred *syscall.Credential, data string, port int) error {
	logPath := filepath.Join(s.dir, "postgres.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	// postgres itself rather than pg_ctl: the test process keeps the
	// server as its child, which dies with it (Pdeathsig) instead of
	// outliving a killed `go test`.
	cmd := command(context.Background(), cred, filepath.Join(bin, "postgres"), "-D", data,
		"-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories="+s.dir,
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
		"-c", "shared_buffers=16MB",
		"-c", "max_connections=400",
		"-c", "max_wal_size=256MB",
		"-c", "logging_collector=off",
		"-c", "log_min_messages=warning")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	// Pdeathsig fires when the THREAD that started the child exits, not
	// the process: Go ends threads (a goroutine that locked its thread and
	// returned, as the sandbox's confined starts do), which stopped the
	// server in the middle of a test. The server is started and waited for
	// on a thread of its own, kept until it exits.
	exited := make(chan struct{})
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		close(exited)
	}()
	if err := <-started; err != nil {
		return err
	}
	s.cmd, s.exited, s.port = cmd, exited, port
	for {
		conn, err := pgx.Connect(ctx, s.URL("postgres"))
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		select {
		case <-exited:
			s.cmd = nil
			log, _ := os.ReadFile(logPath)
			return fmt.Errorf("postgres exited: %s", tail(string(log)))
		case <-ctx.Done():
			return fmt.Errorf("postgres did not accept connections: %w", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// command is an exec.Cmd run as cred (nil: the current user).
func command(ctx context.Context, cred *syscall.Credential, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if cred != nil {
		cmd.Dir = "/" // the test's folder may be closed to the server's user
	}
	return cmd
}

// binDir finds the folder of initdb and postgres: PATH, else the newest
// /usr/lib/postgresql/VERSION/bin.
func binDir() (string, bool) {
	if p, err := exec.LookPath("initdb"); err == nil {
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, true
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, true
		}
	}
	return "", false
}

// version is the major version in /usr/lib/postgresql/VERSION/bin.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// runAs returns the user the server runs as: nil for the current user,
// the postgres user when the current one is root (initdb refuses root);
// why is set when there is none.
func runAs() (*syscall.Credential, string) {
	if os.Geteuid() != 0 {
		return nil, ""
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, "PostgreSQL refuses to run as root and there is no postgres user: apt-get install -y postgresql creates it"
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, "the postgres user's ids are not numbers: " + err.Error()
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, ""
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail is the end of a server log, for an error.
func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}
