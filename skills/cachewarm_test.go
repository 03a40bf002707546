package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// warmChecker discovers a tree through a cache file, as each new process
// does, compares the catalog with a cold discovery, and saves the cache.
type warmChecker struct {
	t    *testing.T
	opts Options
	path string
}

// check returns the warm catalog and how many directories it listed and
// how many parses it reused.
func (c *warmChecker) check(step string) (cat *Catalog, listed, hits int) {
	c.t.Helper()
	cat, cache := discoverThroughFile(c.t, c.opts, c.path, "warm test", step)
	return cat, cache.listed, cache.hits
}

// discoverThroughFile discovers opts through the cache file at path (build
// stamp stamp), as each new process does, fails when the catalog differs
// from a cold discovery's, saves the cache, and returns both.
func discoverThroughFile(t *testing.T, opts Options, path, stamp, step string) (*Catalog, *ParseCache) {
	t.Helper()
	cache, err := LoadParseCache(path, stamp)
	if err != nil {
		t.Fatalf("%s: load: %v", step, err)
	}
	warm := opts
	warm.Cache = cache
	got := Discover(t.Context(), warm)
	if d := cmp.Diff(Discover(t.Context(), opts), got); d != "" {
		t.Fatalf("%s: warm catalog differs from a cold one (-cold +warm):\n%s", step, d)
	}
	if err := cache.Save(path); err != nil {
		t.Fatalf("%s: save: %v", step, err)
	}
	return got, cache
}

// setMtime gives path the modification time of an hour ago, to the
// second: what a coarse clock gives two writes in the same tick.
func setMtime(t *testing.T, path string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// TestWarmStartInvalidation (issue 28): a warm start lists no directory
// whose stamp is unchanged, reuses every unchanged parse, and still sees
// each kind of change, including those that keep a file's size and mtime.
func TestWarmStartInvalidation(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "skills")
	files := map[string]string{}
	for i := range 12 {
		files[fmt.Sprintf("cat-%d/s%02d/SKILL.md", i/4, i)] = md(fmt.Sprintf("s%02d", i), "Body.")
	}
	files["targets/a/SKILL.md"] = md("ta", "A.")
	files["targets/b/SKILL.md"] = md("tb", "B.")
	writeFiles(t, root, files)
	discSymlink(t, filepath.Join(root, "targets", "a"), filepath.Join(root, "cat-2", "zz"))
	backdate(t, base)
	c := &warmChecker{t: t, opts: discOpts(Root{Path: root, Source: SourceExtra}), path: filepath.Join(t.TempDir(), "skills.bin")}
	c.check("cold")
	if _, listed, hits := c.check("warm"); listed != 0 || hits != 14 {
		t.Fatalf("warm start listed %d directories and reused %d parses, want 0 and 14", listed, hits)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	skill := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel), "SKILL.md") }
	write := func(path, content string) error {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, []byte(content), 0o644)
	}
	description := func(name, want string) func(*Catalog) string {
		return func(cat *Catalog) string {
			if s := cat.Lookup(name); s == nil || s.Description != want {
				return fmt.Sprintf("%s: %+v, want description %q", name, s, want)
			}
			return ""
		}
	}
	steps := []struct {
		name string
		do   func() error
		// check says what is wrong with the catalog after the change.
		check func(*Catalog) string
	}{
		{"add a skill to a category", func() error { return write(skill("cat-0/new"), md("new", "N.")) },
			description("new", "The new skill.")},
		{"remove a skill", func() error { return os.RemoveAll(filepath.Join(root, "cat-1", "s04")) },
			func(cat *Catalog) string {
				if cat.Lookup("s04") != nil {
					return "s04 still there"
				}
				return ""
			}},
		{"rename a skill folder", func() error {
			return os.Rename(filepath.Join(root, "cat-1", "s05"), filepath.Join(root, "cat-1", "s05-renamed"))
		}, func(cat *Catalog) string {
			if s := cat.Lookup("s05"); s == nil || !strings.HasSuffix(s.Dir, "s05-renamed") {
				return fmt.Sprintf("s05: %+v", s)
			}
			return ""
		}},
		{"edit SKILL.md in place, same size and mtime", func() error {
			p := skill("cat-0/s01")
			fi, err := os.Stat(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte(strings.Replace(md("s01", "Body."), "The s01", "Our s01", 1)), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}, description("s01", "Our s01 skill.")},
		{"edit SKILL.md twice in one clock tick", func() error {
			p := skill("cat-0/s02")
			if err := os.WriteFile(p, []byte(strings.Replace(md("s02", "Body."), "The s02", "One s02", 1)), 0o644); err != nil {
				return err
			}
			setMtime(t, p, time.Now().Truncate(time.Second))
			// A discovery now sees "One" and must not cache it: the
			// next write may keep the size and the mtime.
			if cat, _, _ := c.check("first write"); cat.Lookup("s02").Description != "One s02 skill." {
				return fmt.Errorf("first write not seen: %q", cat.Lookup("s02").Description)
			}
			fi, err := os.Stat(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte(strings.Replace(md("s02", "Body."), "The s02", "Two s02", 1)), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}, description("s02", "Two s02 skill.")},
		{"add a manifest.toml", func() error {
			return write(filepath.Join(root, "cat-2", "s08", "manifest.toml"), "[skill]\nversion = \"9.9.9\"\n")
		}, func(cat *Catalog) string {
			if s := cat.Lookup("s08"); s == nil || s.Version != "9.9.9" {
				return fmt.Sprintf("s08: %+v", s)
			}
			return ""
		}},
		{"retarget a symlinked skill folder", func() error {
			link := filepath.Join(root, "cat-2", "zz")
			if err := os.Remove(link); err != nil {
				return err
			}
			if err := os.Symlink(filepath.Join(root, "targets", "b"), link); err != nil {
				return err
			}
			// The folder holding the link keeps its mtime: only the link's
			// target says what changed.
			return os.Chtimes(filepath.Join(root, "cat-2"), old, old)
		}, func(cat *Catalog) string {
			if s := cat.Lookup("tb"); s == nil || s.Dir != filepath.Join(root, "cat-2", "zz") {
				return fmt.Sprintf("tb: %+v, want it reached through the link", s)
			}
			return ""
		}},
		{"replace the root by a copy with the same mtimes", func() error {
			moved := root + ".old"
			if err := os.Remove(filepath.Join(root, "cat-2", "zz")); err != nil { // copied again below
				return err
			}
			if err := os.Rename(root, moved); err != nil {
				return err
			}
			copyTree(t, moved, root)
			if err := os.Symlink(filepath.Join(root, "targets", "b"), filepath.Join(root, "cat-2", "zz")); err != nil {
				return err
			}
			if err := os.WriteFile(skill("cat-2/s09"), []byte(strings.Replace(md("s09", "Body."), "The s09", "New s09", 1)), 0o644); err != nil {
				return err
			}
			// Every folder and file of the copy gets its original's mtime.
			return filepath.WalkDir(moved, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.Type()&os.ModeSymlink != 0 {
					return err
				}
				fi, err := d.Info()
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(moved, p)
				return os.Chtimes(filepath.Join(root, rel), fi.ModTime(), fi.ModTime())
			})
		}, description("s09", "New s09 skill.")},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		cat, _, _ := c.check(st.name)
		if msg := st.check(cat); msg != "" {
			t.Errorf("%s: %s", st.name, msg)
		}
		// Once the change is older than the racy window, it is cached
		// and a warm start lists nothing again.
		for _, p := range []string{root, filepath.Join(root, "cat-0"), filepath.Join(root, "cat-1"), filepath.Join(root, "cat-2"), skill("cat-0/s02")} {
			setMtime(t, p, old)
		}
		backdateFiles(t, root, old)
		c.check(st.name + ", aged")
		if cat, listed, _ := c.check(st.name + ", warm"); listed != 0 {
			t.Errorf("%s: a warm start listed %d directories", st.name, listed)
		} else if msg := st.check(cat); msg != "" {
			t.Errorf("%s, warm: %s", st.name, msg)
		}
	}
}

