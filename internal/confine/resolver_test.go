package confine

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolverAgreesWithRealOrSelf: the remembering resolver gives what
// RealOrSelf gives for every kind of path — plain, through links to
// folders (absolute and relative, chained), dangling links, missing
// components, below a file — in any order of asking.
func TestResolverAgreesWithRealOrSelf(t *testing.T) {
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	mk := func(rel string) {
		if err := os.MkdirAll(filepath.Join(root, rel), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	mk("home/real/.ssh")
	mk("ws/.clawseed/skills")
	mk("other")
	if err := os.WriteFile(filepath.Join(root, "ws", "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link(filepath.Join(root, "home", "real"), "home/user")   // absolute
	link("../other", "ws/up")                                // relative, with ..
	link("up", "ws/chain")                                   // a link to a link
	link(filepath.Join(root, "nowhere", "x"), "ws/dangling") // dangling
	link("loop2", "ws/loop1")
	link("loop1", "ws/loop2")
	paths := []string{
		"", "home", "home/user", "home/user/.ssh", "home/user/.ssh/id", "home/user/missing/deeper",
		"ws", "ws/.clawseed/skills", "ws/up", "ws/up/x", "ws/chain/x/y", "ws/dangling", "ws/dangling/z",
		"ws/file", "ws/file/below", "ws/loop1", "ws/loop1/x", "missing/a/b", "ws/.clawseed/../up",
	}
	for _, order := range [][]string{paths, reversed(paths)} {
		var r Resolver
		for _, rel := range order {
			p := filepath.Clean(filepath.Join(root, rel))
			if got, want := r.RealOrSelf(p), RealOrSelf(p); got != want {
				t.Errorf("%s: resolver %q, RealOrSelf %q", rel, got, want)
			}
		}
	}
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}
