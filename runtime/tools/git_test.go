//go:build unix

package tools

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

// gitEnvFor is a clean environment for the repository of a test: its own
// HOME (no global configuration), PATH, and nothing else.
func gitEnvFor(home string) []string {
	return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C", "GIT_CONFIG_NOSYSTEM=1"}
}

// gitRun runs git in dir for the test's own setup.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnvFor(filepath.Dir(dir))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// newGitRepo returns a test environment whose workspace is a repository
// with one commit (a.txt, sub/b.txt), and the git tool for it.
func newGitRepo(t *testing.T, opts GitOptions) (*testEnv, Tool) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	e := newTestEnv(t)
	gitRun(t, e.ws, "init", "-q", "-b", "main")
	gitRun(t, e.ws, "config", "user.name", "Test")
	gitRun(t, e.ws, "config", "user.email", "test@example.com")
	e.write(t, "a.txt", "one\ntwo\nthree\n")
	e.write(t, "sub/b.txt", "bee\n")
	gitRun(t, e.ws, "add", ".")
	gitRun(t, e.ws, "commit", "-q", "-m", "first commit")
	if opts.Environ == nil {
		opts.Environ = gitEnvFor(filepath.Dir(e.ws))
	}
	tl, err := NewGit(e.sb, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e, tl
}

func gitCall(t *testing.T, tl Tool, args map[string]any) providers.ToolResult {
	t.Helper()
	return call(t, tl, args)
}

// The actions against a real repository, in the order a session would use
// them; each result is what the model reads.
func TestGitActions(t *testing.T) {
	t.Parallel()
	e, tl := newGitRepo(t, GitOptions{})
	steps := []struct {
		args    map[string]any
		want    []string // fragments of the result
		isError bool
	}{
		{map[string]any{"action": "status"}, []string{"## main"}, false},
		{map[string]any{"action": "log"}, []string{"first commit", "Test"}, false},
		{map[string]any{"action": "blame", "paths": []string{"a.txt"}, "lines": "2,3"}, []string{"two", "three"}, false},
		{map[string]any{"action": "add", "paths": []string{"c.txt"}}, []string{"did not match any files"}, true},
	}
	for _, s := range steps {
		got := gitCall(t, tl, s.args)
		checkGitResult(t, s.args, got, s.want, s.isError)
	}
	e.write(t, "a.txt", "one\nTWO\nthree\n")
	e.write(t, "c.txt", "new\n")
	steps = []struct {
		args    map[string]any
		want    []string
		isError bool
	}{
		{map[string]any{"action": "status"}, []string{" M a.txt", "?? c.txt"}, false},
		{map[string]any{"action": "diff"}, []string{"-two", "+TWO"}, false},
		{map[string]any{"action": "diff", "options": []string{"--stat"}}, []string{"a.txt | 2 +-"}, false},
		{map[string]any{"action": "add", "paths": []string{"a.txt", "c.txt"}}, []string{"(no output)"}, false},
		{map[string]any{"action": "diff", "cached": true, "options": []string{"--name-only"}}, []string{"a.txt\nc.txt"}, false},
		{map[string]any{"action": "commit", "message": "second: it's \"quoted\""}, []string{"second: it's \"quoted\"", "2 files changed"}, false},
		{map[string]any{"action": "log", "limit": 1, "options": []string{"--format=%s"}}, []string{"second: it's \"quoted\""}, false},
		{map[string]any{"action": "show", "rev": "HEAD~1:a.txt"}, []string{"one\ntwo\nthree"}, false},
		{map[string]any{"action": "show", "options": []string{"--stat"}}, []string{"c.txt"}, false},
		{map[string]any{"action": "branch", "branch": "feature", "rev": "HEAD~1"}, []string{"(no output)"}, false},
		{map[string]any{"action": "branch", "options": []string{"-v"}}, []string{"feature", "* main"}, false},
		{map[string]any{"action": "checkout", "rev": "feature"}, []string{"Switched to branch 'feature'"}, false},
		{map[string]any{"action": "checkout", "rev": "main"}, []string{"Switched to branch 'main'"}, false},
	}
	for _, s := range steps {
		got := gitCall(t, tl, s.args)
		checkGitResult(t, s.args, got, s.want, s.isError)
	}
	// stash a change, list it, restore it, and drop a second one
	e.write(t, "a.txt", "stashed\n")
	for _, s := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"action": "stash_push", "message": "wip"}, []string{"Saved working directory"}},
		{map[string]any{"action": "stash_list"}, []string{"stash@{0}: On main: wip"}},
		{map[string]any{"action": "stash_pop"}, []string{"Dropped refs/stash@{0}"}},
		{map[string]any{"action": "checkout", "paths": []string{"a.txt"}}, []string{"(no output)"}},
	} {
		checkGitResult(t, s.args, gitCall(t, tl, s.args), s.want, false)
	}
	if got := readFile(t, filepath.Join(e.ws, "a.txt")); got != "one\nTWO\nthree\n" {
		t.Errorf("a.txt after checkout = %q", got)
	}
	e.write(t, "a.txt", "again\n")
	checkGitResult(t, nil, gitCall(t, tl, map[string]any{"action": "stash_push"}), []string{"Saved"}, false)
	checkGitResult(t, nil, gitCall(t, tl, map[string]any{"action": "stash_drop", "rev": "stash@{0}"}), []string{"Dropped"}, false)
	checkGitResult(t, nil, gitCall(t, tl, map[string]any{"action": "stash_list"}), []string{"(no output)"}, false)
}

