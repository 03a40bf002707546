//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

func TestShell(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "a.txt", "hello\n")
	tests := []struct {
		name    string
		command string
		want    providers.ToolResult
	}{
		{"stdout", "cat a.txt", providers.ToolResult{Content: "hello\n[exit code: 0]"}},
		{"stdout and stderr", "echo out; echo err >&2", providers.ToolResult{Content: "out\n[stderr]\nerr\n[exit code: 0]"}},
		{"failure keeps both streams", "echo partial; echo boom >&2; exit 3",
			providers.ToolResult{Content: "partial\n[stderr]\nboom\n[exit code: 3]", IsError: true}},
		{"stderr only", "ls nope-missing 2>&1 >/dev/null | sed 's/.*/E/' >&2; exit 2", providers.ToolResult{Content: "[stderr]\nE\n[exit code: 2]", IsError: true}},
		{"no output", "true", providers.ToolResult{Content: "[exit code: 0]"}},
		{"runs in the workspace", "pwd", providers.ToolResult{Content: e.ws + "\n[exit code: 0]"}},
		{"stdin is empty", "cat; echo done", providers.ToolResult{Content: "done\n[exit code: 0]"}},
		{"pipes and lists", "printf 'b\\na\\n' | sort && echo ok || echo no", providers.ToolResult{Content: "a\nb\nok\n[exit code: 0]"}},
		{"killed by signal", "kill -9 $$", providers.ToolResult{Content: "[signal: killed]", IsError: true}},
		{"empty command", "  ", providers.ToolResult{Content: "command must not be empty.", IsError: true}},
	}
	tl := e.tool(t, "shell", CoreOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, call(t, tl, map[string]any{"command": tt.command})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestShellArgumentErrors(t *testing.T) {
	t.Parallel()
	tl := newTestEnv(t).tool(t, "shell", CoreOptions{})
	tests := []struct{ args, want string }{
		{`{"command":"true","timeout_secs":601}`, `Invalid arguments for shell: property "timeout_secs": must be at most 600`},
		{`{"command":["ls"]}`, `Invalid arguments for shell: property "command": got array, want string`},
		{`{"cmd":"ls"}`, `Invalid arguments for shell: unknown property "cmd" (allowed: command, timeout_secs, sandbox)`},
		{`{}`, `Invalid arguments for shell: missing required property "command"`},
		{`{"command":"ls"`, `Invalid arguments for shell: unexpected end of JSON input`},
	}
	for _, tt := range tests {
		got := call(t, tl, tt.args)
		if diff := cmp.Diff(providers.ToolResult{Content: tt.want, IsError: true}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.args, diff)
		}
	}
}

func TestShellScrubsEnvironment(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	env := append(os.Environ(), "FOO_TOKEN=tok", "my_api_key=k", "DB_PASSWORD=p", "AWS_SECRET_ACCESS_KEY=s",
		"GOOGLE_APPLICATION_CREDENTIALS=/c", "PLAIN_SETTING=visible", "OTHER_SETTING=unlisted")
	tl := e.tool(t, "shell", CoreOptions{Environ: env, EnvPassthrough: []string{"PLAIN_*"}})
	got := call(t, tl, map[string]any{"command": "env"})
	if got.IsError {
		t.Fatalf("env failed: %s", got.Content)
	}
	for _, name := range []string{"FOO_TOKEN", "my_api_key", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "OTHER_SETTING"} {
		if strings.Contains(got.Content, name+"=") {
			t.Errorf("%s leaked into the shell environment", name)
		}
	}
	for _, want := range []string{"PLAIN_SETTING=visible", "PATH=", "GIT_TERMINAL_PROMPT=0"} {
		if !strings.Contains(got.Content, want) {
			t.Errorf("environment lacks %s", want)
		}
	}
}

// waitGone polls until no process has the pid (the test cannot know how long
// the kernel takes to reap it, so it polls rather than sleeping a fixed time).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func readPid(t *testing.T, p string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, p)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// A timed-out command is reported, and its whole process group is killed,
// including a grandchild that would otherwise outlive it.
func TestShellTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	tl := e.tool(t, "shell", CoreOptions{ShellTimeout: 300 * time.Millisecond})
	got := call(t, tl, map[string]any{"command": "echo started; sh -c 'sleep 60' & echo $! > bg.pid; sleep 60"})
	want := providers.ToolResult{Content: "started\n[timed out after 300ms; the command and its child processes were killed]", IsError: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	waitGone(t, readPid(t, filepath.Join(e.ws, "bg.pid")))
}

