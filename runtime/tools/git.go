package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

//go:embed git.md
var gitDescription string

// defaultGitLogLimit is how many commits log shows without a limit.
const defaultGitLogLimit = 20

type gitArgs struct {
	Action  string   `json:"action"`
	Paths   []string `json:"paths,omitempty"`
	Rev     string   `json:"rev,omitempty"`
	Message string   `json:"message,omitempty"`
	Cached  bool     `json:"cached,omitempty"`
	Limit   int      `json:"limit,omitempty"`
	Branch  string   `json:"branch,omitempty"`
	Lines   string   `json:"lines,omitempty"`
	Options []string `json:"options,omitempty"`
}

// The actions, in the order the schema lists them. Read actions change
// nothing; the others change the work tree, the index or refs.
var (
	gitReadActions  = []string{"status", "diff", "log", "show", "blame", "branch", "stash_list"}
	gitWriteActions = []string{"add", "commit", "checkout", "stash_push", "stash_pop", "stash_drop"}
)

// GitOptions configures [NewGit].
type GitOptions struct {
	// ReadOnly offers only the read actions, and the tool is then
	// read-class (for read_only autonomy).
	ReadOnly bool
	// MaxOutputChars is the tool's output budget (0 = 30000).
	MaxOutputChars int
	// EnvPassthrough and Environ are as in [CoreOptions].
	EnvPassthrough []string
	Environ        []string
	// Start starts every git process (nil: unconfined); git never gets the
	// network.
	Start Starter
}

// gitTool runs the real git with an argument vector built from structured
// arguments (never a shell, never a free-form command line), hardened
// against the repository's configuration (git_run.go).
type gitTool struct {
	*typedTool[gitArgs]
	sb *Sandbox
	// repo finds the repository at the first call that needs it (git
	// rev-parse, a confined process), not at registration, where it would
	// delay every session's first request; registration checks only that
	// git is on PATH and a .git entry is above the workspace
	// ([locateGitRepo]). A repository git refuses, or whose work tree is
	// elsewhere, makes each call an error saying so.
	repo     func() (*gitRepo, error)
	readOnly bool
	maxOut   int
	env      []string
	// mu serialises calls: two git processes writing the index at once
	// fail on index.lock.
	mu sync.Mutex
}

// NewGit returns the git tool for the sandbox's workspace, or an error
// saying why it cannot work there (git is not on PATH, the workspace is not
// inside a work tree).
func NewGit(sb *Sandbox, opts GitOptions) (Tool, error) {
	if opts.MaxOutputChars <= 0 {
		opts.MaxOutputChars = defaultMaxOutput
	}
	env := gitEnv(opts.Environ, opts.EnvPassthrough)
	loc, err := locateGitRepo(sb.workspace())
	if err != nil {
		return nil, err
	}
	t := &gitTool{sb: sb, repo: sync.OnceValues(func() (*gitRepo, error) { return loc.open(env, opts.Start) }), readOnly: opts.ReadOnly, maxOut: opts.MaxOutputChars, env: env}
	actions := gitReadActions
	class := permissions.ClassRead
	if !opts.ReadOnly {
		actions = slices.Concat(gitReadActions, gitWriteActions)
		class = permissions.ClassWrite
	}
	t.typedTool = newTypedTool("git", class, gitDescription, t.run,
		enum("action", actions...))
	return t, nil
}

// Ordered tells the agent to run the git calls of one response in call
// order: add, then commit.
func (t *gitTool) Ordered() bool { return true }

// CallClass gives the class of one call: read actions are read-class
// (approved like file_read), the others write-class. The agent consults it
// in place of Class.
func (t *gitTool) CallClass(args json.RawMessage) permissions.Class {
	a, err := t.decode(args)
	if err != nil || !gitIsRead(a) {
		return t.Class()
	}
	return permissions.ClassRead
}

// gitIsRead reports whether a call only reads: branch without a branch to
// create is a listing.
func gitIsRead(a gitArgs) bool {
	return slices.Contains(gitReadActions, a.Action) && (a.Action != "branch" || a.Branch == "")
}

// Summary implements [Summarizer]: the git command line the call runs,
// without the global options and -c settings the tool adds to every call.
func (t *gitTool) Summary(args json.RawMessage) string {
	a, err := t.decode(args)
	if err != nil {
		return ""
	}
	argv, err := t.commandNow(a)
	if err != nil {
		return ""
	}
	for i, s := range argv {
		if strings.ContainsAny(s, " \t\n'\"") || s == "" {
			argv[i] = strconv.Quote(s)
		}
	}
	return "git " + strings.Join(argv, " ")
}

