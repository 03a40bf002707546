package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// GitWorktrees makes and removes the git worktrees subagents run in
// (the Agent tool's isolation "worktree"): each on a new branch from
// HEAD. git runs as the git tool runs it (git_run.go): the repository
// pinned, every setting that names a program overridden, the filters and
// drivers of the configuration emptied, and the process started by the
// caller's Starter, the OS sandbox of the worktree.
type GitWorktrees struct {
	repo *gitRepo
	env  []string
}

// A Worktree is one worktree [GitWorktrees.Add] made.
type Worktree struct {
	// Dir is its folder (absolute), Branch its branch, Base the commit it
	// started from.
	Dir, Branch, Base string
}

// NewGitWorktrees returns the worktree maker of the repository the
// workspace is in, or why there is none (git not on PATH, not a work
// tree). opts.Start starts the git that finds the repository; the other
// calls get their own.
func NewGitWorktrees(workspace string, opts GitOptions) (*GitWorktrees, error) {
	env := gitEnv(opts.Environ, opts.EnvPassthrough)
	repo, err := openGitRepo(workspace, env, opts.Start)
	if err != nil {
		return nil, err
	}
	return &GitWorktrees{repo: repo, env: env}, nil
}

// openGitRepo finds and opens the repository workspace is in.
func openGitRepo(workspace string, env []string, start Starter) (*gitRepo, error) {
	loc, err := locateGitRepo(workspace)
	if err != nil {
		return nil, err
	}
	return loc.open(env, start)
}

// CommonDir is the repository's common git folder, which every worktree
// writes (objects, refs): a worktree's commands must be able to write it.
func (g *GitWorktrees) CommonDir() string { return g.repo.commonDir }

// with is the repository with start as the starter of its processes.
func (g *GitWorktrees) with(start Starter) *gitRepo {
	r := *g.repo
	r.start = start
	return &r
}

// Add makes dir (absolute; absent or an empty folder) a worktree of HEAD
// on the new branch.
func (g *GitWorktrees) Add(ctx context.Context, start Starter, dir, branch string) (Worktree, error) {
	if err := checkGitRev("branch", branch, false); err != nil || strings.HasPrefix(branch, "-") {
		return Worktree{}, fmt.Errorf("invalid branch name %q", branch)
	}
	r := g.with(start)
	out, err := r.output(ctx, r.command(ctx, g.env, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"), 4096)
	if err != nil {
		return Worktree{}, errors.New("the repository has no commit yet (HEAD): a worktree starts from one")
	}
	base := strings.TrimSpace(string(out))
	overrides, err := r.driverOverrides(ctx, g.env, false)
	if err != nil {
		return Worktree{}, err
	}
	args := slices.Concat(overrides, []string{"worktree", "add", "--quiet", "-b", branch, "--", dir, base})
	if _, err := r.output(ctx, r.command(ctx, g.env, args...), 1<<16); err != nil {
		return Worktree{}, fmt.Errorf("git worktree add: %w", err)
	}
	return Worktree{Dir: dir, Branch: branch, Base: base}, nil
}

// A WorktreeState is what a subagent left in its worktree.
type WorktreeState struct {
	// Commits is how many commits the branch has past the base.
	Commits int
	// Dirty: the worktree holds uncommitted changes or untracked files,
	// and was kept; else it was removed (the branch is always kept).
	Dirty bool
}

// Finish removes w when it is clean, keeping its branch, and says what was
// left.
func (g *GitWorktrees) Finish(ctx context.Context, start Starter, w Worktree) (WorktreeState, error) {
	var st WorktreeState
	r := g.with(start)
	out, err := r.output(ctx, r.command(ctx, g.env, "rev-list", "--count", w.Base+".."+w.Branch), 4096)
	if err != nil {
		return st, fmt.Errorf("git rev-list: %w", err)
	}
	st.Commits, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	wt, err := openGitRepo(w.Dir, g.env, start)
	if err != nil {
		return st, err
	}
	overrides, err := wt.driverOverrides(ctx, g.env, false)
	if err != nil {
		return st, err
	}
	status, err := wt.output(ctx, wt.command(ctx, append(slices.Clip(g.env), "GIT_OPTIONAL_LOCKS=0"),
		slices.Concat(overrides, []string{"status", "--porcelain", "--ignore-submodules=all"})...), 1<<20)
	if err != nil {
		return st, fmt.Errorf("git status in %s: %w", w.Dir, err)
	}
	if st.Dirty = len(strings.TrimSpace(string(status))) > 0; st.Dirty {
		return st, nil
	}
	if _, err := r.output(ctx, r.command(ctx, g.env, "worktree", "remove", "--", w.Dir), 1<<16); err != nil {
		return st, fmt.Errorf("git worktree remove: %w", err)
	}
	return st, nil
}
