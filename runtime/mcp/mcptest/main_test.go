package mcptest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runMainEnv makes the test binary act as mcptestserver, the way
// cmd/clawseed's scripts run it.
const runMainEnv = "MCPTEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		os.Exit(Main())
	}
	os.Exit(m.Run())
}

// serverCmd is this test binary re-executed as mcptestserver ARGS.
func serverCmd(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		// Nobody reaped it: the test failed half-way.
		if cmd.Process != nil && cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, &stderr
}

// waitExit waits for a started server to exit by itself, killing it if it
// does not, and returns its exit code.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(waitLimit):
		_ = cmd.Process.Kill()
		<-done
		t.Error("the server did not exit")
	}
	return exitCode(cmd)
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "client", Version: "0"}, nil)
}

func exitCode(cmd *exec.Cmd) int {
	if cmd.ProcessState == nil {
		return -1
	}
	return cmd.ProcessState.ExitCode()
}

func wantText(t *testing.T, cs *mcp.ClientSession, tool string, args any, want string) {
	t.Helper()
	res := callTool(t, cs, tool, args)
	if diff := cmp.Diff([]string{"text: " + want}, render(res.Content)); diff != "" || res.IsError {
		t.Errorf("%s (IsError %v) (-want +got):\n%s", tool, res.IsError, diff)
	}
}

func TestMainStdio(t *testing.T) {
	dir := t.TempDir()
	cmd, stderr := serverCmd(t, "-name", "docs", "-tools", "2")
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "MCPTEST_PASSED=passed by the client")
	cs, err := newClient().Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr:\n%s", err, stderr)
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "docs" {
		t.Errorf("server name %q, want docs", got)
	}
	wantText(t, cs, "echo", map[string]any{"text": "over stdio"}, "echo: over stdio")
	wantText(t, cs, "env", map[string]any{"name": "MCPTEST_PASSED"}, "passed by the client")
	wd, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantText(t, cs, "cwd", nil, wd)
	wantText(t, cs, "tool_001", map[string]any{"query": "q"}, "tool_001: q")
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if code := exitCode(cmd); code != ExitOK {
		t.Errorf("exit code %d after stdin closed, want 0; stderr:\n%s", code, stderr)
	}
	for _, line := range []string{"mcptest: tools/call echo\n", "mcptest: tools/call tool_001\n", "mcptest: tools/call cwd\n"} {
		if !strings.Contains(stderr.String(), line) {
			t.Errorf("stderr lacks %q:\n%s", line, stderr)
		}
	}
}

// waitAddr waits for the address file a -http or -sse server writes.
func waitAddr(t *testing.T, path string, cmd *exec.Cmd, stderr *bytes.Buffer) string {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			return string(b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no address file; stderr:\n%s", stderr) // serverCmd's cleanup kills the server
	return ""
}

func TestMainHTTP(t *testing.T) {
	for _, tc := range []struct {
		flag      string
		transport func(url string) mcp.Transport
	}{
		{"-http", func(url string) mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: url} }},
		{"-sse", func(url string) mcp.Transport { return &mcp.SSEClientTransport{Endpoint: url} }},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			addr := filepath.Join(t.TempDir(), "addr")
			cmd, stderr := serverCmd(t, tc.flag, addr)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			url := waitAddr(t, addr, cmd, stderr)
			if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
				t.Errorf("address %q, want http://127.0.0.1:PORT/mcp", url)
			}
			cs, err := newClient().Connect(context.Background(), tc.transport(url), nil)
			if err != nil {
				t.Fatalf("connect: %v; stderr:\n%s", err, stderr)
			}
			wantText(t, cs, "echo", map[string]any{"text": "over HTTP"}, "echo: over HTTP")
			_ = cs.Close()
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if code := waitExit(t, cmd); code != ExitOK {
				t.Errorf("exit code %d after SIGTERM, want 0; stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stderr.String(), "mcptest: tools/call echo\n") {
				t.Errorf("stderr lacks the call:\n%s", stderr)
			}
		})
	}
}

func TestMainCrash(t *testing.T) {
	cmd, stderr := serverCmd(t, "-crash")
	_, err := newClient().Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err == nil {
		t.Fatal("connected to a server that crashes on start")
	}
	if cmd.ProcessState == nil {
		_ = cmd.Wait() // Connect failed before closing the transport
	}
	if code := exitCode(cmd); code != ExitCrash {
		t.Errorf("exit code %d, want %d", code, ExitCrash)
	}
	if stderr.String() != CrashedText+"\n" {
		t.Errorf("stderr %q, want %q", stderr, CrashedText+"\n")
	}
}

