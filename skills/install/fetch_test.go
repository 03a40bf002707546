package install

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a repository with a commit on main (tagged v1) and a
// second on branch next; it returns the folder and the two commits.
func gitRepo(t *testing.T) (dir, first, second string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	dir = t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q", "-b", "main")
	writeFiles(t, dir, map[string]string{"skills/s/SKILL.md": skillMD("s")})
	run("add", "-A")
	run("commit", "-q", "-m", "one")
	run("tag", "v1")
	first = run("rev-parse", "HEAD")
	run("checkout", "-q", "-b", "next")
	writeFiles(t, dir, map[string]string{"skills/s/SKILL.md": skillMD("s") + "v2\n"})
	run("commit", "-q", "-am", "two")
	second = run("rev-parse", "HEAD")
	run("checkout", "-q", "main")
	return dir, first, second
}

func TestFetchRefs(t *testing.T) {
	dir, first, second := gitRepo(t)
	src, err := ParseSource(dir, "/")
	if err != nil || !src.Git {
		t.Fatalf("ParseSource = %+v, %v", src, err)
	}
	var confined []string
	g := Git{Env: os.Environ(), Confine: func(tmp string) (Starter, error) {
		confined = append(confined, tmp)
		return nil, nil
	}}
	tests := []struct{ ref, want string }{
		{"", first}, {"main", first}, {"v1", first}, {"next", second}, {second, second}, {second[:12], second},
	}
	for _, tt := range tests {
		t.Run("ref="+tt.ref, func(t *testing.T) {
			tree, err := Fetch(context.Background(), g, src, tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			if tree.Commit != tt.want {
				t.Fatalf("commit %s, want %s", tree.Commit, tt.want)
			}
			if _, err := os.Stat(filepath.Join(tree.Root, "skills/s/SKILL.md")); err != nil {
				t.Fatal(err)
			}
			tmp := filepath.Dir(tree.Root)
			tree.Close()
			if _, err := os.Stat(tmp); err == nil {
				t.Fatal("Close left the temporary folder")
			}
		})
	}
	if len(confined) != len(tests) {
		t.Errorf("Confine called %d times for %d fetches", len(confined), len(tests))
	}
	for _, bad := range []string{"nope", "-x", "a b", "HEAD~1", "a:b"} {
		_, err := Fetch(context.Background(), g, src, bad)
		var fe *Error
		var ue *UsageError
		if !errors.As(err, &fe) && !errors.As(err, &ue) {
			t.Errorf("Fetch ref %q = %v", bad, err)
		}
	}
	// A plain folder takes no ref.
	plain := Source{Spec: dir, Local: dir}
	if _, err := Fetch(context.Background(), g, plain, "main"); err == nil {
		t.Error("a ref for a plain folder")
	}
}

func TestTreeAt(t *testing.T) {
	dir, first, second := gitRepo(t)
	src, err := ParseSource(dir, "/")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := Fetch(context.Background(), Git{Env: os.Environ()}, src, "next")
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if tree.Commit != second {
		t.Fatalf("commit %s, want %s", tree.Commit, second)
	}
	old, err := tree.At(context.Background(), first)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(old.Root, "skills/s/SKILL.md"))
	if err != nil || string(got) != skillMD("s") {
		t.Fatalf("SKILL.md at the first commit = %q, %v", got, err)
	}
	if again, err := tree.At(context.Background(), first); err != nil || again != old {
		t.Errorf("At twice = %p, %v; want the same tree %p", again, err, old)
	}
	if same, err := tree.At(context.Background(), second); err != nil || same != tree {
		t.Errorf("At its own commit = %p, %v", same, err)
	}
	for _, bad := range []string{"", "main", first[:12], "--upload-pack=x", strings.Repeat("0", 40)} {
		if _, err := tree.At(context.Background(), bad); err == nil {
			t.Errorf("At(%q) succeeded", bad)
		}
	}
	if _, err := (&Tree{Source: Source{Spec: dir, Local: dir}, Root: dir}).At(context.Background(), first); err == nil {
		t.Error("At of a plain folder succeeded")
	}
	tmp := filepath.Dir(tree.Root)
	tree.Close()
	if _, err := os.Stat(tmp); err == nil {
		t.Fatal("Close left the temporary folder")
	}
}
