// Package install fetches skills from a SOURCE — a git URL, GitHub's
// owner/repo shorthand, a local folder or a local git repository — finds
// the skills in it, says what each asks for, and copies the chosen ones
// into a skills root (issue 27). The lock file and the tree hash are
// skills/lock's; the commands are cmd/clawseed's skills_*.go.
//
// A source is hostile input. git is the only transport, and is run with
// nothing of the repository or of the user's configuration able to run a
// program (no hooks, no templates, no system or global configuration, no
// submodules, no transports but https, http, ssh, git and local paths,
// no prompts), through the OS sandbox the caller provides (writes only to
// the fetch's temporary folder). Only regular files and folders are ever
// copied out of a fetched tree, within caps on count and size.
package install

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// An Error is a failure of installing that is not the user's request being
// malformed: a fetch that failed, a skill refused. The commands exit 1
// with it.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func failf(format string, args ...any) error { return &Error{Err: fmt.Errorf(format, args...)} }

// A UsageError is a malformed request: a SOURCE, --ref or --path that
// cannot be.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// A Source is where skills come from, as `skills add` was given it.
type Source struct {
	// Spec is what the lock file records: a git URL (the shorthand
	// expanded) or an absolute local path.
	Spec string
	// Git is true when the source is fetched with git (a URL or a local
	// repository); false for a plain local folder.
	Git bool
	// Local is the absolute path of a local folder or repository ("" for
	// a URL).
	Local string
}

// shorthand is GitHub's owner/repo, compiled at first use: its counted
// repetitions cost 0.3 ms at every start of the binary.
var shorthand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$`)
})

// urlLike matches what git reads as a remote URL: scheme:// or scp-like
// user@host:path.
var urlLike = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([a-z][a-z0-9+.-]*://|[A-Za-z0-9._-]+@[A-Za-z0-9][A-Za-z0-9.-]*:)`)
})

// ParseSource reads SOURCE. A path that exists (relative to dir) is local:
// a repository when it holds .git or is a bare repository, a folder
// otherwise. Then a URL (https, http, ssh, git, file, or user@host:path),
// then owner/repo for https://github.com/owner/repo.git.
func ParseSource(spec, dir string) (Source, error) {
	if spec == "" || strings.HasPrefix(spec, "-") || notLine(spec) {
		return Source{}, &UsageError{Err: fmt.Errorf("invalid SOURCE %q", spec)}
	}
	local := spec
	if !filepath.IsAbs(local) {
		local = filepath.Join(dir, local)
	}
	if info, err := os.Stat(local); err == nil && !urlLike().MatchString(spec) {
		if !info.IsDir() {
			return Source{}, &UsageError{Err: fmt.Errorf("SOURCE %s is a file, not a folder or repository", spec)}
		}
		local = filepath.Clean(local)
		return Source{Spec: local, Git: isRepository(local), Local: local}, nil
	}
	if m := urlLike().FindString(spec); m != "" {
		scheme, _, _ := strings.Cut(m, "://")
		if strings.Contains(m, "://") && !slices.Contains([]string{"https", "http", "ssh", "git", "file"}, scheme) {
			return Source{}, &UsageError{Err: fmt.Errorf("SOURCE %q: transport %q is not allowed (https, http, ssh, git, file)", spec, scheme)}
		}
		// A host that is an option (ssh -oProxyCommand=...).
		if rest := strings.TrimPrefix(spec, m); strings.Contains(m, "://") && (strings.HasPrefix(rest, "-") || strings.Contains(rest, "@-")) {
			return Source{}, &UsageError{Err: fmt.Errorf("SOURCE %q: invalid host", spec)}
		}
		return Source{Spec: spec, Git: true}, nil
	}
	if shorthand().MatchString(spec) && !strings.HasPrefix(spec, ".") {
		return Source{Spec: "https://github.com/" + strings.TrimSuffix(spec, ".git") + ".git", Git: true}, nil
	}
	return Source{}, &UsageError{Err: fmt.Errorf("SOURCE %q is not a folder, a git URL or owner/repo", spec)}
}

// isRepository reports whether dir is a git repository: a work tree with
// .git, or a bare repository (HEAD, objects/ and refs/). Nothing is run in
// it: a repository's configuration could name programs.
func isRepository(dir string) bool {
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		return true
	}
	for _, p := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err != nil {
			return false
		}
	}
	return true
}

