package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/atomicfile"
	"github.com/clawseed/clawseed/internal/sandbox"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/tools"
)

// A subagent run with isolation "worktree" (agent.Worktree) works in a git
// worktree made here: <workspace>/.clawseed/worktrees/NAME on the new
// branch clawseed/NAME from HEAD, made and removed by the git tool's
// hardened git (tools.GitWorktrees) in the OS sandbox. Its commands may
// write the worktree — a hole in the read-only .clawseed/ — and the
// repository's git folder, nothing else of the workspace; the worktree's
// own control paths (its .git file, .clawseed/, .claude/, …) are control
// paths as the workspace's are. Its file tools, shell and git are rebuilt
// for the worktree; the tools that act on the session's workspace
// otherwise (backup, pdf_read, the cron tools) are left out.

// worktreesDir is where the worktrees are made, below the workspace.
const worktreesDir = ".clawseed/worktrees"

// workspaceBound reports whether a session tool is one a worktree
// subagent does not get: it acts on the session's workspace and is not
// rebuilt for the worktree (skill_create never reaches a subagent).
// The file tools, shell and git are rebuilt (and left out when they
// cannot be).
func workspaceBound(name string) bool {
	switch name {
	case "backup", "pdf_read", "cron_add", "cron_list", "cron_remove", "cron_run", "cron_runs", "cron_update",
		"content_search", "file_edit", "file_read", "file_write", "glob_search", "shell", "git":
		return true
	}
	return false
}

// worktreeMaker is the session's agent.Options.Worktree; nil when the
// workspace's autonomy is read_only (a subagent that cannot write has no
// use for a branch).
func (s *Session) worktreeMaker(p *parts) func(ctx context.Context, label string) (*agent.Worktree, error) {
	if p.level == permissions.ReadOnly {
		return nil
	}
	return func(ctx context.Context, label string) (*agent.Worktree, error) {
		return newWorktree(ctx, s.cfg, s.conf, p.sb, label)
	}
}

// newWorktree makes one worktree and the tools bound to it.
func newWorktree(ctx context.Context, cfg *config.Config, conf *confinement, sb *tools.Sandbox, label string) (*agent.Worktree, error) {
	if conf.refused() {
		return nil, conf.errRequired()
	}
	gitOpts := tools.GitOptions{
		MaxOutputChars: cfg.Agent.MaxToolOutputChars,
		EnvPassthrough: cfg.Autonomy.EnvPassthrough,
		Environ:        conf.environ(os.Environ()),
		Start:          conf.commands(), // git rev-parse, finding the repository
	}
	gw, err := tools.NewGitWorktrees(cfg.Workspace, gitOpts)
	if err != nil {
		return nil, err
	}
	name, err := worktreeName(label)
	if err != nil {
		return nil, err
	}
	dir, err := makeWorktreeDir(cfg.Workspace, name)
	if err != nil {
		return nil, err
	}
	start := conf.worktreeCommands(dir, gw.CommonDir())
	wt, err := gw.Add(ctx, start, dir, "clawseed/"+name)
	if err != nil {
		_ = os.Remove(dir) // still empty
		return nil, err
	}
	wcfg := *cfg
	wcfg.Workspace = dir
	wsb := &tools.Sandbox{
		Workspace: dir, Forbidden: cfg.Autonomy.ForbiddenPaths, Home: homeDir(),
		ReadRoots: sb.ReadRoots, SkillDirs: sb.SkillDirs, Control: controlPaths(&wcfg),
	}
	gitOpts.Start = start
	bound := tools.Core(wsb, tools.CoreOptions{
		AllowedCommands: cfg.Autonomy.AllowedCommands,
		ShellTimeout:    cfg.Agent.ToolTimeout(),
		MaxOutputChars:  cfg.Agent.MaxToolOutputChars,
		EnvPassthrough:  cfg.Autonomy.EnvPassthrough,
		Environ:         gitOpts.Environ,
		Start:           start,
		StartReadOnly:   conf.readOnlyStarter(),
		Sandboxed:       conf.active(),
		Network:         conf.network,
	})
	if git, err := tools.NewGit(wsb, gitOpts); err == nil {
		bound = append(bound, git)
	}
	byName := map[string]agent.Tool{}
	for _, t := range bound {
		byName[t.Spec().Name] = t
	}
	rel := filepath.ToSlash(filepath.Join(worktreesDir, name))
	return &agent.Worktree{
		Path: dir, Branch: wt.Branch,
		Tool: func(t agent.Tool) agent.Tool {
			n := t.Spec().Name
			if b, ok := byName[n]; ok {
				return b
			}
			if workspaceBound(n) {
				return nil
			}
			return t
		},
		ControlPath: wsb.Control.Match,
		PathForms:   wsb.PathForms,
		ShellLine: func(line, d string) *permissions.ShellLine {
			return tools.ShellLine(line, wsb, d)
		},
		Finish: func(ctx context.Context) string {
			// The worktree's folder is a mount point in its commands'
			// sandbox, which cannot be removed there: git removes it with
			// the worktrees folder as the hole.
			st, err := gw.Finish(ctx, conf.worktreeCommands(filepath.Dir(dir), gw.CommonDir()), wt)
			switch {
			case err != nil:
				return fmt.Sprintf("[worktree %s, branch %s: not tidied: %v]", rel, wt.Branch, err)
			case st.Dirty:
				return fmt.Sprintf("[worktree %s kept: it has uncommitted changes; branch %s has %s]", rel, wt.Branch, commits(st.Commits))
			}
			return fmt.Sprintf("[worktree %s removed (clean); branch %s kept with %s]", rel, wt.Branch, commits(st.Commits))
		},
	}, nil
}

