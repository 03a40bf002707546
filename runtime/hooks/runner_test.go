package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/internal/claudesettings"
	"github.com/clawseed/clawseed/runtime/tools"
)

// testExec runs command hooks as the app does: tools.RunCommand (its own
// process group, killed at the timeout) with the scrubbed environment
// built from environ.
func testExec(environ []string) func(context.Context, Command) CommandResult {
	return func(ctx context.Context, c Command) CommandResult {
		r := tools.RunCommand(ctx, tools.CommandSpec{Script: c.Script, Dir: c.Dir, Env: c.Env, Environ: environ,
			Stdin: c.Stdin, Timeout: c.Timeout, MaxOutput: 1 << 20})
		return CommandResult{Stdout: r.Stdout, Stderr: r.Stderr, ExitCode: r.ExitCode, TimedOut: r.TimedOut, Cancelled: r.Cancelled, Err: r.Err}
	}
}

var own = Source{Scope: claudesettings.ScopeUser, Path: "/home/u/.claude/settings.json", Own: true}
var project = Source{Scope: claudesettings.ScopeProject, Path: "/ws/.claude/settings.json"}

func cmdHook(event, matcher, command string, src Source) Hook {
	return Hook{Event: event, Matcher: matcher, Handler: claudesettings.Handler{Type: "command", Command: command}, Source: src}
}

func newTestRunner(t *testing.T, hooks ...Hook) (*Runner, string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("command hooks run by a POSIX shell")
	}
	ws := t.TempDir()
	r := New(Options{Hooks: hooks, Exec: testExec([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + ws, "SECRET_TOKEN=abc123"}), Workspace: ws})
	r.SetSession(Session{ID: "s1", TranscriptPath: "/sessions/s1.jsonl", PermissionMode: func() string { return "plan" }})
	return r, ws
}

func preToolUse(tool, args string) Event {
	return Event{Name: PreToolUse, Query: tool, Fields: map[string]any{
		"tool_name": ClaudeToolName(tool), "clawseed_tool_name": tool,
		"tool_input": ToolInput(tool, "/ws", json.RawMessage(args)), "tool_use_id": "call_1",
	}}
}

func TestRunnerExit2Blocks(t *testing.T) {
	t.Parallel()
	r, _ := newTestRunner(t, cmdHook(PreToolUse, "Bash", `grep -q '"rm ' && { echo "rm is not allowed here" >&2; exit 2; }; exit 0`, project))
	res := r.Fire(context.Background(), preToolUse("shell", `{"command":"rm -rf build"}`), nil)
	if res.Permission != "deny" || res.PermissionReason != "rm is not allowed here" {
		t.Fatalf("got %+v, want deny with the stderr", res)
	}
	res = r.Fire(context.Background(), preToolUse("shell", `{"command":"ls"}`), nil)
	if res.Permission != "" || res.Ran != 1 || len(res.Notes) != 0 {
		t.Fatalf("ls: got %+v, want nothing decided", res)
	}
	// The matcher leaves other tools alone.
	if res := r.Fire(context.Background(), preToolUse("file_read", `{"path":"rm x"}`), nil); res.Ran != 0 {
		t.Fatalf("file_read ran the Bash hook: %+v", res)
	}
}

