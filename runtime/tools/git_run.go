package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/providers"
)

// A repository's configuration can make git run programs: a clone's
// .git/config cannot carry them, but the model can write that file with
// file_write, and hooks, filters and the rest would then run on a read
// action the user never approves. The git tool therefore pins where the
// repository is and overrides, on every call, each setting that names a
// program:
//
//   - the repository: --git-dir, --work-tree and GIT_COMMON_DIR are fixed
//     when the tool is built (core.worktree or a commondir file written
//     later cannot move them), and the environment loses every GIT_*
//     variable but the author and committer identity;
//   - hooks (core.hooksPath=/dev/null, and commit --no-verify), the
//     fsmonitor (core.fsmonitor=false), pager (--no-pager, core.pager=cat),
//     editor (core.editor=true, GIT_EDITOR=true), signing and signature
//     checks (commit.gpgSign, tag.gpgSign, log.showSignature off, gpg.*
//     programs = false), transports (protocol.allow=never, so no lazy fetch
//     in a partial clone), automatic gc and maintenance (which detach
//     background processes), submodule recursion;
//   - diff drivers: --no-ext-diff and --no-textconv on every diffing
//     action (diff.external, diff.NAME.command and diff.NAME.textconv
//     are then unused);
//   - drivers defined per name, found by listing the configuration before
//     each call: filter.NAME.clean/smudge/process are emptied (and
//     required=false), merge.NAME.driver becomes false (a conflict
//     instead of a program), hook.NAME.command becomes true;
//   - submodules, whose configuration (.git/modules/NAME/config, or
//     whatever their .git file points to) is another repository's: see
//     git_submodules.go. Read actions never start git inside a submodule
//     (--ignore-submodules=all); for the others the drivers of every
//     checked-out submodule are overridden as well.
//
// What remains: git itself and the programs named here (cat, true, false)
// are looked up on the user's PATH; aliases never apply because only
// built-in commands are run; include.path and similar can make git read
// other files, but not print them.
var gitFixedConfig = []string{
	"core.hooksPath=/dev/null", "core.fsmonitor=false", "core.pager=cat", "core.editor=true", "sequence.editor=true",
	"protocol.allow=never", "commit.gpgSign=false", "tag.gpgSign=false", "log.showSignature=false",
	"gpg.program=false", "gpg.ssh.program=false", "gpg.x509.program=false", "gc.auto=0", "maintenance.auto=false",
	"submodule.recurse=false", "diff.ignoreSubmodules=all", "status.submoduleSummary=false", "diff.submodule=short",
	"color.ui=false",
}

// gitKeptEnv are the GIT_* variables calls keep: the identity commits use.
var gitKeptEnv = []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"}

// maxGitConfigBytes bounds the configuration listing read before a call.
const maxGitConfigBytes = 1 << 20

// gitEnv is the environment of every git call: the shell's scrub, no GIT_*
// variables but the identity, no prompts, editors or pagers.
func gitEnv(environ, passthrough []string) []string {
	if environ == nil {
		environ = os.Environ()
	}
	var env []string
	for _, kv := range ScrubbedEnv(environ, passthrough) {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(strings.ToUpper(name), "GIT_") && !slices.Contains(gitKeptEnv, name) || name == "PAGER" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true", "GIT_PAGER=cat",
		"PAGER=cat", "GIT_NO_LAZY_FETCH=1", "GIT_ASKPASS=false", "SSH_ASKPASS=false")
}

// A gitRepo is the repository the workspace lies in, as found when the tool
// was built.
type gitRepo struct {
	git           string // the git binary
	start         Starter
	realWorkspace string
	top           string // top of the work tree (real path)
	gitDir        string
	commonDir     string
}

func (r *gitRepo) atTop() bool { return r.top == r.realWorkspace }

// A gitLocation is where the workspace's repository should be: git's path,
// the workspace resolved, and the nearest directory above it (or it)
// holding a .git entry.
type gitLocation struct{ git, workspace, dir string }

// locateGitRepo checks, without running git, that the git tool can work in
// workspace: git is on PATH and a directory at or above it holds a .git
// entry.
func locateGitRepo(workspace string) (gitLocation, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return gitLocation{}, errors.New("git is not on PATH")
	}
	ws, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return gitLocation{}, fmt.Errorf("workspace %s: %w", workspace, err)
	}
	dir := ws
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return gitLocation{git: git, workspace: ws, dir: dir}, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return gitLocation{}, fmt.Errorf("the workspace %s is not inside a git work tree", ws)
		}
		dir = parent
	}
}

// open asks git about the repository: the directory holding the .git entry
// must be the top of the work tree git reports (a core.worktree pointing
// elsewhere is refused).
func (l gitLocation) open(env []string, start Starter) (*gitRepo, error) {
	cmd := exec.Command(l.git, slices.Concat([]string{"--no-pager"}, gitConfigArgs(gitFixedConfig),
		[]string{"rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"})...)
	cmd.Dir, cmd.Env = l.workspace, env
	out, err := start.output(context.Background(), cmd)
	if err != nil {
		return nil, fmt.Errorf("git rev-parse in %s: %w%s", l.workspace, err, exitStderr(err))
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 3 {
		return nil, fmt.Errorf("git rev-parse in %s printed %q", l.workspace, out)
	}
	r := &gitRepo{git: l.git, start: start, realWorkspace: l.workspace, top: realOrSelf(lines[0]), gitDir: lines[1], commonDir: lines[2]}
	if !filepath.IsAbs(r.commonDir) {
		r.commonDir = filepath.Join(l.workspace, r.commonDir)
	}
	if real := realOrSelf(l.dir); r.top != real {
		return nil, fmt.Errorf("the work tree of %s is %s (core.worktree), not %s", r.gitDir, r.top, real)
	}
	return r, nil
}

func exitStderr(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return ": " + strings.TrimSpace(string(ee.Stderr))
	}
	return ""
}

