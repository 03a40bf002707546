package tools

import (
	"fmt"
	"slices"
	"strings"
)

// The options the model may add to an action: formatting and filtering
// only. Each list is an allowlist; an entry ending in "=" accepts any value
// after it (values must be attached, --author=x, so that a value can never
// be read as the next argument), one ending in "*" any suffix (-U5, -Sfoo).
// Options that run programs, write files or change configuration are not
// on any list.
var (
	gitDiffOptions = []string{
		"--stat", "--stat=", "--shortstat", "--numstat", "--name-only", "--name-status", "--summary", "--compact-summary",
		"--patch", "-p", "--no-patch", "--raw", "--word-diff", "--word-diff=", "--minimal", "--patience", "--histogram",
		"--ignore-all-space", "-w", "--ignore-space-change", "-b", "--ignore-blank-lines", "--function-context", "-W",
		"--find-renames", "--find-renames=", "-M", "-M*", "-C", "-C*", "--no-renames", "--unified=", "-U*", "--diff-filter=", "--abbrev=",
		"--full-index", "--binary", "--check", "--merge-base", "--relative", "--exit-code", "--quiet",
	}
	gitLogOptions = slices.Concat(gitDiffOptions, []string{
		"--oneline", "--graph", "--all", "--branches", "--tags", "--remotes", "--reverse", "--first-parent", "--no-merges",
		"--merges", "--decorate", "--decorate=", "--abbrev-commit", "--follow", "-i", "--regexp-ignore-case", "--all-match",
		"--author=", "--committer=", "--grep=", "--since=", "--after=", "--until=", "--before=", "--format=", "--pretty=",
		"--date=", "-S*", "-G*", "--pickaxe-all", "--skip=", "-s", "--no-abbrev-commit", "--full-history", "--simplify-merges",
	})
	gitOptions = map[string][]string{
		"status": {"--short", "-s", "--long", "--branch", "-b", "--porcelain", "--porcelain=", "-z", "--ignored",
			"--ignored=", "--untracked-files=", "-u*", "--ahead-behind", "--no-ahead-behind", "--renames", "--no-renames",
			"--show-stash"},
		"diff": gitDiffOptions,
		"log":  gitLogOptions,
		"show": gitLogOptions,
		"blame": {"-w", "-M", "-M*", "-C", "-C*", "-e", "--show-email", "-s", "-l", "--root", "--porcelain", "--line-porcelain", "-t",
			"--date=", "--abbrev=", "-f", "--show-name", "-n", "--show-number", "--minimal", "--ignore-rev=", "-c"},
		"branch": {"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--merged", "--no-merged", "--sort=",
			"--show-current", "--contains", "--no-contains", "--points-at=", "-f", "--force", "--no-track", "--track"},
		"stash_list": {"--stat", "-p", "--patch", "--oneline", "--format=", "--pretty=", "--date=", "--name-only", "--name-status"},
		"add": {"-A", "--all", "-u", "--update", "-N", "--intent-to-add", "-n", "--dry-run", "-v", "--verbose", "-f",
			"--force", "--ignore-errors", "--chmod=+x", "--chmod=-x", "--ignore-removal", "--no-all"},
		"commit": {"--amend", "--no-edit", "--allow-empty", "-a", "--all", "-s", "--signoff", "--author=", "--date=",
			"--reset-author", "--dry-run", "-q", "--quiet", "--short", "--porcelain", "--only", "--include"},
		"checkout":   {"-f", "--force", "--detach", "--ours", "--theirs", "-m", "--merge", "-q", "--quiet"},
		"stash_push": {"-u", "--include-untracked", "-k", "--keep-index", "--no-keep-index", "--staged", "-q", "--quiet"},
		"stash_pop":  {"--index", "-q", "--quiet"},
		"stash_drop": {"-q", "--quiet"},
	}
	// gitDangerous are options some git command has that run a program,
	// write a file git chooses, or change where git looks or what it is
	// configured to do; their refusal says so.
	gitDangerous = []string{
		"-c", "--config", "--config-env", "--exec", "--exec-path", "--upload-pack", "--receive-pack", "-o", "--output",
		"--output-directory", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--ext-diff", "--textconv",
		"--show-signature", "-S", "--gpg-sign", "--template", "--separate-git-dir", "--recurse-submodules",
		"--open-files-in-pager", "-O", "--file", "--global", "--system", "--edit", "-e", "--interactive", "-i", "--patch",
		"-p", "--run", "--verify", "--orderfile", "--contents", "--ignore-revs-file", "--pathspec-from-file", "-F",
	}
)

// checkOptions checks the model's options for an action against its
// allowlist.
func (t *gitTool) checkOptions(action string, opts []string) error {
	allowed := gitOptions[action]
	for _, o := range opts {
		if !strings.HasPrefix(o, "-") || o == "-" || o == "--" {
			return fmt.Errorf("option %q is not an option; put revisions in rev and files in paths", o)
		}
		if gitOptionAllowed(allowed, o) {
			continue
		}
		name, _, _ := strings.Cut(o, "=")
		if slices.Contains(gitDangerous, name) || strings.HasPrefix(name, "--config") || strings.Contains(o, "core.") {
			return fmt.Errorf("option %s is refused: it can run programs, write files or change git's configuration", o)
		}
		return fmt.Errorf("option %s is not supported for %s (supported: %s)", o, action, strings.Join(allowed, " "))
	}
	return nil
}

func gitOptionAllowed(allowed []string, o string) bool {
	for _, a := range allowed {
		switch {
		case a == o:
			return true
		case strings.HasSuffix(a, "=") && strings.HasPrefix(o, a):
			return true
		case strings.HasSuffix(a, "*") && strings.HasPrefix(o, a[:len(a)-1]) && len(o) > len(a)-1:
			return true
		}
	}
	return false
}