func TestRunnerInput(t *testing.T) {
	t.Parallel()
	r, ws := newTestRunner(t, cmdHook(PreToolUse, "", `cat > in.json; echo "$CLAUDE_PROJECT_DIR" > dir.txt; pwd > pwd.txt`, own))
	r.Fire(context.Background(), preToolUse("file_write", `{"path":"a.txt","content":"x"}`), nil)
	var got map[string]any
	data, err := os.ReadFile(filepath.Join(ws, "in.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"session_id": "s1", "transcript_path": "/sessions/s1.jsonl", "cwd": ws, "permission_mode": "plan",
		"hook_event_name": "PreToolUse", "tool_name": "Write", "clawseed_tool_name": "file_write", "tool_use_id": "call_1",
		"tool_input": map[string]any{"file_path": "/ws/a.txt", "content": "x"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("input (-want +got)\n%s", diff)
	}
	for _, f := range []string{"dir.txt", "pwd.txt"} {
		if b, _ := os.ReadFile(filepath.Join(ws, f)); strings.TrimSpace(string(b)) != ws {
			t.Errorf("%s = %q, want the workspace %s", f, b, ws)
		}
	}
}

func TestRunnerEnvironmentScrubbed(t *testing.T) {
	t.Parallel()
	r, ws := newTestRunner(t, cmdHook(SessionStart, "", `env > env.txt`, own))
	r.Fire(context.Background(), Event{Name: SessionStart, Query: "startup"}, nil)
	env, err := os.ReadFile(filepath.Join(ws, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), "abc123") || strings.Contains(string(env), "SECRET_TOKEN") {
		t.Errorf("a secret reached the hook:\n%s", env)
	}
	if !strings.Contains(string(env), "CLAUDE_PROJECT_DIR="+ws) {
		t.Errorf("CLAUDE_PROJECT_DIR missing:\n%s", env)
	}
}

func TestRunnerTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	h := cmdHook(Stop, "", `sleep 30 & echo $! > child.pid; wait`, own)
	h.Timeout = 300 * time.Millisecond
	r, ws := newTestRunner(t, h)
	began := time.Now()
	res := r.Fire(context.Background(), Event{Name: Stop}, nil)
	if took := time.Since(began); took > 10*time.Second {
		t.Fatalf("Fire took %s", took)
	}
	if len(res.Notes) != 1 || !res.Notes[0].Warning || !strings.Contains(res.Notes[0].Text, "timed out after 300ms and was killed") {
		t.Fatalf("notes %+v, want one timeout warning", res.Notes)
	}
	if res.Block {
		t.Error("a hook that timed out blocked")
	}
	data, err := os.ReadFile(filepath.Join(ws, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the hook's child %d is still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid runs: it exists and is not a zombie (a killed
// orphan that a container's init may never reap).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	return err != nil || !strings.Contains(string(status), "State:\tZ")
}

func TestRunnerWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, command, note string
	}{
		{"bad json", `echo '{nope'`, "its output was ignored: not valid JSON"},
		{"exit 1", `echo broken >&2; exit 1`, "failed (exit code 1): broken"},
		{"missing program", `no-such-program-xyz`, "failed (exit code 127)"},
		{"wrong field type", `echo '{"continue":"no"}'`, `"continue" has the wrong type`},
	}
	for _, tt := range tests {
		r, _ := newTestRunner(t, cmdHook(PostToolUse, "", tt.command, own))
		res := r.Fire(context.Background(), Event{Name: PostToolUse, Query: "shell"}, nil)
		if len(res.Notes) != 1 || !res.Notes[0].Warning || !strings.Contains(res.Notes[0].Text, tt.note) {
			t.Errorf("%s: notes %+v, want a warning with %q", tt.name, res.Notes, tt.note)
		}
		if res.Block || res.Stop || len(res.Context) > 0 {
			t.Errorf("%s: a failed hook changed the result: %+v", tt.name, res)
		}
	}
}

func TestRunnerDedupeAndOrder(t *testing.T) {
	t.Parallel()
	same := `echo ran >> count.txt`
	r, ws := newTestRunner(t,
		cmdHook(UserPromptSubmit, "", same, own),
		cmdHook(UserPromptSubmit, "", `sleep 0.3; echo first`, own),
		cmdHook(UserPromptSubmit, "", same, project),
		cmdHook(UserPromptSubmit, "", `echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"second"}}'`, project),
	)
	res := r.Fire(context.Background(), Event{Name: UserPromptSubmit, Fields: map[string]any{"prompt": "hi"}}, nil)
	if diff := cmp.Diff([]string{"first", "second"}, res.Context); diff != "" {
		t.Errorf("context not in hook order (-want +got)\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "count.txt")); string(b) != "ran\n" {
		t.Errorf("identical commands ran %q, want once", b)
	}
	if res.Ran != 3 {
		t.Errorf("ran %d hooks, want 3", res.Ran)
	}
}

func TestRunnerPermissionPrecedence(t *testing.T) {
	t.Parallel()
	answer := func(decision, reason string) string {
		return `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"` + decision + `","permissionDecisionReason":"` + reason + `"}}'`
	}
	tests := []struct {
		name         string
		hooks        []Hook
		want, reason string
		warnings     int
	}{
		{"own allow", []Hook{cmdHook(PreToolUse, "", answer("allow", "fine"), own)}, "allow", "fine", 0},
		{"project allow ignored", []Hook{cmdHook(PreToolUse, "", answer("allow", "fine"), project)}, "", "", 1},
		{"ask over allow", []Hook{cmdHook(PreToolUse, "", answer("allow", "a"), own), cmdHook(PreToolUse, "", answer("ask", "b"), project)}, "ask", "b", 0},
		{"deny over ask", []Hook{cmdHook(PreToolUse, "", answer("ask", "a"), own), cmdHook(PreToolUse, "", answer("deny", "d"), project)}, "deny", "d", 0},
		{"two denies", []Hook{cmdHook(PreToolUse, "", answer("deny", "d1"), own), cmdHook(PreToolUse, "", answer("deny", "d2"), project)}, "deny", "d1\nd2", 0},
		{"legacy block", []Hook{cmdHook(PreToolUse, "", `echo '{"decision":"block","reason":"old"}'`, project)}, "deny", "old", 0},
		{"legacy approve", []Hook{cmdHook(PreToolUse, "", `echo '{"decision":"approve"}'`, own)}, "allow", "", 0},
	}
	for _, tt := range tests {
		r, _ := newTestRunner(t, tt.hooks...)
		res := r.Fire(context.Background(), preToolUse("shell", `{"command":"x"}`), nil)
		warnings := 0
		for _, n := range res.Notes {
			if n.Warning {
				warnings++
			}
		}
		if res.Permission != tt.want || res.PermissionReason != tt.reason || warnings != tt.warnings {
			t.Errorf("%s: got %q %q (%d warnings: %+v), want %q %q (%d)", tt.name, res.Permission, res.PermissionReason, warnings, res.Notes, tt.want, tt.reason, tt.warnings)
		}
	}
}

func TestRunnerOutputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, event, command string
		check                func(Result) bool
	}{
		{"plain text context", UserPromptSubmit, `echo remember this`, func(r Result) bool { return len(r.Context) == 1 && r.Context[0] == "remember this" }},
		{"plain text session start", SessionStart, `echo hello`, func(r Result) bool { return len(r.Context) == 1 }},
		{"plain text elsewhere ignored", PostToolUse, `echo hello`, func(r Result) bool { return len(r.Context) == 0 && len(r.Notes) == 0 }},
		{"prompt blocked", UserPromptSubmit, `echo '{"decision":"block","reason":"secret"}'`, func(r Result) bool { return r.Block && r.Reason == "secret" }},
		{"prompt exit 2", UserPromptSubmit, `echo nope >&2; exit 2`, func(r Result) bool { return r.Block && r.Reason == "nope" }},
		{"stop block", Stop, `echo '{"decision":"block","reason":"run the tests"}'`, func(r Result) bool { return r.Block && r.Reason == "run the tests" }},
		{"continue false", PostToolUse, `echo '{"continue":false,"stopReason":"enough"}'`, func(r Result) bool { return r.Stop && r.StopReason == "enough" }},
		{"system message", Notification, `echo '{"systemMessage":"look"}'`, func(r Result) bool { return len(r.Notes) == 1 && !r.Notes[0].Warning && r.Notes[0].Text == "look" }},
		{"exit 2 without a model", SessionStart, `echo why >&2; exit 2`, func(r Result) bool {
			return !r.Block && len(r.Notes) == 1 && strings.Contains(r.Notes[0].Text, "exit code 2: why")
		}},
		{"updated input", PreToolUse, `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls -la"}}}'`,
			func(r Result) bool { return r.UpdatedInput["command"] == "ls -la" && r.Permission == "" }},
		{"permission request deny", PermissionRequest, `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"m","interrupt":true}}}'`,
			func(r Result) bool { return r.Behavior == "deny" && r.Message == "m" && r.Stop }},
		{"permission request allow", PermissionRequest, `echo '{"hookSpecificOutput":{"decision":{"behavior":"allow"}}}'`, func(r Result) bool { return r.Behavior == "allow" }},
	}
	for _, tt := range tests {
		r, _ := newTestRunner(t, cmdHook(tt.event, "", tt.command, own))
		res := r.Fire(context.Background(), Event{Name: tt.event, Query: "shell"}, nil)
		if !tt.check(res) {
			t.Errorf("%s: unexpected result %+v", tt.name, res)
		}
	}
}

