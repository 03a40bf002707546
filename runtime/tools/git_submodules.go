package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A submodule is another repository with its own configuration
// (.git/modules/NAME/config, or wherever the submodule's .git file
// points), which the -c settings of the superproject's listing do not
// cover: `git status` in a superproject whose .gitmodules says
// `ignore = none` starts `git status` inside each modified submodule, and
// that git runs the submodule's filter.NAME.clean. Two rules keep git from
// running a submodule's programs:
//
//   - status, diff, log, show and stash list pass gitIgnoreSubmodules
//     right after the subcommand. Only the command-line option beats
//     submodule.NAME.ignore from .gitmodules or .git/config (the -c
//     diff.ignoreSubmodules=all of gitFixedConfig does not), so these
//     actions never start git in a submodule, and need no more than the
//     superproject's overrides;
//   - the other actions have no such option, and add, commit and stash
//     push do start `git status` in a modified submodule (add even when
//     its ignore setting says all). Before each of them, the configuration of every
//     checked-out submodule (recursively: the git started in a submodule
//     goes on into its own submodules) is listed like the superproject's,
//     and its drivers are overridden too: git hands -c settings on to the
//     git it starts in a submodule. The fixed settings (hooks, fsmonitor,
//     pager, …) reach it the same way.
//
// gitFixedConfig also sets diff.submodule=short, status.submoduleSummary
// =false and submodule.recurse=false, so that nothing else (a `git diff`
// started in the submodule for --submodule=diff, a summary, a recursive
// checkout) goes in, and the tool's option lists hold no
// --recurse-submodules or --submodule.
const gitIgnoreSubmodules = "--ignore-submodules=all"

// gitNoSubmoduleActions are the actions that pass gitIgnoreSubmodules.
var gitNoSubmoduleActions = []string{"status", "diff", "log", "show", "stash_list"}

// maxGitSubmodules bounds the checked-out submodules listed before a call
// that may enter them; a call in a repository with more is refused rather
// than run with some submodules' drivers left on.
const maxGitSubmodules = 100

// maxGitIndexListing bounds the index listing read to find submodules.
const maxGitIndexListing = 64 << 20

// submoduleConfigKeys returns the configuration keys (names only) of every
// submodule git may start itself in during a call: each gitlink of the
// index whose directory holds a .git, then the gitlinks of those
// submodules' indexes, and so on. Each is listed the way git starts
// itself there: in the submodule's directory with GIT_DIR=.git.
func (r *gitRepo) submoduleConfigKeys(ctx context.Context, env []string) ([]string, error) {
	listing, err := r.output(ctx, r.command(ctx, gitOptionalLocksOff(env), "ls-files", "--stage", "-z"), maxGitIndexListing)
	if err != nil {
		return nil, fmt.Errorf("cannot list the repository's submodules: %w", err)
	}
	queue := checkedOut(r.top, gitlinks(listing))
	var keys []string
	for n := 0; len(queue) > 0; n++ {
		if n == maxGitSubmodules {
			return nil, fmt.Errorf("the repository has more than %d checked-out submodules; the git tool cannot check their configuration before this action", maxGitSubmodules)
		}
		dir := queue[0]
		queue = queue[1:]
		sub, err := r.submoduleListing(ctx, env, dir)
		if err != nil {
			rel, _ := filepath.Rel(r.top, dir)
			return nil, fmt.Errorf("submodule %s: %w", filepath.ToSlash(rel), err)
		}
		keys = append(keys, sub.keys...)
		queue = append(queue, checkedOut(dir, sub.gitlinks)...)
	}
	return keys, nil
}

type submoduleListing struct {
	keys, gitlinks []string
}

// submoduleListing lists the configuration keys and the gitlinks of the
// submodule checked out in dir. A submodule whose work tree is elsewhere
// (core.worktree) is refused: the git started there would look for its
// own submodules in a directory this listing does not know.
func (r *gitRepo) submoduleListing(ctx context.Context, env []string, dir string) (submoduleListing, error) {
	env = append(gitOptionalLocksOff(env), "GIT_DIR=.git")
	global := slices.Concat([]string{"--no-pager", "--literal-pathspecs"}, gitConfigArgs(gitFixedConfig))
	run := func(limit int, args ...string) ([]byte, error) {
		return r.output(ctx, r.commandIn(ctx, dir, env, slices.Concat(global, args)...), limit)
	}
	top, err := run(4096, "rev-parse", "--show-toplevel")
	if err != nil {
		return submoduleListing{}, fmt.Errorf("cannot read it: %w", err)
	}
	if t := realOrSelf(strings.TrimSpace(string(top))); t != realOrSelf(dir) {
		return submoduleListing{}, fmt.Errorf("its work tree is %s (core.worktree), not its own directory; the git tool refuses actions that could enter it", t)
	}
	cfg, err := run(maxGitConfigBytes, "config", "--list", "--name-only", "-z")
	if err != nil {
		return submoduleListing{}, fmt.Errorf("cannot read its configuration: %w", err)
	}
	index, err := run(maxGitIndexListing, "ls-files", "--stage", "-z")
	if err != nil {
		return submoduleListing{}, fmt.Errorf("cannot list its submodules: %w", err)
	}
	return submoduleListing{keys: strings.Split(string(cfg), "\x00"), gitlinks: gitlinks(index)}, nil
}

// gitlinks returns the paths of the gitlinks (mode 160000) in an
// `ls-files --stage -z` listing, each once.
func gitlinks(listing []byte) []string {
	var paths []string
	for entry := range strings.SplitSeq(string(listing), "\x00") {
		// "MODE OBJECT STAGE\tPATH"
		info, path, ok := strings.Cut(entry, "\t")
		if ok && strings.HasPrefix(info, "160000 ") && !slices.Contains(paths, path) {
			paths = append(paths, path)
		}
	}
	return paths
}

// checkedOut returns the directories of the gitlinks below top that hold a
// .git (a directory or a file pointing to one), the submodules git may
// start itself in; the others are not checked out.
func checkedOut(top string, paths []string) []string {
	var dirs []string
	for _, p := range paths {
		dir := filepath.Join(top, filepath.FromSlash(p))
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil || !errors.Is(err, fs.ErrNotExist) {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// gitOptionalLocksOff keeps listings from refreshing an index.
func gitOptionalLocksOff(env []string) []string {
	return append(slices.Clip(env), "GIT_OPTIONAL_LOCKS=0")
}