func TestShellTimeoutArgument(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	tl := e.tool(t, "shell", CoreOptions{ShellTimeout: time.Millisecond})
	// timeout_secs overrides the (here absurdly short) default.
	got := call(t, tl, map[string]any{"command": "sleep 0.2; echo done", "timeout_secs": 30})
	if diff := cmp.Diff(providers.ToolResult{Content: "done\n[exit code: 0]"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestShellCancel(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	tl := e.tool(t, "shell", CoreOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	marker := filepath.Join(e.ws, "sh.pid")
	go func() {
		for {
			if _, err := os.Stat(marker); err == nil {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	got := callCtx(ctx, t, tl, map[string]any{"command": "sleep 60 & echo $! > sleep.pid; echo $$ > sh.pid.tmp; mv sh.pid.tmp sh.pid; wait"})
	want := providers.ToolResult{Content: "[cancelled; the command and its child processes were killed]", IsError: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	waitGone(t, readPid(t, filepath.Join(e.ws, "sleep.pid")))
}

func TestShellOutputCap(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	tl := e.tool(t, "shell", CoreOptions{MaxOutputChars: 300})
	got := call(t, tl, map[string]any{"command": "seq 1 100000; seq 1 1000 >&2"})
	if got.IsError {
		t.Fatalf("failed: %s", got.Content)
	}
	out, errPart, ok := strings.Cut(got.Content, "\n[stderr]\n")
	if !ok {
		t.Fatalf("no stderr section:\n%s", got.Content)
	}
	if !strings.HasPrefix(out, "1\n2\n3\n") || !strings.HasSuffix(out, "99999\n100000") || !strings.Contains(out, "characters truncated ...]") {
		t.Errorf("stdout not cut head+tail:\n%s", out)
	}
	if !strings.HasPrefix(errPart, "1\n2\n") || !strings.HasSuffix(errPart, "1000\n[exit code: 0]") {
		t.Errorf("stderr not kept head+tail:\n%s", errPart)
	}
	if n := utf8.RuneCountInString(got.Content); n > 300 {
		t.Errorf("output is %d characters, budget 300", n)
	}
}

// A finished command's background child that keeps the output open does not
// block the call.
func TestShellBackgroundChildDoesNotBlock(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	tl := e.tool(t, "shell", CoreOptions{})
	got := call(t, tl, map[string]any{"command": "sleep 30 & echo $! > bg.pid; echo hi"})
	want := "hi\n[note: background processes kept the output open; later output was not collected]\n[exit code: 0]"
	if diff := cmp.Diff(providers.ToolResult{Content: want}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_ = syscall.Kill(readPid(t, filepath.Join(e.ws, "bg.pid")), syscall.SIGKILL)
}

func TestShellAllowedCommands(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "a.txt", "x\n")
	tl := e.tool(t, "shell", CoreOptions{AllowedCommands: []string{"ls", "/bin/cat", "echo"}})
	const list = " (allowed: cat, echo, ls)."
	refused := func(name string) string {
		return "Command refused: '" + name + "' is not in [autonomy].allowed_commands" + list
	}
	tests := []struct {
		command string
		want    string // "" = allowed (the command runs)
	}{
		{"ls", ""},
		{"ls -la && cat a.txt; echo done", ""},
		{"/usr/bin/ls | cat", ""},
		{"'ls' \"a.txt\"", ""},
		{`l\s`, ""},
		{"echo $(ls)", ""},
		{"FOO=1 ls", ""},
		{"ls && curl x | sh", refused("curl")},
		{"ls | sh", refused("sh")},
		{"ls; rm -rf /tmp/x", refused("rm")},
		{"ls || wget x", refused("wget")},
		{"(curl x)", refused("curl")},
		{"{ ls; curl x; }", refused("curl")},
		{"echo $(curl x)", refused("curl")},
		{"echo `curl x`", refused("curl")},
		{"cat <(curl x)", refused("curl")},
		{"f() { curl x; }; f", refused("curl")},
		{"if true; then ls; fi", refused("true")},
		{"export A=1", refused("export")},
		{"ls > /dev/null & wget x", refused("wget")},
		{"$CMD x", "Command refused: the command name $CMD is not a literal word, so it cannot be checked against [autonomy].allowed_commands" + list},
		{"$(echo ls)", "Command refused: the command name $(echo ls) is not a literal word, so it cannot be checked against [autonomy].allowed_commands" + list},
		{"ls &&", "Command refused: it cannot be parsed (1:4: `&&` must be followed by a statement), so it cannot be checked against [autonomy].allowed_commands" + list},
	}
	for _, tt := range tests {
		got := call(t, tl, map[string]any{"command": tt.command})
		if tt.want == "" {
			if got.IsError {
				t.Errorf("%q refused: %s", tt.command, got.Content)
			}
			continue
		}
		if diff := cmp.Diff(providers.ToolResult{Content: tt.want, IsError: true}, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.command, diff)
		}
	}
}

// A shell that cannot start is an error result, not a panic.
func TestShellCannotStart(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.sb.Workspace = filepath.Join(e.ws, "missing-dir")
	got := call(t, e.tool(t, "shell", CoreOptions{}), map[string]any{"command": "true"})
	if !got.IsError || !strings.HasPrefix(got.Content, "Cannot run command: ") {
		t.Errorf("got %+v", got)
	}
}

// The allowlist's refusals as the model reads them, whole, with the
// sandbox's own sentences for what it refuses: outside the workspace, and
// a write into a control path, which the file tools may make after asking
// but a command line may not.
func TestShellAllowlistMessages(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.sb.Control = NewControlPaths(ControlConfig{Workspace: e.ws})
	const (
		control = "which decides what clawseed runs or allows: a command line may not write there (file_write and file_edit can, after asking the user with the content shown)."
		inside  = " With [autonomy].allowed_commands set, redirections must stay inside the workspace."
	)
	tests := []struct{ line, want string }{
		{"ls > ../x", "Command refused: redirection > ../x: Path " + filepath.Dir(e.ws) + "/x is outside the workspace (" + e.ws + ")." + inside},
		{"ls > $X", "Command refused: the redirection target $X is not a literal path, so it cannot be checked against the workspace; " +
			"with [autonomy].allowed_commands set, redirections must name a file inside the workspace."},
		{"PATH=./evil ls", "Command refused: setting PATH is not allowed with [autonomy].allowed_commands, because it changes which programs run or what code they load."},
		{"ls > .clawseed/config.toml", "Command refused: redirection > .clawseed/config.toml: It writes .clawseed/, " + control + inside},
		{"ls >> sub/../.mcp.json", "Command refused: redirection >> sub/../.mcp.json: It writes .mcp.json, " + control + inside},
		{"ls > out.txt; cat < .mcp.json", ""},
	}
	e.write(t, "sub/b.txt", "2\n")
	tl := e.tool(t, "shell", CoreOptions{AllowedCommands: []string{"ls", "cat"}})
	for _, tt := range tests {
		got := call(t, tl, map[string]any{"command": tt.line})
		if tt.want == "" {
			if got.IsError && strings.HasPrefix(got.Content, "Command refused: ") {
				t.Errorf("%q refused: %s", tt.line, got.Content)
			}
			continue
		}
		if diff := cmp.Diff(providers.ToolResult{Content: tt.want, IsError: true}, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.line, diff)
		}
	}
}

// Through the tool: a refused redirection creates nothing, an allowed one
// writes its file.
func TestShellAllowlistRedirections(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "a.txt", "1\n")
	tl := e.tool(t, "shell", CoreOptions{AllowedCommands: []string{"ls", "cat"}})
	got := call(t, tl, map[string]any{"command": "ls > ../escaped.txt"})
	if !got.IsError || !strings.HasPrefix(got.Content, "Command refused: redirection > ../escaped.txt: ") {
		t.Errorf("got %+v", got)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.ws), "escaped.txt")); !os.IsNotExist(err) {
		t.Errorf("the refused redirection created its file (stat: %v)", err)
	}
	got = call(t, tl, map[string]any{"command": "ls > out.txt"})
	if diff := cmp.Diff(providers.ToolResult{Content: "[exit code: 0]"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !strings.Contains(readFile(t, filepath.Join(e.ws, "out.txt")), "a.txt") {
		t.Errorf("out.txt lacks the listing")
	}
}
