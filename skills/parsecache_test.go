package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// backdate sets the mtime of every file under dir an hour back, so the
// parse cache does not treat them as just modified (racy).
func backdate(t testing.TB, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestParseCacheMatchesCold runs a sequence of edits and checks after each
// that a discovery through a warm cache equals a cold one, diagnostics
// included, and that the cache was actually used.
func TestParseCacheMatchesCold(t *testing.T) {
	ws := t.TempDir()
	root := filepath.Join(ws, "skills")
	writeFiles(t, root, map[string]string{
		"alpha/SKILL.md":      "---\nname: alpha\ndescription: First.\nmetadata: {a: {b: [1, 2]}}\n---\nAlpha body.\n",
		"beta/SKILL.md":       "---\nname: beta\ndescription: Second.\nbogus-key: 1\n---\nBeta body.\n",
		"beta/manifest.toml":  "[skill]\nname = \"beta\"\nversion = \"1.0.0\"\n",
		"broken/SKILL.md":     "---\nname: [unclosed\n---\nbody",
		"shadow/SKILL.md":     "---\nname: alpha\ndescription: Shadowed.\n---\nx\n",
		"cat/gamma/SKILL.md":  "---\nname: gamma\ndescription: Third.\nrequires: {bins: [nope]}\n---\nG.\n",
		"manifest-only/x.txt": "",
	})
	backdate(t, root)
	opts := discOpts(Root{Path: root, Source: SourceExtra})
	opts.Builtins = true
	cache := NewParseCache()
	warm := opts
	warm.Cache = cache

	check := func(step string) {
		t.Helper()
		got := Discover(t.Context(), warm)
		want := Discover(t.Context(), opts)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%s: cached catalog differs from a cold one (-cold +cached):\n%s", step, d)
		}
	}
	check("first")
	if n := cache.Len(); n != 5 {
		t.Fatalf("cache holds %d directories, want 5", n)
	}
	check("second")
	if cache.hits != 5 {
		t.Fatalf("%d parses reused by the second discovery, want 5", cache.hits)
	}
	// Mutating a returned skill must not reach the cache.
	c := Discover(t.Context(), warm)
	c.Lookup("alpha").Description = "mutated"
	c.Lookup("alpha").Metadata["a"].(map[string]any)["b"] = "mutated"
	check("after mutating a returned skill")

	edit := func(rel, content string) {
		t.Helper()
		writeFiles(t, root, map[string]string{rel: content})
	}
	edit("alpha/SKILL.md", "---\nname: alpha\ndescription: First, edited.\n---\nAlpha body.\n") // racy: recent mtime
	check("edit alpha")
	backdate(t, root) // now a stale stamp with an old mtime: size differs
	check("edit alpha, backdated")
	edit("beta/manifest.toml", "[skill]\nname = \"beta\"\nversion = 1\n")
	backdate(t, root)
	check("break beta's manifest")
	edit("delta/SKILL.md", "---\nname: delta\ndescription: New.\n---\nD.\n")
	backdate(t, root)
	check("add delta")
	if err := os.RemoveAll(filepath.Join(root, "shadow")); err != nil {
		t.Fatal(err)
	}
	check("remove the shadowed skill")
	if err := os.Remove(filepath.Join(root, "beta", "manifest.toml")); err != nil {
		t.Fatal(err)
	}
	check("remove beta's manifest")
	if err := os.Rename(filepath.Join(root, "cat", "gamma"), filepath.Join(root, "gamma")); err != nil {
		t.Fatal(err)
	}
	check("move gamma")
	check("again")                // drops the entries the previous discovery did not use
	if n := cache.Len(); n != 5 { // alpha, beta, broken, delta, gamma (moved)
		t.Errorf("cache holds %d directories after the edits, want 5", n)
	}
}

// TestParseCacheSameSizeRewrite: a rewrite that keeps size and mtime is
// still noticed through the inode (editors save by rename).
func TestParseCacheSameSizeRewrite(t *testing.T) {
	root := filepath.Join(t.TempDir(), "skills")
	p := filepath.Join(root, "a", "SKILL.md")
	writeFiles(t, root, map[string]string{"a/SKILL.md": "---\nname: a\ndescription: One.\n---\nx\n"})
	backdate(t, root)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	opts := discOpts(Root{Path: root, Source: SourceExtra})
	opts.Cache = NewParseCache()
	Discover(t.Context(), opts)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte("---\nname: a\ndescription: Two.\n---\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	if got := Discover(t.Context(), opts).Lookup("a").Description; got != "Two." {
		t.Errorf("description %q after a same-size, same-mtime rename, want Two.", got)
	}
}

