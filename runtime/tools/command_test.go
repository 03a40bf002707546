//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRunCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "hello\n")
	type want struct {
		Stdout, Stderr string
		ExitCode       int
		OK             bool
		Footer         string
	}
	tests := []struct {
		name string
		spec CommandSpec
		want want
	}{
		{"script", CommandSpec{Script: "cat a.txt"}, want{"hello\n", "", 0, true, "[exit code: 0]"}},
		{"vector keeps arguments whole", CommandSpec{Argv: []string{"printf", "%s|", "a b", "$HOME"}},
			want{"a b|$HOME|", "", 0, true, "[exit code: 0]"}},
		{"both streams and exit code", CommandSpec{Script: "echo out; echo err >&2; exit 3"},
			want{"out\n", "err\n", 3, false, "[exit code: 3]"}},
		{"extra env", CommandSpec{Script: `printf '%s' "$ARGUMENTS"`, Env: []string{"ARGUMENTS=x; rm -rf /"}},
			want{"x; rm -rf /", "", 0, true, "[exit code: 0]"}},
		{"killed by signal", CommandSpec{Script: "kill -9 $$"}, want{"", "", -1, false, "[signal: killed]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.spec.Dir = dir
			r := RunCommand(t.Context(), tt.spec)
			got := want{r.Stdout, r.Stderr, r.ExitCode, r.OK(), r.Footer}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunCommandNotFound(t *testing.T) {
	t.Parallel()
	r := RunCommand(t.Context(), CommandSpec{Argv: []string{"clawseed-no-such-program"}, Dir: t.TempDir()})
	if r.Err == nil || r.OK() || r.ExitCode != -1 || !strings.HasPrefix(r.Footer, "[cannot run command: ") {
		t.Errorf("got %+v, want a start error", r)
	}
}

func TestRunCommandScrubsEnvironment(t *testing.T) {
	t.Parallel()
	r := RunCommand(t.Context(), CommandSpec{
		Script:         "env",
		Dir:            t.TempDir(),
		Environ:        []string{"PATH=" + os.Getenv("PATH"), "FOO_TOKEN=tok", "KEEP_TOKEN=kept", "PLAIN=visible", "LANG=C", "OTHER=x"},
		EnvPassthrough: []string{"KEEP_TOKEN", "PLAIN"},
		Env:            []string{"ARGUMENTS=args"},
	})
	if strings.Contains(r.Stdout, "FOO_TOKEN") || strings.Contains(r.Stdout, "OTHER=") {
		t.Errorf("a secret or an unlisted variable leaked into the environment:\n%s", r.Stdout)
	}
	for _, w := range []string{"PLAIN=visible", "KEEP_TOKEN=kept", "LANG=C", "ARGUMENTS=args", "GIT_TERMINAL_PROMPT=0"} {
		if !strings.Contains(r.Stdout, w) {
			t.Errorf("environment lacks %s:\n%s", w, r.Stdout)
		}
	}
}

// A timed-out command is reported, and its whole process group is killed.
func TestRunCommandTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := RunCommand(t.Context(), CommandSpec{Dir: dir, Timeout: 300 * time.Millisecond,
		Script: "echo started; sh -c 'sleep 60' & echo $! > bg.pid; sleep 60"})
	if !r.TimedOut || r.OK() || r.Stdout != "started\n" {
		t.Errorf("got %+v, want a timeout after 'started'", r)
	}
	if want := "[timed out after 300ms; the command and its child processes were killed]"; r.Footer != want {
		t.Errorf("footer %q, want %q", r.Footer, want)
	}
	waitGone(t, readPid(t, filepath.Join(dir, "bg.pid")))
}

// The caller's deadline counts as a timeout, not a cancellation.
func TestRunCommandCallerDeadline(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	r := RunCommand(ctx, CommandSpec{Script: "sleep 60", Dir: t.TempDir()})
	if !r.TimedOut || r.Cancelled {
		t.Errorf("got %+v, want timed out", r)
	}
}

func TestRunCommandTimeoutClamp(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want time.Duration }{
		{0, DefaultCommandTimeout}, {-time.Second, DefaultCommandTimeout},
		{time.Hour, MaxCommandTimeout}, {5 * time.Second, 5 * time.Second},
	} {
		r := RunCommand(t.Context(), CommandSpec{Script: "true", Dir: t.TempDir(), Timeout: tt.in})
		if r.Timeout != tt.want {
			t.Errorf("Timeout %v: effective %v, want %v", tt.in, r.Timeout, tt.want)
		}
	}
}

func TestRunCommandCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r := RunCommand(ctx, CommandSpec{Script: "sleep 60", Dir: t.TempDir()})
	if !r.Cancelled || r.OK() {
		t.Errorf("got %+v, want cancelled", r)
	}
}