func commits(n int) string {
	if n == 1 {
		return "1 new commit"
	}
	return fmt.Sprintf("%d new commits", n)
}

// worktreeName is a folder and branch name for a subagent's worktree: the
// label's letters and digits, hyphenated, at most 32 of them, and a random
// suffix.
func worktreeName(label string) (string, error) {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(label) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
		if b.Len() >= 32 {
			break
		}
	}
	slug := strings.Trim(b.String(), "-")
	if slug == "" {
		slug = "agent"
	}
	var rnd [3]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	return slug + "-" + hex.EncodeToString(rnd[:]), nil
}

// makeWorktreeDir makes <workspace>/.clawseed/worktrees/NAME, empty, with
// a .gitignore of `*` in worktrees/ so that the repository's status does
// not list them. It is done by this process, not a sandboxed one: the
// sandbox's hole must exist before a process starts.
// The folders on the way are made by workspaceFolder: a link out of the
// workspace is refused.
func makeWorktreeDir(workspace, name string) (string, error) {
	parent, err := workspaceFolder(workspace, worktreesDir)
	if err != nil {
		return "", err
	}
	ignore := filepath.Join(parent, ".gitignore")
	if _, err := os.Lstat(ignore); errors.Is(err, os.ErrNotExist) {
		if err := atomicfile.Write(ignore, []byte("*\n"), 0o644); err != nil {
			return "", err
		}
	}
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("make the worktree folder: %w", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	if !within(real, parent) {
		return "", fmt.Errorf("the worktree folder resolves to %s, outside %s; refused", real, worktreesDir)
	}
	return real, nil
}

// worktreeCommands is the starter of a worktree's commands (git making it,
// the subagent's shell and git; with the worktrees folder as dir, git
// removing it): the commands' policy, but writable only in dir — a hole in the read-only .clawseed/ —
// the repository's git folder (objects, refs; its hooks and config stay
// read-only), the session's TMPDIR and [sandbox].writable, with the
// worktree's own control paths read-only.
func (c *confinement) worktreeCommands(dir, gitCommonDir string) tools.Starter {
	switch {
	case c.refused():
		return func(context.Context, *exec.Cmd, bool) (func() error, error) { return nil, c.errRequired() }
	case !c.active():
		return nil
	}
	writable := []string{dir, gitCommonDir}
	if tmp := c.tempDir(); tmp != "" {
		writable = append(writable, tmp)
	}
	writable = append(writable, c.writable[1:]...) // [sandbox].writable, not the workspace
	return func(ctx context.Context, cmd *exec.Cmd, network bool) (func() error, error) {
		ro := slices.Concat(c.readOnly, tools.NewControlPaths(tools.ControlConfig{Workspace: dir}).ReadOnlyTargets())
		return c.box.Start(ctx, cmd, sandbox.Policy{
			Deny: c.deny, Keep: c.keep, Writable: writable, ReadOnly: ro, Holes: []string{dir},
			Network: network || c.network,
		})
	}
}
