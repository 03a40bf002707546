package skills

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestReplayKeepsFileEncoded (issue 28): a replay from the cache file
// reads its entries and listings where the file holds them and makes no
// object of them; a walk after it (a reload that finds a new skill) makes
// them objects of the replay's generation, so that it reuses every parse
// the replay used instead of dropping them, and lists only what changed.
func TestReplayKeepsFileEncoded(t *testing.T) {
	t.Parallel()
	opts, _ := replayTree(t)
	path := filepath.Join(t.TempDir(), "cache.bin")
	c := &replayChecker{t: t, opts: opts, path: path}
	c.discover("cold")
	cache, err := LoadParseCache(path, "replay test")
	if err != nil {
		t.Fatal(err)
	}
	if cache.pending == nil || cache.pending.made || cache.entries != nil {
		t.Fatal("loading made objects of the file's entries")
	}
	n := cache.Len()
	warm := opts
	warm.Cache = cache
	cold := opts
	cold.Cache = nil
	if d := cmp.Diff(Discover(t.Context(), cold), Discover(t.Context(), warm)); d != "" || cache.replays != 1 {
		t.Fatalf("replays %d; replayed catalog differs from a cold one:\n%s", cache.replays, d)
	}
	if cache.pending == nil || cache.pending.made {
		t.Fatal("the replay made objects of the file's entries")
	}
	// Only the new skill and its folder's listing change: the other
	// skills' stamps hold.
	writeFiles(t, opts.Roots[0].Path, map[string]string{"cat-a/six/SKILL.md": md("six", "Six.")})
	old := time.Now().Add(-2 * time.Hour)
	backdateFiles(t, filepath.Join(opts.Roots[0].Path, "cat-a", "six"), old)
	setMtime(t, filepath.Join(opts.Roots[0].Path, "cat-a"), old)
	hits := cache.hits
	if d := cmp.Diff(Discover(t.Context(), cold), Discover(t.Context(), warm)); d != "" {
		t.Fatalf("walk after the replay differs from a cold one:\n%s", d)
	}
	if cache.pending != nil || cache.entries == nil {
		t.Fatal("the walk did not build the maps")
	}
	if got := cache.hits - hits; got != n {
		t.Fatalf("the walk after the replay reused %d parses, want the %d the replay used", got, n)
	}
	if cache.Len() != n+1 {
		t.Fatalf("cache holds %d entries after the walk, want %d", cache.Len(), n+1)
	}
}