func TestRunnerOnceAndScoped(t *testing.T) {
	t.Parallel()
	r, ws := newTestRunner(t)
	h := cmdHook(SkillActivated, "lint", `echo x >> once.txt`, Source{Scope: claudesettings.ScopeSkill, Skill: "lint", Path: "/s/SKILL.md", Own: true})
	h.Once = true
	ev := Event{Name: SkillActivated, Query: "lint"}
	for range 3 {
		r.Fire(context.Background(), ev, []Hook{h})
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "once.txt")); string(b) != "x\n" {
		t.Errorf("once hook ran %q", b)
	}
	// A new session runs it again.
	r.SetSession(Session{ID: "s2"})
	r.Fire(context.Background(), ev, []Hook{h})
	if b, _ := os.ReadFile(filepath.Join(ws, "once.txt")); string(b) != "x\nx\n" {
		t.Errorf("once hook after a new session: %q", b)
	}
	if r.Wants(SkillActivated, nil) || !r.Wants(SkillActivated, []Hook{h}) {
		t.Error("Wants does not see the scoped hook only")
	}
}

func TestRunnerHTTP(t *testing.T) {
	t.Parallel()
	var got Request
	r := New(Options{
		Hooks: []Hook{{Event: Stop, Handler: claudesettings.Handler{Type: "http", URL: "https://hooks.example/stop",
			Headers:        []claudesettings.Header{{Name: "Authorization", Value: "Bearer $TOKEN"}, {Name: "X-Other", Value: "${SECRET}x"}},
			AllowedEnvVars: []string{"TOKEN"}}, Source: own}},
		Post: func(_ context.Context, req Request) Response {
			got = req
			return Response{Status: 200, Body: []byte(`{"decision":"block","reason":"not yet"}`)}
		},
		LookupEnv: func(name string) (string, bool) {
			return map[string]string{"TOKEN": "t0k", "SECRET": "s3cret"}[name], true
		},
	})
	res := r.Fire(context.Background(), Event{Name: Stop, Fields: map[string]any{"stop_hook_active": false}}, nil)
	if !res.Block || res.Reason != "not yet" {
		t.Fatalf("got %+v", res)
	}
	want := []claudesettings.Header{{Name: "Authorization", Value: "Bearer t0k"}, {Name: "X-Other", Value: "x"}}
	if diff := cmp.Diff(want, got.Headers); diff != "" {
		t.Errorf("headers (-want +got)\n%s", diff)
	}
	if !strings.Contains(string(got.Body), `"stop_hook_active":false`) || got.Timeout != DefaultTimeout {
		t.Errorf("request %+v", got)
	}
	// A repository's hook gets no secret through allowedEnvVars; a
	// variable that is not one it does get.
	r.opts.Hooks[0].Source = project
	r.opts.Secret = func(name, _ string) bool { return name == "TOKEN" }
	r.opts.Hooks[0].AllowedEnvVars = []string{"TOKEN", "SECRET"}
	r.Fire(context.Background(), Event{Name: Stop}, nil)
	want = []claudesettings.Header{{Name: "Authorization", Value: "Bearer "}, {Name: "X-Other", Value: "s3cretx"}}
	if diff := cmp.Diff(want, got.Headers); diff != "" {
		t.Errorf("project hook's headers (-want +got)\n%s", diff)
	}
	// An error status is a warning.
	r.opts.Post = func(context.Context, Request) Response { return Response{Status: 500, Body: []byte("down\nmore")} }
	res = r.Fire(context.Background(), Event{Name: Stop}, nil)
	if res.Block || len(res.Notes) != 1 || !strings.Contains(res.Notes[0].Text, "HTTP status 500: down") {
		t.Errorf("got %+v", res)
	}
}

func TestExpandAllowed(t *testing.T) {
	t.Parallel()
	env := map[string]string{"A": "1", "B_2": "2", "C": "3"}
	lookup := func(n string) (string, bool) { v, ok := env[n]; return v, ok }
	for in, want := range map[string]string{
		"$A-${B_2}-$C": "1-2-",
		"$":            "$",
		"x$":           "x$",
		"${A":          "${A",
		"$1A":          "$1A",
		"a$A$A":        "a11",
	} {
		if got := expandAllowed(in, []string{"A", "B_2"}, lookup); got != want {
			t.Errorf("expandAllowed(%q) = %q, want %q", in, got, want)
		}
	}
}