func checkGitResult(t *testing.T, args map[string]any, got providers.ToolResult, want []string, isError bool) {
	t.Helper()
	if got.IsError != isError {
		t.Errorf("%v: IsError = %v:\n%s", args, got.IsError, got.Content)
	}
	for _, w := range want {
		if !strings.Contains(got.Content, w) {
			t.Errorf("%v: result lacks %q:\n%s", args, w, got.Content)
		}
	}
}

// Refusals: options that run programs or change configuration, paths that
// leave the workspace or are forbidden, and values git would read as
// options. Nothing runs.
func TestGitRefusals(t *testing.T) {
	t.Parallel()
	e, tl := newGitRepo(t, GitOptions{})
	e.sb.Forbidden = []string{"secret"}
	e.write(t, "secret/key.txt", "k\n")
	symlink(t, e.outside, filepath.Join(e.ws, "out-link"))
	const refusedOpt = "it can run programs, write files or change git's configuration"
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "log", "options": []string{"-c", "core.pager=sh -c 'id'"}}, "option -c is refused: " + refusedOpt},
		{map[string]any{"action": "log", "options": []string{"-ccore.pager=x"}}, "option -ccore.pager=x is refused"},
		{map[string]any{"action": "log", "options": []string{"--config-env=core.pager=X"}}, "option --config-env=core.pager=X is refused"},
		{map[string]any{"action": "diff", "options": []string{"--output=/tmp/x"}}, "option --output=/tmp/x is refused"},
		{map[string]any{"action": "diff", "options": []string{"--ext-diff"}}, "option --ext-diff is refused"},
		{map[string]any{"action": "diff", "options": []string{"--textconv"}}, "option --textconv is refused"},
		{map[string]any{"action": "log", "options": []string{"--show-signature"}}, "option --show-signature is refused"},
		{map[string]any{"action": "status", "options": []string{"--git-dir=/tmp"}}, "option --git-dir=/tmp is refused"},
		{map[string]any{"action": "status", "options": []string{"--work-tree=/"}}, "option --work-tree=/ is refused"},
		{map[string]any{"action": "status", "options": []string{"--exec-path=/tmp"}}, "option --exec-path=/tmp is refused"},
		{map[string]any{"action": "log", "options": []string{"--exec=id"}}, "option --exec=id is refused"},
		{map[string]any{"action": "log", "options": []string{"--upload-pack=id"}}, "option --upload-pack=id is refused"},
		{map[string]any{"action": "add", "paths": []string{"a.txt"}, "options": []string{"--patch"}}, "option --patch is refused"},
		{map[string]any{"action": "commit", "message": "m", "options": []string{"-S"}}, "option -S is refused"},
		{map[string]any{"action": "commit", "message": "m", "options": []string{"--gpg-sign=KEY"}}, "option --gpg-sign=KEY is refused"},
		{map[string]any{"action": "checkout", "rev": "main", "options": []string{"--recurse-submodules"}}, "option --recurse-submodules is refused"},
		{map[string]any{"action": "log", "options": []string{"--author", "x"}}, "option --author is not supported for log"},
		{map[string]any{"action": "log", "options": []string{"HEAD"}}, `option "HEAD" is not an option; put revisions in rev and files in paths`},
		{map[string]any{"action": "status", "options": []string{"--frobnicate"}}, "option --frobnicate is not supported for status (supported: --short"},
		{map[string]any{"action": "diff", "paths": []string{"../outside/secret.txt"}}, "is outside the workspace"},
		{map[string]any{"action": "add", "paths": []string{"/etc/passwd"}}, "is outside the workspace"},
		{map[string]any{"action": "add", "paths": []string{"out-link/secret.txt"}}, "which is outside the workspace"},
		{map[string]any{"action": "diff", "paths": []string{"secret/key.txt"}}, "Path secret/key.txt is forbidden by [autonomy].forbidden_paths."},
		{map[string]any{"action": "blame", "paths": []string{"secret/key.txt"}}, "is forbidden by [autonomy].forbidden_paths"},
		{map[string]any{"action": "add", "paths": []string{"secret"}}, "is forbidden by [autonomy].forbidden_paths"},
		{map[string]any{"action": "show", "rev": "HEAD:secret/key.txt"}, "is forbidden by [autonomy].forbidden_paths"},
		{map[string]any{"action": "show", "rev": "HEAD:../outside/secret.txt"}, "is outside the workspace"},
		{map[string]any{"action": "add", "paths": []string{"-A"}}, `path "-A" starts with '-', which git would read as an option; write ./-A`},
		{map[string]any{"action": "add", "paths": []string{":(top)a.txt"}}, "a git pathspec magic"},
		{map[string]any{"action": "show", "rev": "--output=/tmp/x"}, `rev "--output=/tmp/x" starts with '-', which git would read as an option`},
		{map[string]any{"action": "checkout", "rev": "-f"}, `rev "-f" starts with '-'`},
		{map[string]any{"action": "branch", "branch": "-D"}, `branch "-D" starts with '-'`},
		{map[string]any{"action": "log", "rev": "HEAD:a.txt"}, "REV:PATH is accepted by show only"},
		{map[string]any{"action": "show", "rev": ":/fix"}, "only REV:PATH is accepted"},
		{map[string]any{"action": "log", "rev": "HEAD\n--output=x"}, "contains control characters"},
		{map[string]any{"action": "branch", "paths": []string{"a.txt"}}, "branch takes no paths"},
		{map[string]any{"action": "blame"}, "blame needs exactly one path"},
		{map[string]any{"action": "blame", "paths": []string{"a.txt"}, "lines": "1;2"}, "lines must look like 10,20"},
		{map[string]any{"action": "add"}, "add needs paths"},
		{map[string]any{"action": "commit"}, "commit needs a message"},
		{map[string]any{"action": "checkout"}, "checkout needs rev"},
		{map[string]any{"action": "push"}, `property "action": must be one of`},
		{map[string]any{"action": "status", "command": "push"}, `unknown property "command"`},
	}
	for _, tt := range tests {
		got := gitCall(t, tl, tt.args)
		if !got.IsError || !strings.Contains(got.Content, tt.want) {
			t.Errorf("%v:\n got %+v\nwant an error containing %q", tt.args, got, tt.want)
		}
	}
	if out := gitRun(t, e.ws, "status", "--short"); out != "?? out-link\n?? secret/\n" {
		t.Errorf("a refused call changed the repository: %q", out)
	}
}