// TestMainCrashAfter: the first call is answered, then the server dies
// mid-session and the next call fails.
func TestMainCrashAfter(t *testing.T) {
	cmd, stderr := serverCmd(t, "-crash-after", "1")
	cs, err := newClient().Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr:\n%s", err, stderr)
	}
	wantText(t, cs, "echo", map[string]any{"text": "one"}, "echo: one")
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "two"}}); err == nil {
		t.Errorf("a call after the crash succeeded: %q", render(res.Content))
	} else if errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a call after the crash hung: %v", err)
	}
	_ = cs.Close()
	if code := exitCode(cmd); code != ExitCrashAfter {
		t.Errorf("exit code %d, want %d; stderr:\n%s", code, ExitCrashAfter, stderr)
	}
	if !strings.Contains(stderr.String(), "mcptest: crashed after 1 tools/call\n") {
		t.Errorf("stderr lacks the crash:\n%s", stderr)
	}
}

func TestMainCrashAfterHTTP(t *testing.T) {
	addr := filepath.Join(t.TempDir(), "addr")
	cmd, stderr := serverCmd(t, "-http", addr, "-crash-after", "1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cs, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: waitAddr(t, addr, cmd, stderr)}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr:\n%s", err, stderr)
	}
	defer cs.Close()
	wantText(t, cs, "echo", map[string]any{"text": "one"}, "echo: one")
	if code := waitExit(t, cmd); code != ExitCrashAfter {
		t.Errorf("exit code %d, want %d; stderr:\n%s", code, ExitCrashAfter, stderr)
	}
}

// TestMainHang: the server reads but never answers, so a connect runs
// into its deadline (over stdio and HTTP alike).
func TestMainHang(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		cmd, stderr := serverCmd(t, "-hang")
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		// Closing the transport after the failed connect closes stdin, waits
		// TerminateDuration, then sends SIGTERM, which ends the server.
		_, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 50 * time.Millisecond}, nil)
		if err == nil {
			t.Fatal("connected to a hanging server")
		}
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}
		if stderr.Len() != 0 {
			t.Errorf("a hanging server wrote to stderr:\n%s", stderr)
		}
	})
	t.Run("http", func(t *testing.T) {
		addr := filepath.Join(t.TempDir(), "addr")
		cmd, stderr := serverCmd(t, "-http", addr, "-hang")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		if _, err := newClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: waitAddr(t, addr, cmd, stderr)}, nil); err == nil {
			t.Fatal("connected to a hanging server")
		}
	})
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-crash"}, ExitCrash, CrashedText + "\n"},
		{[]string{"-bogus"}, ExitUsage, "flag provided but not defined: -bogus"},
		{[]string{"extra"}, ExitUsage, `mcptest: unexpected argument "extra"`},
		{[]string{"-http", "a", "-sse", "b"}, ExitUsage, "mcptest: -http and -sse exclude each other"},
		{[]string{"-tools", "-1"}, ExitUsage, "must not be negative"},
		{[]string{"-crash-after", "-2"}, ExitUsage, "must not be negative"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit %d and %q", tc.args, code, stderr.String(), stdout.String(), tc.code, tc.want)
		}
	}
}

// TestStdioEOF: a stdio server whose stdin is already closed exits 0.
func TestStdioEOF(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(nil, strings.NewReader(""), &stdout, &stderr); code != ExitOK || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 and no output", code, stdout.String(), stderr.String())
	}
}

// TestOrphanedServerExits: an HTTP server whose parent dies without
// stopping it (a test killed by its timeout) exits by itself.
func TestOrphanedServerExits(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to see a process that is not our child")
	}
	addr := filepath.Join(t.TempDir(), "addr")
	// The shell starts the server, waits for its address and exits,
	// leaving the server orphaned (and not holding the shell's stdout).
	script := `"$0" -http "$1" >/dev/null 2>&1 </dev/null & while [ ! -s "$1" ]; do sleep 0.05; done; echo $!`
	sh := exec.Command("sh", "-c", script, os.Args[0], addr)
	sh.Env = append(os.Environ(), runMainEnv+"=1")
	out, err := sh.Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	pid := strings.TrimSpace(string(out))
	deadline := time.Now().Add(waitLimit)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = exec.Command("kill", "-9", pid).Run()
			t.Fatal("the orphaned server is still running")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether process pid runs (a zombie has exited).
func alive(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}
