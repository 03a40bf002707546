package tools

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestDirSetReplaceFunc: the directories of ReplaceFunc are listed at the
// first lookup only, once whatever the goroutines asking, and then read as
// those given to Replace.
func TestDirSetReplaceFunc(t *testing.T) {
	t.Parallel()
	dirs := []ReadDir{{Path: "/ws/.clawseed/skills/a", Real: "/real/a"}, {Path: "/home/u/.claude/skills/b/", Real: "/home/u/b"}}
	var calls atomic.Int32
	lazy, eager := &DirSet{}, &DirSet{}
	lazy.ReplaceFunc(func() []ReadDir { calls.Add(1); return dirs })
	eager.Replace(dirs)
	if calls.Load() != 0 {
		t.Fatal("directories listed before any lookup")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { lazy.index().lookup("/ws/.clawseed/skills/a/x", false) })
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Fatalf("directories listed %d times", n)
	}
	if _, ok := lazy.index().lookup("/real/a/x", true); !ok {
		t.Error("a file of a skill directory is not found")
	}
	for _, p := range []string{"/ws/.clawseed/skills/a/SKILL.md", "/real/a", "/home/u/.claude/skills/b/c/d", "/home/u/b/x", "/home/u/c", "/ws"} {
		for _, real := range []bool{false, true} {
			got, gotOK := lazy.index().lookup(p, real)
			want, wantOK := eager.index().lookup(p, real)
			if got != want || gotOK != wantOK {
				t.Errorf("lookup(%s, %v) = %v %v, Replace's %v %v", p, real, got, gotOK, want, wantOK)
			}
		}
	}
}