// The output cap keeps the head and the tail with a note, and Format shares
// the budget between the streams like the shell tool.
func TestRunCommandOutputCap(t *testing.T) {
	t.Parallel()
	r := RunCommand(t.Context(), CommandSpec{Dir: t.TempDir(), MaxOutput: 300,
		Script: "i=0; while [ $i -lt 200 ]; do echo line$i; i=$((i+1)); done"})
	if !strings.HasPrefix(r.Stdout, "line0\n") || !strings.HasSuffix(r.Stdout, "line199\n") || !strings.Contains(r.Stdout, "truncated") {
		t.Errorf("stdout not cut head+tail with a note:\n%s", r.Stdout)
	}
	if n := len([]rune(r.Format(""))); n > 300 {
		t.Errorf("Format is %d characters, want at most 300", n)
	}
	if got := r.Format(""); strings.HasSuffix(got, "\n") {
		t.Errorf("Format with no footer ends in a newline: %q", got)
	}
}

// [autonomy].allowed_commands applies to RunCommand as to the shell tool:
// Script as a line of the runner's shell, Argv as the command it names,
// relative redirections from Dir; a refused command does not run.
func TestRunCommandAllowlist(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	skillDir := filepath.Join(e.outside, "skill") // a user skill: outside the workspace
	if err := os.MkdirAll(skillDir, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		spec CommandSpec
		want string // "" = runs, else a fragment of the refusal
	}{
		{"allowed script", CommandSpec{Script: "echo hi", Dir: e.ws}, ""},
		{"refused script", CommandSpec{Script: "echo hi; touch made", Dir: e.ws}, "'touch' is not in"},
		{"bash grammar where bash runs it", CommandSpec{Script: "((touch<1))", Dir: e.ws}, ""},
		{"nested sh read both ways", CommandSpec{Script: "sh -c '((touch<x))'", Dir: e.ws}, "read differently"},
		{"allowed vector", CommandSpec{Argv: []string{"echo", "a'b", "$(touch made)"}, Dir: e.ws}, ""},
		{"refused vector", CommandSpec{Argv: []string{"touch", "made"}, Dir: e.ws}, "'touch' is not in"},
		{"vector running a string", CommandSpec{Argv: []string{"sh", "-c", "touch made"}, Dir: e.ws}, "sh -c runs \"touch made\""},
		{"redirection inside the workspace", CommandSpec{Script: "echo hi > out.txt", Dir: e.ws}, ""},
		{"relative redirection from a folder outside it", CommandSpec{Script: "echo hi > out.txt", Dir: skillDir}, "is outside the workspace"},
		{"$ARGUMENTS is the model's text", CommandSpec{Script: "echo $((ARGUMENTS))", Dir: e.ws}, "bash evaluates such text as code"},
	}
	for _, tt := range tests {
		tt.spec.AllowedCommands = []string{"echo", "sh"}
		tt.spec.Sandbox = e.sb
		r := RunCommand(t.Context(), tt.spec)
		switch {
		case tt.want == "" && (r.Refusal != "" || !r.OK()):
			t.Errorf("%s: got %+v", tt.name, r)
		case tt.want != "" && (!strings.Contains(r.Refusal, tt.want) || !strings.HasPrefix(r.Refusal, "Command refused: ") ||
			r.Footer != "["+r.Refusal+"]" || r.OK()):
			t.Errorf("%s: refusal %q, footer %q, want a refusal containing %q", tt.name, r.Refusal, r.Footer, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, "made")); !os.IsNotExist(err) {
		t.Errorf("a refused command ran (stat made: %v)", err)
	}
	if _, err := os.Stat(filepath.Join(skillDir, "out.txt")); !os.IsNotExist(err) {
		t.Errorf("a refused redirection wrote its file (stat: %v)", err)
	}
}