func TestDiffCatalogs(t *testing.T) {
	root := filepath.Join(t.TempDir(), "skills")
	writeFiles(t, root, map[string]string{
		"keep/SKILL.md":   "---\nname: keep\ndescription: Same.\n---\nx\n",
		"edit/SKILL.md":   "---\nname: edit\ndescription: Before.\n---\nx\n",
		"gone/SKILL.md":   "---\nname: gone\ndescription: Gone.\n---\nx\n",
		"meta/SKILL.md":   "---\nname: meta\ndescription: M.\nmetadata: {a: 1, b: {c: 2}}\n---\nx\n",
		"body/SKILL.md":   "---\nname: body\ndescription: B.\n---\nold body\n",
		"gated/SKILL.md":  "---\nname: gated\ndescription: G.\nrequires: {env: [TOKEN]}\n---\nx\n",
		"status/SKILL.md": "---\nname: status\ndescription: S.\n---\nx\n",
	})
	opts := discOpts(Root{Path: root, Source: SourceExtra})
	old := Discover(t.Context(), opts)
	old.Lookup("status").Status = StatusActive // set by callers; not a change
	if a, r, c := DiffCatalogs(old, Discover(t.Context(), opts)); a != nil || r != nil || c != nil {
		t.Fatalf("no change: +%v -%v ~%v", a, r, c)
	}
	writeFiles(t, root, map[string]string{
		"edit/SKILL.md": "---\nname: edit\ndescription: After.\n---\nx\n",
		"new/SKILL.md":  "---\nname: new\ndescription: New.\n---\nx\n",
		"meta/SKILL.md": "---\nname: meta\ndescription: M.\nmetadata: {b: {c: 3}, a: 1}\n---\nx\n",
		"body/SKILL.md": "---\nname: body\ndescription: B.\n---\nnew body\n",
	})
	if err := os.RemoveAll(filepath.Join(root, "gone")); err != nil {
		t.Fatal(err)
	}
	opts.LookupEnv = func(k string) (string, bool) { return "x", k == "TOKEN" }
	added, removed, changed := DiffCatalogs(old, Discover(t.Context(), opts))
	got := fmt.Sprint(added, removed, changed)
	if want := "[new] [gone] [body edit gated meta]"; got != want {
		t.Errorf("diff = %s, want %s", got, want)
	}
	if a, r, c := DiffCatalogs(nil, old); len(a) != 7 || r != nil || c != nil {
		t.Errorf("from nil: +%v -%v ~%v", a, r, c)
	}
}

// BenchmarkReload1000 is the hot-reload path with 1,000 skills: one
// SKILL.md rewritten, then Discover through the warm cache and RenderIndex
// (target ≤ 20 ms from event to new index).
func BenchmarkReload1000(b *testing.B) {
	roots := benchTree(b, 1, 1000)
	backdate(b, roots[0].Path)
	opts := discOpts(roots...)
	opts.Builtins = true
	opts.Cache = NewParseCache()
	first := Discover(b.Context(), opts)
	target := filepath.Join(roots[0].Path, "category-000", "skill-00-00000", "SKILL.md")
	orig, err := os.ReadFile(target)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	var last *Catalog
	reportCPU(b, func() {
		i++
		if err := os.WriteFile(target, fmt.Appendf(append([]byte(nil), orig...), "\nEdit %d.\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
		last = Discover(b.Context(), opts)
		if idx := RenderIndex(last.Listed(), 1<<20); len(last.Skills) != 1000+len(builtinNames()) || idx.Text == "" {
			b.Fatalf("%d skills", len(last.Skills))
		}
	})
	if _, _, changed := DiffCatalogs(first, last); len(changed) != 1 || opts.Cache.hits < 999 {
		b.Fatalf("changed %v, %d parses reused", changed, opts.Cache.hits)
	}
}

// BenchmarkDiffCatalogs1000 compares two 1,000-skill catalogs (the
// `↻ skills reloaded` line after a reload).
func BenchmarkDiffCatalogs1000(b *testing.B) {
	opts := discOpts(benchTree(b, 1, 1000)...)
	x, y := Discover(b.Context(), opts), Discover(b.Context(), opts)
	b.ReportAllocs()
	for b.Loop() {
		if a, r, c := DiffCatalogs(x, y); a != nil || r != nil || c != nil {
			b.Fatal("diff")
		}
	}
}

// TestParseCacheReadDir: a directory listing is reused while the
// directory's stamp is unchanged and read again when an entry is added.
func TestParseCacheReadDir(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a/SKILL.md": "x"})
	backdate(t, dir)
	c := NewParseCache()
	names := func() []string {
		t.Helper()
		entries, err := c.begin().readDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	names()
	if len(c.dirs) != 1 {
		t.Fatalf("%d listings cached, want 1", len(c.dirs))
	}
	c.dirs[dir].entries = nil // a hit now returns nothing: proves reuse
	if got := names(); len(got) != 0 {
		t.Fatalf("listing %v, want the cached (empty) one", got)
	}
	writeFiles(t, dir, map[string]string{"b/SKILL.md": "y"}) // the directory's mtime moves
	if got := fmt.Sprint(names()); got != "[a b]" {
		t.Errorf("after adding b: %s", got)
	}
	if _, ok := c.dirs[dir]; ok {
		t.Error("a just-modified directory was cached")
	}
	if _, err := c.begin().readDir(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("missing directory: %v", err)
	}
}