// A repository whose configuration names programs for everything that can
// run one (hooks, filters, merge and diff drivers, fsmonitor, pager,
// editor, signing, textconv), written after the tool was built, as the
// model could with file_write: no action runs any of them.
func TestGitHostileConfiguration(t *testing.T) {
	t.Parallel()
	e, tl := newGitRepo(t, GitOptions{})
	// The tool has found its repository (at its first call) before the
	// configuration turns hostile: core.worktree set then must not move
	// the work tree. (Set before, it makes every call an error:
	// TestGitNotAvailable.)
	if got := gitCall(t, tl, map[string]any{"action": "status"}); got.IsError {
		t.Fatalf("status: %s", got.Content)
	}
	marker := filepath.Join(e.outside, "ran")
	evil := filepath.Join(e.outside, "evil.sh")
	writeFile(t, evil, "#!/bin/sh\necho \"$0 $*\" >> "+marker+"\ncat\n")
	if err := os.Chmod(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(t, ".gitattributes", "*.txt filter=ev merge=mv diff=dv\n")
	gitRun(t, e.ws, "add", ".gitattributes")
	gitRun(t, e.ws, "commit", "-q", "-m", "attributes")
	for _, kv := range [][2]string{
		{"filter.ev.clean", evil}, {"filter.ev.smudge", evil}, {"filter.ev.required", "true"},
		{"merge.mv.driver", evil + " %A"}, {"diff.dv.textconv", evil}, {"diff.dv.command", evil},
		{"diff.external", evil}, {"core.fsmonitor", evil}, {"core.pager", evil}, {"pager.log", evil},
		{"core.editor", evil}, {"gpg.program", evil}, {"commit.gpgSign", "true"}, {"log.showSignature", "true"},
		{"core.hooksPath", filepath.Join(e.ws, ".git", "hooks")}, {"core.worktree", e.outside},
		{"alias.status", "!" + evil}, {"hook.pc.command", evil}, {"hook.pc.event", "pre-commit"},
		{"core.sshCommand", evil}, {"protocol.ext.allow", "always"},
	} {
		gitRun(t, e.ws, "config", kv[0], kv[1])
	}
	for _, h := range []string{"pre-commit", "commit-msg", "prepare-commit-msg", "post-commit", "post-checkout",
		"post-index-change", "reference-transaction", "pre-auto-gc", "post-rewrite"} {
		writeFile(t, filepath.Join(e.ws, ".git", "hooks", h), "#!/bin/sh\necho hook "+h+" >> "+marker+"\n")
		if err := os.Chmod(filepath.Join(e.ws, ".git", "hooks", h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.write(t, "a.txt", "changed\n")
	calls := []map[string]any{
		{"action": "status"},
		{"action": "diff"},
		{"action": "diff", "options": []string{"--stat"}},
		{"action": "log", "options": []string{"-p", "--format=%G? %s"}},
		{"action": "show"},
		{"action": "show", "rev": "HEAD:a.txt"},
		{"action": "blame", "paths": []string{"a.txt"}},
		{"action": "add", "paths": []string{"a.txt"}},
		{"action": "commit", "message": "hostile"},
		{"action": "branch", "branch": "other"},
		{"action": "checkout", "rev": "other"},
		{"action": "checkout", "rev": "main"},
		{"action": "stash_list", "options": []string{"-p"}},
	}
	for _, args := range calls {
		if got := gitCall(t, tl, args); got.IsError {
			t.Errorf("%v: %s", args, got.Content)
		}
	}
	// a stash that conflicts on pop goes through the merge driver
	e.write(t, "a.txt", "stash side\n")
	checkGitResult(t, nil, gitCall(t, tl, map[string]any{"action": "stash_push"}), []string{"Saved"}, false)
	e.write(t, "a.txt", "commit side\n")
	gitCall(t, tl, map[string]any{"action": "commit", "message": "conflict", "options": []string{"-a"}})
	if got := gitCall(t, tl, map[string]any{"action": "stash_pop"}); !got.IsError || !strings.Contains(got.Content, "CONFLICT") {
		t.Errorf("stash_pop: %+v", got)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("a program from the repository's configuration ran:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(e.outside, "a.txt")); err == nil {
		t.Errorf("core.worktree moved the work tree outside the workspace")
	}
}

// CallClass: read actions are read-class, the others write-class; the
// read-only variant offers only read actions and is read-class itself.
func TestGitClasses(t *testing.T) {
	t.Parallel()
	_, tl := newGitRepo(t, GitOptions{})
	cc := tl.(interface {
		CallClass(json.RawMessage) permissions.Class
	})
	if tl.Class() != permissions.ClassWrite {
		t.Errorf("Class() = %v", tl.Class())
	}
	for _, a := range gitReadActions {
		if c := cc.CallClass(json.RawMessage(`{"action":"` + a + `"}`)); c != permissions.ClassRead {
			t.Errorf("%s: %v", a, c)
		}
	}
	for _, args := range []string{`{"action":"branch","branch":"x"}`, `{"action":"add"}`, `{"action":"commit"}`,
		`{"action":"checkout"}`, `{"action":"stash_push"}`, `{"action":"stash_pop"}`, `{"action":"stash_drop"}`, `{"action":9}`} {
		if c := cc.CallClass(json.RawMessage(args)); c != permissions.ClassWrite {
			t.Errorf("%s: %v", args, c)
		}
	}
	if s := tl.(Summarizer).Summary(json.RawMessage(`{"action":"commit","message":"fix it"}`)); s != `git commit --no-verify -m "fix it"` {
		t.Errorf("Summary = %q", s)
	}

	_, ro := newGitRepo(t, GitOptions{ReadOnly: true})
	if ro.Class() != permissions.ClassRead {
		t.Errorf("read-only Class() = %v", ro.Class())
	}
	var schema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(ro.Spec().Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if got := schema.Properties["action"].Enum; !slices.Equal(got, gitReadActions) {
		t.Errorf("read-only actions = %v", got)
	}
	if got := call(t, ro, map[string]any{"action": "branch", "branch": "x"}); !got.IsError ||
		got.Content != "git branch changes the repository, which read_only autonomy does not allow." {
		t.Errorf("got %+v", got)
	}
}

// A workspace below the top of the work tree: calls without paths cover
// the workspace only, and paths or REV:PATH above it are refused.
func TestGitWorkspaceBelowTop(t *testing.T) {
	t.Parallel()
	e, _ := newGitRepo(t, GitOptions{})
	top := e.ws
	e.write(t, "a.txt", "changed at the top\n")
	e.write(t, "sub/b.txt", "changed below\n")
	sb := &Sandbox{Workspace: filepath.Join(top, "sub"), Home: e.sb.Home}
	tl, err := NewGit(sb, GitOptions{Environ: gitEnvFor(filepath.Dir(top))})
	if err != nil {
		t.Fatal(err)
	}
	got := call(t, tl, map[string]any{"action": "status"})
	if strings.Contains(got.Content, "a.txt") || !strings.Contains(got.Content, "b.txt") {
		t.Errorf("status = %q", got.Content)
	}
	if got := call(t, tl, map[string]any{"action": "diff"}); strings.Contains(got.Content, "top") {
		t.Errorf("diff shows a file outside the workspace: %q", got.Content)
	}
	for _, args := range []map[string]any{
		{"action": "diff", "paths": []string{"../a.txt"}},
		{"action": "show", "rev": "HEAD:a.txt"},
		{"action": "show", "rev": "HEAD:"},
	} {
		if got := call(t, tl, args); !got.IsError || !strings.Contains(got.Content, "outside the workspace") {
			t.Errorf("%v: %+v", args, got)
		}
	}
	if got := call(t, tl, map[string]any{"action": "show", "rev": "HEAD:./b.txt"}); got.IsError || got.Content != "bee" {
		t.Errorf("show HEAD:./b.txt = %+v", got)
	}
}

// Not registered without a repository or without git on PATH; with a work
// tree elsewhere (core.worktree) every call is an error saying so (git is
// asked at the first call, not at registration).
func TestGitNotAvailable(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	e := newTestEnv(t)
	if _, err := NewGit(e.sb, GitOptions{Environ: gitEnvFor(filepath.Dir(e.ws))}); err == nil ||
		!strings.Contains(err.Error(), "is not inside a git work tree") {
		t.Errorf("no repository: %v", err)
	}
	gitRun(t, e.ws, "init", "-q")
	gitRun(t, e.ws, "config", "core.worktree", e.outside)
	tl, err := NewGit(e.sb, GitOptions{Environ: gitEnvFor(filepath.Dir(e.ws))})
	if err != nil {
		t.Fatalf("a .git entry above the workspace: %v", err)
	}
	for range 2 {
		if got := gitCall(t, tl, map[string]any{"action": "status"}); !got.IsError || !strings.Contains(got.Content, "(core.worktree)") {
			t.Errorf("core.worktree elsewhere: %+v", got)
		}
	}
	t.Setenv("PATH", "")
	if _, err := NewGit(e.sb, GitOptions{}); err == nil || err.Error() != "git is not on PATH" {
		t.Errorf("no git: %v", err)
	}
}

// The environment git runs with: credentials scrubbed, GIT_* variables
// that redirect git dropped (but the identity kept), no prompts.
func TestGitEnvironment(t *testing.T) {
	t.Parallel()
	env := gitEnv([]string{"PATH=/bin", "GIT_DIR=/elsewhere", "GIT_CONFIG_PARAMETERS='core.pager'='x'", "GIT_EXTERNAL_DIFF=x",
		"GIT_AUTHOR_NAME=A", "GITHUB_TOKEN=t", "PAGER=less"}, nil)
	want := []string{"PATH=/bin", "GIT_AUTHOR_NAME=A", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true",
		"GIT_PAGER=cat", "PAGER=cat", "GIT_NO_LAZY_FETCH=1", "GIT_ASKPASS=false", "SSH_ASKPASS=false"}
	if !slices.Equal(env, want) {
		t.Errorf("env = %q\nwant  %q", env, want)
	}
}