func gitConfigArgs(settings []string) []string {
	args := make([]string, 0, 2*len(settings))
	for _, s := range settings {
		args = append(args, "-c", s)
	}
	return args
}

// globalArgs are the options before the subcommand of every call.
func (r *gitRepo) globalArgs() []string {
	return slices.Concat([]string{"--no-pager", "--literal-pathspecs", "--git-dir=" + r.gitDir, "--work-tree=" + r.top},
		gitConfigArgs(gitFixedConfig))
}

// command returns an exec.Cmd running git with args after the global
// options, in the workspace.
func (r *gitRepo) command(ctx context.Context, env []string, args ...string) *exec.Cmd {
	return r.commandIn(ctx, r.realWorkspace, append(slices.Clip(env), "GIT_COMMON_DIR="+r.commonDir),
		slices.Concat(r.globalArgs(), args)...)
}

// commandIn returns an exec.Cmd running git with args in dir.
func (r *gitRepo) commandIn(ctx context.Context, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, r.git, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = shellWaitDelay
	isolate(cmd)
	return cmd
}

// output runs cmd and returns its standard output, which may not exceed
// limit bytes: a listing cut short would leave drivers out.
func (r *gitRepo) output(ctx context.Context, cmd *exec.Cmd, limit int) ([]byte, error) {
	var out, stderr bytes.Buffer
	stdout := &limitedBuffer{buf: &out, max: limit}
	cmd.Stdout = stdout
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 4096}
	if err := r.start.run(ctx, cmd, false); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("%v: %s", err, msg)
		}
		return nil, err
	}
	if stdout.cut {
		return nil, fmt.Errorf("its output is longer than %d bytes", limit)
	}
	return out.Bytes(), nil
}

// driverOverrides lists the repository's configuration (all scopes, with
// includes) and, when the call may start git inside a submodule, that of
// every checked-out submodule, and returns the -c options that disable each
// filter, merge driver and configured hook they name. git hands -c options
// on to the git it starts in a submodule (GIT_CONFIG_PARAMETERS), so the
// overrides reach it.
func (r *gitRepo) driverOverrides(ctx context.Context, env []string, submodules bool) ([]string, error) {
	out, err := r.output(ctx, r.command(ctx, env, "config", "--list", "--name-only", "-z"), maxGitConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("cannot read the repository's configuration: %w", err)
	}
	keys := strings.Split(string(out), "\x00")
	if submodules {
		subKeys, err := r.submoduleConfigKeys(ctx, env)
		if err != nil {
			return nil, err
		}
		keys = append(keys, subKeys...)
	}
	return driverSettings(keys)
}

// driverSettings returns the -c options that disable the drivers the
// configuration keys name, sorted.
func driverSettings(keys []string) ([]string, error) {
	var settings []string
	for _, key := range keys {
		section, rest, ok := strings.Cut(key, ".")
		i := strings.LastIndexByte(rest, '.')
		if !ok || i < 0 {
			continue
		}
		name, variable := rest[:i], rest[i+1:]
		var add []string
		switch {
		case section == "filter" && slices.Contains([]string{"clean", "smudge", "process", "required"}, variable):
			add = []string{"filter.%s.clean=", "filter.%s.smudge=", "filter.%s.process=", "filter.%s.required=false"}
		case section == "merge" && variable == "driver":
			add = []string{"merge.%s.driver=false"}
		case section == "hook" && variable == "command":
			add = []string{"hook.%s.command=true"}
		default:
			continue
		}
		if strings.Contains(name, "=") {
			return nil, fmt.Errorf("the repository's configuration defines %s.%s with '=' in its name, which the git tool cannot override; remove it", section, name)
		}
		for _, f := range add {
			settings = append(settings, fmt.Sprintf(f, name))
		}
	}
	slices.Sort(settings)
	return gitConfigArgs(slices.Compact(settings)), nil
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
	cut bool // bytes were dropped
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	room := max(l.max-l.buf.Len(), 0)
	l.buf.Write(p[:min(room, len(p))])
	l.cut = l.cut || len(p) > room
	return len(p), nil
}

// exec runs one validated call and formats its result: stdout, then
// stderr after a [stderr] line (git reports progress there), then the exit
// code when it is not 0, which makes the result an error. skipsSubmodules
// says that argv carries --ignore-submodules=all.
func (t *gitTool) exec(ctx context.Context, repo *gitRepo, argv []string, read, skipsSubmodules bool) providers.ToolResult {
	overrides, err := repo.driverOverrides(ctx, t.env, !skipsSubmodules)
	if err != nil {
		return errorResult("%s", err)
	}
	env := t.env
	if read {
		env = append(slices.Clip(env), "GIT_OPTIONAL_LOCKS=0") // status refreshes the index only opportunistically
	}
	cmd := repo.command(ctx, env, slices.Concat(overrides, argv)...)
	stdout, stderr := newHeadTail(t.maxOut), newHeadTail(t.maxOut)
	captureOutput(cmd, stdout, stderr, providers.ToolOutput(ctx)) // the live tail of a UI
	err = repo.start.run(ctx, cmd, false)
	switch {
	case ctx.Err() != nil:
		return errorResult("git %s was stopped: %v.", argv[0], ctx.Err())
	case cmd.ProcessState == nil:
		return errorResult("Cannot run git: %v.", err)
	}
	footer, failed := "", false
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		footer, failed = exitFooter(cmd.ProcessState)
	}
	out := strings.TrimRight(formatShell(stdout, stderr, footer, t.maxOut), "\n")
	if out == "" {
		out = "(no output)"
	}
	return providers.ToolResult{Content: out, IsError: failed}
}