// A Starter starts cmd and returns the function that waits for it; the
// caller's sandbox confines it. nil starts cmd as it is.
type Starter func(ctx context.Context, cmd *exec.Cmd) (wait func() error, err error)

// Git runs git for a fetch.
type Git struct {
	// Confine returns the starter of git processes that may write only
	// tmp (the fetch's temporary folder) and reach the network; nil runs
	// git unconfined.
	Confine func(tmp string) (Starter, error)
	// Env is the environment git starts from (already scrubbed of
	// secrets); every GIT_* variable of it is dropped and the fixed ones
	// added ([gitEnv]).
	Env []string
}

// fixedConfig are the settings of every git call: nothing runs a program
// (hooks, fsmonitor, pager, editor, credential helpers, signing), no
// submodule is touched, and only the usual transports are allowed (ext::
// and fd:: would run commands).
var fixedConfig = []string{
	"core.hooksPath=/dev/null", "core.fsmonitor=false", "core.pager=cat", "core.editor=true",
	"credential.helper=", "core.askPass=false", "core.sshCommand=ssh -o BatchMode=yes",
	"protocol.allow=never", "protocol.https.allow=always", "protocol.http.allow=always",
	"protocol.ssh.allow=always", "protocol.git.allow=always", "protocol.file.allow=always",
	"submodule.recurse=false", "fetch.recurseSubmodules=false", "gc.auto=0", "maintenance.auto=false",
	"advice.detachedHead=false", "color.ui=false", "core.symlinks=true",
}

// gitEnv is env without GIT_* variables, with no system or global
// configuration (the user's may name programs or rewrite URLs) and no
// prompt of any kind.
func gitEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(strings.ToUpper(name), "GIT_") || name == "SSH_ASKPASS" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0",
		"GIT_ASKPASS=false", "SSH_ASKPASS=false", "GCM_INTERACTIVE=never", "GIT_PAGER=cat", "GIT_EDITOR=true",
		"GIT_NO_REPLACE_OBJECTS=1", "GIT_ALLOW_PROTOCOL=https:http:ssh:git:file")
}

// A Tree is a fetched source: the files of the commit (or of the local
// folder) in Root.
type Tree struct {
	Source Source
	// Ref is the ref asked for; Commit what it resolved to ("" for a
	// plain folder).
	Ref, Commit string
	// Root is the source's top: the checkout, or the local folder itself.
	Root string
	tmp  string
	// git runs git in the clone (nil for a plain folder); at holds the
	// other commits checked out by [Tree.At].
	git *runner
	at  map[string]*Tree
}

// Close removes the fetch's temporary folder.
func (t *Tree) Close() error {
	if t == nil || t.tmp == "" {
		return nil
	}
	return os.RemoveAll(t.tmp)
}

// Fetch brings src at ref into a temporary folder (a plain local folder is
// read where it is, and a ref is then an error). ref "" is the default
// branch; otherwise a branch, a tag or a commit.
func Fetch(ctx context.Context, g Git, src Source, ref string) (*Tree, error) {
	if ref != "" && (strings.HasPrefix(ref, "-") || notLine(ref) || strings.ContainsAny(ref, " ~^:?*[\\")) {
		return nil, &UsageError{Err: fmt.Errorf("invalid --ref %q", ref)}
	}
	if !src.Git {
		if ref != "" {
			return nil, &UsageError{Err: fmt.Errorf("--ref %s: %s is a folder, not a git repository", ref, src.Local)}
		}
		return &Tree{Source: src, Root: src.Local}, nil
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		return nil, failf("git is not on PATH: it fetches skills")
	}
	tmp, err := os.MkdirTemp("", "clawseed-skill-")
	if err != nil {
		return nil, failf("temporary folder: %w", err)
	}
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	t := &Tree{Source: src, Ref: ref, Root: filepath.Join(tmp, "repo"), tmp: tmp}
	start := Starter(nil)
	if g.Confine != nil {
		if start, err = g.Confine(tmp); err != nil {
			t.Close()
			return nil, failf("git: %w", err)
		}
	}
	r := &runner{git: gitBin, env: append(gitEnv(g.Env), "TMPDIR="+tmp), start: start, dir: tmp}
	url := src.Spec
	args := []string{"clone", "--quiet", "--no-checkout", "--template=", "--no-recurse-submodules"}
	if src.Local != "" {
		// The git transport, not the local copy of .git's files: a
		// hostile repository's objects folder may hold links.
		args = append(args, "--no-local")
	}
	if _, err := r.run(ctx, append(args, "--", url, t.Root)...); err != nil {
		t.Close()
		return nil, failf("git clone %s: %w", url, err)
	}
	r.dir = t.Root
	t.Commit, err = resolve(ctx, r, ref)
	if err != nil {
		t.Close()
		return nil, err
	}
	if _, err := r.run(ctx, "checkout", "--quiet", "--detach", t.Commit); err != nil {
		t.Close()
		return nil, failf("git checkout %s: %w", t.Commit, err)
	}
	t.git = r
	return t, nil
}