func (t *gitTool) run(ctx context.Context, a gitArgs) providers.ToolResult {
	if t.readOnly && !gitIsRead(a) {
		return errorResult("git %s changes the repository, which read_only autonomy does not allow.", a.Action)
	}
	repo, err := t.repo()
	if err != nil {
		return errorResult("%s", err)
	}
	argv, err := t.command(repo, a)
	if err != nil {
		return errorResult("%s", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.exec(ctx, repo, argv, gitIsRead(a), slices.Contains(gitNoSubmoduleActions, a.Action))
}

// commandNow is [gitTool.command] in the repository, found now if need be.
func (t *gitTool) commandNow(a gitArgs) ([]string, error) {
	repo, err := t.repo()
	if err != nil {
		return nil, err
	}
	return t.command(repo, a)
}

// command validates a call and returns git's arguments after the global
// options: the subcommand, our defaults, the model's options, revisions,
// then "--" and the paths.
func (t *gitTool) command(repo *gitRepo, a gitArgs) ([]string, error) {
	if err := t.checkOptions(a.Action, a.Options); err != nil {
		return nil, err
	}
	for _, f := range []struct{ name, value string }{{"rev", a.Rev}, {"branch", a.Branch}} {
		if err := checkGitRev(f.name, f.value, a.Action == "show" && f.name == "rev"); err != nil {
			return nil, err
		}
	}
	write := !gitIsRead(a)
	paths, err := t.paths(repo, a, write)
	if err != nil {
		return nil, err
	}
	if err := t.checkRevPath(repo, a.Rev); err != nil {
		return nil, err
	}
	noDiffTools := []string{"--no-ext-diff", "--no-textconv"}
	var argv []string
	switch a.Action {
	case "status":
		argv = slices.Concat([]string{"status", "--short", "--branch"}, a.Options)
	case "diff":
		argv = slices.Concat([]string{"diff"}, noDiffTools, a.Options)
		if a.Cached {
			argv = append(argv, "--cached")
		}
		argv = appendNonEmpty(argv, a.Rev)
	case "log":
		limit := a.Limit
		if limit <= 0 {
			limit = defaultGitLogLimit
		}
		argv = slices.Concat([]string{"log", "--max-count=" + strconv.Itoa(limit), "--date=short", "--pretty=format:%h %ad %an%d %s"},
			noDiffTools, a.Options)
		argv = appendNonEmpty(argv, a.Rev)
	case "show":
		argv = slices.Concat([]string{"show"}, noDiffTools, a.Options, []string{cmpOr(a.Rev, "HEAD")})
	case "blame":
		if len(paths) != 1 {
			return nil, fmt.Errorf("blame needs exactly one path in paths")
		}
		argv = slices.Concat([]string{"blame", "--no-textconv"}, a.Options)
		if a.Lines != "" {
			if !gitLinesRE().MatchString(a.Lines) {
				return nil, fmt.Errorf("lines must look like 10,20 (first and last line) or 10 (to the end), got %q", a.Lines)
			}
			argv = append(argv, "-L", a.Lines)
		}
		argv = appendNonEmpty(argv, a.Rev)
	case "branch":
		if a.Branch == "" {
			argv = slices.Concat([]string{"branch", "--list"}, a.Options)
		} else {
			argv = slices.Concat([]string{"branch"}, a.Options, []string{a.Branch})
			argv = appendNonEmpty(argv, a.Rev)
		}
	case "stash_list":
		argv = slices.Concat([]string{"stash", "list"}, noDiffTools, a.Options)
	case "add":
		if len(paths) == 0 {
			return nil, fmt.Errorf("add needs paths (use \".\" for everything in the workspace)")
		}
		argv = slices.Concat([]string{"add"}, a.Options)
	case "commit":
		argv = slices.Concat([]string{"commit", "--no-verify"}, a.Options)
		if a.Message != "" {
			argv = append(argv, "-m", a.Message)
		} else if !slices.Contains(a.Options, "--no-edit") {
			return nil, fmt.Errorf("commit needs a message (or options [\"--amend\", \"--no-edit\"] to keep the last one)")
		}
	case "checkout":
		if a.Rev == "" && len(a.Paths) == 0 {
			return nil, fmt.Errorf("checkout needs rev (a branch or commit to switch to) or paths (files to restore)")
		}
		argv = slices.Concat([]string{"checkout"}, a.Options)
		argv = appendNonEmpty(argv, a.Rev)
	case "stash_push":
		argv = slices.Concat([]string{"stash", "push"}, a.Options)
		if a.Message != "" {
			argv = append(argv, "-m", a.Message)
		}
	case "stash_pop", "stash_drop":
		argv = slices.Concat([]string{"stash", strings.TrimPrefix(a.Action, "stash_")}, a.Options)
		argv = appendNonEmpty(argv, a.Rev)
	default:
		return nil, fmt.Errorf("unknown action %q", a.Action)
	}
	if slices.Contains(gitNoSubmoduleActions, a.Action) {
		at := 1 // right after the subcommand; "stash list" is two words
		if argv[0] == "stash" {
			at = 2
		}
		argv = slices.Insert(argv, at, gitIgnoreSubmodules)
	}
	if len(paths) > 0 {
		argv = append(append(argv, "--"), paths...)
	}
	return argv, nil
}

var gitLinesRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[1-9][0-9]{0,8}(,\+?[1-9][0-9]{0,8})?$`) })

func appendNonEmpty(argv []string, s string) []string {
	if s == "" {
		return argv
	}
	return append(argv, s)
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// gitPathActions take paths; the others refuse them.
var gitPathActions = []string{"status", "diff", "log", "show", "blame", "add", "commit", "checkout", "stash_push"}

// paths checks the call's paths against the sandbox (inside the workspace,
// not forbidden; writes may not touch read-only roots) and returns them
// relative to the workspace, git's working directory. When the workspace is
// below the top of the work tree, actions that would otherwise cover the
// whole tree are limited to it with ".".
func (t *gitTool) paths(repo *gitRepo, a gitArgs, write bool) ([]string, error) {
	if len(a.Paths) > 0 && !slices.Contains(gitPathActions, a.Action) {
		return nil, fmt.Errorf("%s takes no paths", a.Action)
	}
	ws := t.sb.workspace()
	var out []string
	for _, p := range a.Paths {
		if strings.HasPrefix(p, "-") {
			return nil, fmt.Errorf("path %q starts with '-', which git would read as an option; write ./%s", p, p)
		}
		if strings.HasPrefix(p, ":") {
			return nil, fmt.Errorf("path %q starts with ':', a git pathspec magic; give plain paths", p)
		}
		resolve := t.sb.ResolveRead
		if write {
			resolve = t.sb.ResolveWrite
		}
		real, err := resolve(p)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(ws, t.sb.absolute(p))
		if err != nil || !filepath.IsLocal(rel) && rel != "." {
			rel, err = filepath.Rel(repo.realWorkspace, real)
			if err != nil {
				return nil, fmt.Errorf("path %s cannot be expressed inside the workspace", p)
			}
		}
		out = append(out, filepath.ToSlash(rel))
	}
	if len(out) == 0 && !repo.atTop() && slices.Contains([]string{"status", "diff", "log", "show", "stash_push"}, a.Action) {
		out = []string{"."}
	}
	return out, nil
}

// checkGitRev refuses a revision or branch name git could take for an
// option or that holds control characters. rev:path is accepted for show
// only (its path is checked by checkRevPath).
func checkGitRev(field, v string, pathAllowed bool) error {
	switch {
	case v == "":
		return nil
	case strings.HasPrefix(v, "-"):
		return fmt.Errorf("%s %q starts with '-', which git would read as an option", field, v)
	case strings.ContainsFunc(v, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return fmt.Errorf("%s %q contains control characters", field, v)
	case len(v) > 256:
		return fmt.Errorf("%s is longer than 256 characters", field)
	case strings.Contains(v, ":") && !pathAllowed:
		return fmt.Errorf("%s %q contains ':'; REV:PATH is accepted by show only", field, v)
	}
	return nil
}

// checkRevPath checks the path of show's REV:PATH the way git reads it:
// relative to the top of the work tree, or to the workspace when it starts
// with ./ or ../.
func (t *gitTool) checkRevPath(repo *gitRepo, rev string) error {
	before, p, ok := strings.Cut(rev, ":")
	if !ok {
		return nil
	}
	if before == "" || strings.HasPrefix(before, "/") {
		return fmt.Errorf("rev %q: only REV:PATH is accepted, with a revision before the ':'", rev)
	}
	abs := filepath.Join(repo.top, p)
	if p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		abs = filepath.Join(repo.realWorkspace, p)
	}
	if _, err := t.sb.ResolveRead(abs); err != nil {
		return err
	}
	return nil
}
