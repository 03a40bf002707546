//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newSubmoduleRepo adds to the test repository a submodule lib (ignore =
// none in .gitmodules) that has a submodule inner of its own. Each
// repository's own configuration defines a clean filter and a textconv
// that write to the returned marker, its .gitattributes applies them to
// every file, and a file of each is modified: plain git runs the filters
// from `git status` in the superproject.
func newSubmoduleRepo(t *testing.T, e *testEnv) (marker string) {
	t.Helper()
	marker = filepath.Join(e.outside, "ran")
	evil := filepath.Join(e.outside, "evil.sh")
	writeFile(t, evil, "#!/bin/sh\necho \"$0 $*\" >> "+marker+"\ncat\n")
	if err := os.Chmod(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	file := []string{"-c", "protocol.file.allow=always"}
	for _, r := range []struct{ name, attr string }{{"innersrc", "y"}, {"libsrc", "x"}} {
		dir := filepath.Join(e.outside, r.name)
		writeFile(t, filepath.Join(dir, "f.txt"), "original\n")
		writeFile(t, filepath.Join(dir, ".gitattributes"), "* filter="+r.attr+" diff="+r.attr+"\n")
		gitRun(t, dir, "init", "-q", "-b", "main")
		if r.name == "libsrc" {
			gitRun(t, dir, append(file, "submodule", "add", "-q", "../innersrc", "inner")...)
		}
		gitRun(t, dir, "add", ".")
		gitRun(t, dir, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", r.name)
	}
	gitRun(t, e.ws, append(file, "submodule", "add", "-q", "../outside/libsrc", "lib")...)
	gitRun(t, e.ws, append(file, "submodule", "update", "-q", "--init", "--recursive")...)
	e.write(t, ".gitmodules", "[submodule \"lib\"]\n\tpath = lib\n\turl = ../outside/libsrc\n\tignore = none\n")
	gitRun(t, e.ws, "add", ".gitmodules")
	gitRun(t, e.ws, "commit", "-q", "-m", "with lib")
	e.write(t, "lib/.gitmodules", "[submodule \"inner\"]\n\tpath = inner\n\turl = ../innersrc\n\tignore = none\n")
	for _, c := range []struct{ config, name string }{
		{".git/modules/lib/config", "x"}, {".git/modules/lib/modules/inner/config", "y"},
	} {
		gitRun(t, e.ws, "config", "-f", c.config, "filter."+c.name+".clean", evil)
		gitRun(t, e.ws, "config", "-f", c.config, "diff."+c.name+".textconv", evil)
	}
	// Same size, other content: git hashes the file (through the
	// filter) on every status, not only while the index is racy.
	e.write(t, "lib/f.txt", "ORIGINAL\n")
	e.write(t, "lib/inner/f.txt", "ORIGINAL\n")
	// the trap is armed
	gitRun(t, e.ws, "status", "--short")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("plain git status did not run the submodule's filter: %v", err)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	return marker
}

// No action runs a program from the configuration of a submodule (issue
// 20, item 3), nested ones included: read actions never enter submodules,
// and the others override their drivers.
func TestGitSubmodules(t *testing.T) {
	t.Parallel()
	e, tl := newGitRepo(t, GitOptions{})
	marker := newSubmoduleRepo(t, e)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "status"}, "## main"},
		{map[string]any{"action": "status", "options": []string{"--porcelain=v2"}}, "# branch.head main"},
		{map[string]any{"action": "diff"}, ""},
		{map[string]any{"action": "diff", "rev": "HEAD~1"}, "+[submodule \"lib\"]"},
		{map[string]any{"action": "log", "options": []string{"-p", "--stat"}}, "with lib"},
		{map[string]any{"action": "show", "options": []string{"--stat"}}, ".gitmodules"},
		{map[string]any{"action": "stash_list", "options": []string{"-p"}}, ""},
		{map[string]any{"action": "blame", "paths": []string{".gitmodules"}}, "ignore = none"},
		{map[string]any{"action": "branch", "options": []string{"-v"}}, "main"},
		{map[string]any{"action": "add", "paths": []string{"."}}, ""},
		{map[string]any{"action": "add", "options": []string{"-A"}}, ""},
		{map[string]any{"action": "add", "paths": []string{"lib"}}, ""},
		{map[string]any{"action": "commit", "message": "more", "options": []string{"--allow-empty"}}, "more"},
		{map[string]any{"action": "commit", "message": "all", "options": []string{"-a", "--allow-empty"}}, "all"},
		{map[string]any{"action": "stash_push"}, ""},
		{map[string]any{"action": "stash_pop"}, ""},
		{map[string]any{"action": "checkout", "paths": []string{"a.txt"}}, ""},
	} {
		got := gitCall(t, tl, tc.args)
		checkGitResult(t, tc.args, got, []string{tc.want}, got.IsError)
		if b, err := os.ReadFile(marker); err == nil {
			t.Fatalf("%v ran a program from a submodule's configuration:\n%s\nresult: %s", tc.args, b, got.Content)
		}
	}
}

// A submodule whose work tree is elsewhere (core.worktree) is not
// followed: actions that could enter it are refused, read actions run.
func TestGitSubmoduleWorktreeElsewhere(t *testing.T) {
	t.Parallel()
	e, tl := newGitRepo(t, GitOptions{})
	marker := newSubmoduleRepo(t, e)
	gitRun(t, e.ws, "config", "-f", ".git/modules/lib/config", "core.worktree", e.outside)
	got := gitCall(t, tl, map[string]any{"action": "add", "paths": []string{"a.txt"}})
	if !got.IsError || !strings.Contains(got.Content, "submodule lib: its work tree is "+e.outside+" (core.worktree)") {
		t.Errorf("add = %+v", got)
	}
	checkGitResult(t, nil, gitCall(t, tl, map[string]any{"action": "status"}), []string{"## main"}, false)
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("a program from a submodule's configuration ran:\n%s", b)
	}
}

// The index listing's gitlinks, each once (a conflict lists a path per
// stage).
func TestGitlinks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		listing string
		want    []string
	}{
		{"", nil},
		{"100644 aaaa 0\ta.txt\x00", nil},
		{"160000 aaaa 0\tlib\x00100644 bbbb 0\tlib.txt\x00160000 cccc 0\tdir with space/x\x00", []string{"lib", "dir with space/x"}},
		{"160000 aaaa 1\tlib\x00160000 bbbb 2\tlib\x00160000 cccc 3\tlib\x00", []string{"lib"}},
		{"120000 aaaa 0\t160000 x\x00", nil},
	} {
		if got := gitlinks([]byte(tc.listing)); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("gitlinks(%q) = %q, want %q", tc.listing, got, tc.want)
		}
	}
}