// At is the same repository at another commit (the one a lock names,
// to tell what changed upstream since then), checked out in t's temporary
// folder as a git worktree; t.Close removes it. It fails for a plain
// folder, a commit that is not a full id, and one the clone does not hold
// (a history rewritten upstream).
func (t *Tree) At(ctx context.Context, commit string) (*Tree, error) {
	if t.git == nil {
		return nil, failf("%s is not a git repository", t.Source.Spec)
	}
	if len(commit) != 40 && len(commit) != 64 || strings.Trim(commit, "0123456789abcdef") != "" {
		return nil, failf("invalid commit %q", commit)
	}
	if commit == t.Commit {
		return t, nil
	}
	if at, ok := t.at[commit]; ok {
		return at, nil
	}
	dir := filepath.Join(t.tmp, "at-"+commit)
	if _, err := t.git.run(ctx, "worktree", "add", "--quiet", "--detach", dir, commit); err != nil {
		return nil, failf("git worktree add %s: %w", commit, err)
	}
	at := &Tree{Source: t.Source, Ref: t.Ref, Commit: commit, Root: dir}
	if t.at == nil {
		t.at = map[string]*Tree{}
	}
	t.at[commit] = at
	return at, nil
}

// resolve finds the commit of ref in the fresh clone: the default branch
// for "", else a branch of the remote, a tag, then a commit id.
func resolve(ctx context.Context, r *runner, ref string) (string, error) {
	candidates := []string{"HEAD"}
	if ref != "" {
		candidates = []string{"refs/remotes/origin/" + ref, "refs/tags/" + ref, ref}
	}
	for _, c := range candidates {
		out, err := r.run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", c+"^{commit}")
		if err == nil {
			if id := strings.TrimSpace(string(out)); len(id) == 40 || len(id) == 64 {
				return id, nil
			}
		}
	}
	if ref == "" {
		return "", failf("the repository has no default branch to install from (use --ref)")
	}
	return "", failf("--ref %s: no such branch, tag or commit in the repository", ref)
}

// runner runs git in dir with the fixed configuration.
type runner struct {
	git   string
	env   []string
	start Starter
	dir   string
}

// maxGitOutput bounds what a git call may print.
const maxGitOutput = 1 << 20

func (r *runner) run(ctx context.Context, args ...string) ([]byte, error) {
	full := []string{"--no-pager"}
	for _, c := range fixedConfig {
		full = append(full, "-c", c)
	}
	cmd := exec.CommandContext(ctx, r.git, append(full, args...)...)
	cmd.Dir, cmd.Env = r.dir, r.env
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &capped{b: &out}, &capped{b: &stderr}
	var err error
	if r.start == nil {
		err = cmd.Run()
	} else {
		var wait func() error
		if wait, err = r.start(ctx, cmd); err == nil {
			err = wait()
		}
	}
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("%w: %s", err, lastLines(msg, 4))
		}
		return nil, err
	}
	return out.Bytes(), nil
}

// lastLines keeps the end of git's error output.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}

// capped keeps the first maxGitOutput bytes written.
type capped struct{ b *bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxGitOutput - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// notLine reports whether s is not one line of text: invalid UTF-8 or a
// control character. Names, paths, sources and refs that are not lines
// are refused: they would reach the terminal and the lock file.
func notLine(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || 0x80 <= r && r < 0xa0 {
			return true
		}
	}
	return false
}