// backdateFiles sets every file and folder under dir (links not
// followed) to at.
func backdateFiles(t *testing.T, dir string, at time.Time) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Type()&os.ModeSymlink != 0 {
			return err
		}
		return os.Chtimes(p, at, at)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWarmConcurrentDiscoveries: discoveries sharing one warm cache at once
// (a hot reload while /reload runs) each see what a cold one does; with
// -race, their pre-stats do not race.
func TestWarmConcurrentDiscoveries(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "skills")
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("cat-%d/s%02d/SKILL.md", i/10, i)] = md(fmt.Sprintf("s%02d", i), "Body.")
	}
	writeFiles(t, root, files)
	backdate(t, root)
	opts := discOpts(Root{Path: root, Source: SourceExtra})
	want := Discover(t.Context(), opts)
	opts.Cache = NewParseCache()
	Discover(t.Context(), opts)
	got := make([]*Catalog, 4)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = Discover(t.Context(), opts) })
	}
	wg.Wait()
	for i, cat := range got {
		if d := cmp.Diff(want, cat); d != "" {
			t.Errorf("discovery %d differs from a cold one:\n%s", i, d)
		}
	}
}

// TestActivateDiscoveredWithoutLoad: a discovered catalog keeps no bodies
// (Skill.Body), so activating one of its skills reads the body from disk
// also when ActiveConfig.Load is not set.
func TestActivateDiscoveredWithoutLoad(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "skills")
	writeFiles(t, root, map[string]string{"a/SKILL.md": md("a", "Do the A thing.")})
	cat := Discover(t.Context(), discOpts(Root{Path: root, Source: SourceExtra}))
	set := NewActiveSet(ActiveConfig{Enabled: true}, cat)
	if out := set.Activate(t.Context(), "a", "", true); out.IsError {
		t.Fatalf("activate: %s", out.Text)
	}
	if got := set.Render(); !strings.Contains(got, "Do the A thing.") {
		t.Errorf("active block without the body:\n%s", got)
	}
	if set.ChangedOnDisk("a") {
		t.Error("an unchanged skill counts as changed on disk")
	}
}
