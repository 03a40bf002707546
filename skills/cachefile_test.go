package skills

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/internal/atomicfile"
)

// backdated is an old modification time set by tests.
var backdated = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// fillValue sets every field reachable from v to a non-zero value derived
// from seed, so that a round trip shows any field the codec forgets.
func fillValue(t *testing.T, v reflect.Value, seed string) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString(seed)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(len(seed)) + 7)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Struct {
			// Skill.Hooks: every field of every level, twice.
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			for i := range 2 {
				fillValue(t, v.Index(i), fmt.Sprintf("%s[%d]", seed, i))
			}
			return
		}
		if v.Type().Elem().Kind() != reflect.String {
			t.Fatalf("fillValue: slice of %s", v.Type().Elem())
		}
		v.Set(reflect.ValueOf([]string{seed + "-1", "", seed + "-3"}))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillValue(t, v.Elem(), seed)
	case reflect.Struct:
		for i := range v.NumField() {
			fillValue(t, v.Field(i), seed+"."+v.Type().Field(i).Name)
		}
	case reflect.Map:
		v.Set(reflect.ValueOf(map[string]any{
			"s": seed, "n": nil, "t": true, "f": false, "i": -42, "x": 1.5,
			"m": map[string]any{"deep": []any{1, "two", nil, map[string]any{}}}, "l": []any{},
		}))
	default:
		t.Fatalf("fillValue: kind %s", v.Kind())
	}
}

// TestCacheCodecCoversSkill: every field of Skill survives the cache file,
// and a field added to Skill without the codec knowing fails here.
func TestCacheCodecCoversSkill(t *testing.T) {
	t.Parallel()
	if n := reflect.TypeFor[Skill]().NumField(); n != skillFieldCount {
		t.Fatalf("Skill has %d fields, the cache codec writes %d: update cachecodec.go (and cacheFormat)", n, skillFieldCount)
	}
	var full Skill
	fillValue(t, reflect.ValueOf(&full).Elem(), "v")
	for _, s := range []*Skill{&full, {}, {Tags: []string{}, Metadata: map[string]any{}}} {
		w := &cacheWriter{}
		if err := w.skill(s); err != nil {
			t.Fatal(err)
		}
		r := &cacheReader{s: string(w.b)}
		got := r.skill()
		if r.err != nil || r.pos != len(r.s) {
			t.Fatalf("decode: %v at %d of %d", r.err, r.pos, len(r.s))
		}
		if d := cmp.Diff(s, got); d != "" {
			t.Errorf("round trip (-want +got):\n%s", d)
		}
	}
}

// copyTree copies the regular files and directories under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fileCacheChecker discovers a tree cold and through a cache loaded from
// a file, as a new process would, and saves the cache for the next step.
type fileCacheChecker struct {
	t     *testing.T
	opts  Options
	path  string
	stamp string
}

// check fails when the catalogs differ and returns how many parses the
// file saved.
func (c *fileCacheChecker) check(step string) int {
	c.t.Helper()
	cache, err := LoadParseCache(c.path, c.stamp)
	if err != nil {
		c.t.Fatalf("%s: load: %v", step, err)
	}
	warm := c.opts
	warm.Cache = cache
	got := Discover(c.t.Context(), warm)
	want := Discover(c.t.Context(), c.opts)
	if d := cmp.Diff(want, got); d != "" {
		c.t.Fatalf("%s: catalog through the cache file differs from a cold one (-cold +cached):\n%s", step, d)
	}
	if err := cache.Save(c.path); err != nil {
		c.t.Fatalf("%s: save: %v", step, err)
	}
	return cache.hits
}

// TestCacheFileMatchesCold: over the dialect corpus, discovery through a
// cache file equals a cold discovery after every kind of change, and a
// warm start parses nothing.
func TestCacheFileMatchesCold(t *testing.T) {
	t.Parallel()
	ws := filepath.Join(t.TempDir(), "ws")
	copyTree(t, filepath.Join("testdata", "dialects", "ws"), ws)
	backdate(t, ws)
	c := &fileCacheChecker{t: t, opts: dialectOptions(ws), path: filepath.Join(t.TempDir(), "cache", "skills.bin"), stamp: "test 1"}
	if hits := c.check("cold"); hits != 0 {
		t.Fatalf("%d hits from a missing file", hits)
	}
	n := len(Discover(t.Context(), dialectOptions(ws)).Skills)
	if hits := c.check("warm"); hits < n-len(builtinNames())-5 {
		t.Fatalf("warm start reused %d parses for %d skills", hits, n)
	}
	skillsDir := filepath.Join(ws, ".clawseed", "skills")
	steps := []struct {
		name string
		do   func() error
	}{
		{"edit a description", func() error {
			return os.WriteFile(filepath.Join(skillsDir, "cs-triggers", "SKILL.md"), []byte("---\nname: cs-triggers\ndescription: Edited.\n---\nBody.\n"), 0o644)
		}},
		{"add a manifest", func() error {
			return os.WriteFile(filepath.Join(skillsDir, "cs-shell", "manifest.toml"), []byte("[skill]\nversion = \"9.9.9\"\n"), 0o644)
		}},
		{"rename a skill directory", func() error {
			return os.Rename(filepath.Join(skillsDir, "cs-shell-vector"), filepath.Join(skillsDir, "renamed-vector"))
		}},
		{"delete a skill", func() error { return os.RemoveAll(filepath.Join(skillsDir, "cs-manifest-tools")) }},
		{"symlink a skill in", func() error {
			return os.Symlink(filepath.Join(skillsDir, "cs-triggers"), filepath.Join(skillsDir, "zz-link"))
		}},
		{"retarget the symlink", func() error {
			link := filepath.Join(skillsDir, "zz-link")
			if err := os.Remove(link); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(skillsDir, "cs-shell"), link)
		}},
		{"make SKILL.md a symlink", func() error {
			p := filepath.Join(skillsDir, "cs-manifest-merge", "SKILL.md")
			if err := os.Rename(p, p+".real"); err != nil {
				return err
			}
			return os.Symlink("SKILL.md.real", p)
		}},
		{"make SKILL.md unreadable", func() error {
			return os.Chmod(filepath.Join(skillsDir, "cs-triggers", "SKILL.md"), 0)
		}},
		{"make it readable again", func() error {
			return os.Chmod(filepath.Join(skillsDir, "cs-triggers", "SKILL.md"), 0o644)
		}},
		{"make a skill directory unreadable", func() error { return os.Chmod(filepath.Join(skillsDir, "cs-shell"), 0) }},
		{"and readable again", func() error { return os.Chmod(filepath.Join(skillsDir, "cs-shell"), 0o755) }},
		{"replace a skill file by a directory", func() error {
			p := filepath.Join(ws, ".claude", "skills", "cc-model", "SKILL.md")
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Mkdir(p, 0o755)
		}},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		c.check(st.name + " (racy)")
		backdate(t, ws)
		c.check(st.name)
		c.check(st.name + ", again")
	}
}

// TestCacheFileRandomTrees: random trees, changed at random between
// discoveries, give the same catalog through the cache file as cold.
func TestCacheFileRandomTrees(t *testing.T) {
	t.Parallel()
	fragments := []string{
		"description: A skill.\n", "description: \"Quoted: yes\"\n", "version: 1.2.3\n",
		"triggers: [go test, review]\n", "requires: {bins: [git]}\n", "requires: {bins: [nope]}\n",
		"os: [windows]\n", "metadata: {openclaw: {always: true}, n: 3, f: 1.5, x: null}\n",
		"allowed-tools: Read Grep\n", "disable-model-invocation: true\n", "bogus: 1\n",
		"name: [broken\n", "context: fork\n", "paths: ['*.go']\n", "arguments: [a, b]\n",
	}
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 99))
			ws := t.TempDir()
			root := filepath.Join(ws, ".clawseed", "skills")
			write := func() {
				name := fmt.Sprintf("c%d/s%02d", rng.IntN(3), rng.IntN(30))
				var fm strings.Builder
				for range rng.IntN(4) {
					fm.WriteString(fragments[rng.IntN(len(fragments))])
				}
				files := map[string]string{name + "/SKILL.md": "---\n" + fm.String() + "---\nBody " + fmt.Sprint(rng.IntN(5)) + "\n"}
				if rng.IntN(4) == 0 {
					files[name+"/manifest.toml"] = fmt.Sprintf("[skill]\nversion = \"%d.0.0\"\n", rng.IntN(3))
				}
				writeFiles(t, root, files)
			}
			for range 40 {
				write()
			}
			backdate(t, ws)
			c := &fileCacheChecker{t: t, opts: dialectOptions(ws), path: filepath.Join(t.TempDir(), "skills.bin"), stamp: "t"}
			c.opts.Workspace = ws
			c.check("initial")
			for step := range 12 {
				for range 1 + rng.IntN(5) {
					switch rng.IntN(3) {
					case 0:
						write()
					case 1:
						os.RemoveAll(filepath.Join(root, fmt.Sprintf("c%d/s%02d", rng.IntN(3), rng.IntN(30))))
					case 2:
						from := filepath.Join(root, fmt.Sprintf("c%d/s%02d", rng.IntN(3), rng.IntN(30)))
						os.Rename(from, filepath.Join(root, fmt.Sprintf("c%d/s%02d", rng.IntN(3), rng.IntN(30))))
					}
				}
				if rng.IntN(2) == 0 {
					backdate(t, ws)
				}
				c.check(fmt.Sprintf("step %d", step))
			}
		})
	}
}

// TestCacheFileUnusable: a damaged, foreign or unreadable cache file is
// ignored with a reason, discovery is unchanged, and the next save replaces
// it with a good one.
func TestCacheFileUnusable(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "skills")
	writeFiles(t, root, map[string]string{
		"a/SKILL.md": "---\nname: a\ndescription: One.\nmetadata: {k: [1, 2.5, true, null]}\n---\nx\n",
		"b/SKILL.md": "---\nname: b\ndescription: Two.\n---\ny\n",
	})
	backdate(t, root)
	opts := discOpts(Root{Path: root, Source: SourceExtra})
	want := Discover(t.Context(), opts)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bin")
	c, err := LoadParseCache(good, "v1")
	if err != nil {
		t.Fatal(err)
	}
	opts.Cache = c
	Discover(t.Context(), opts)
	if err := c.Save(good); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 0x40
	cases := map[string]struct {
		data  []byte
		stamp string
	}{
		"empty":         {nil, "v1"},
		"truncated":     {data[:len(data)-9], "v1"},
		"flipped bit":   {flipped, "v1"},
		"garbage":       {[]byte(strings.Repeat("\xff", 300)), "v1"},
		"another build": {data, "v2"},
	}
	for name, tc := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".bin")
		if err := os.WriteFile(path, tc.data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := LoadParseCache(path, tc.stamp)
		if err == nil {
			t.Errorf("%s: loaded without an error", name)
		}
		opts.Cache = c
		if d := cmp.Diff(want, Discover(t.Context(), opts)); d != "" {
			t.Errorf("%s: catalog differs (-cold +cached):\n%s", name, d)
		}
		if c.hits != 0 {
			t.Errorf("%s: %d parses reused from an unusable file", name, c.hits)
		}
		if err := c.Save(path); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadParseCache(path, tc.stamp); err != nil {
			t.Errorf("%s: after a save: %v", name, err)
		}
	}
	if os.Getuid() != 0 { // root reads anything
		path := filepath.Join(dir, "unreadable.bin")
		if err := os.WriteFile(path, data, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadParseCache(path, "v1"); err == nil {
			t.Error("unreadable file: no error")
		}
	}
}

// TestCacheFileConcurrentSaves: processes saving while others load never
// expose a torn file (saves are renames).
func TestCacheFileConcurrentSaves(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "skills")
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("s%02d/SKILL.md", i)] = fmt.Sprintf("---\ndescription: Skill %d.\n---\n%s\n", i, strings.Repeat("body ", 200))
	}
	writeFiles(t, root, files)
	backdate(t, root)
	opts := discOpts(Root{Path: root, Source: SourceExtra})
	path := filepath.Join(t.TempDir(), "cache", "skills.bin")
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 4 {
		wg.Go(func() {
			for range 5 {
				c, err := LoadParseCache(path, "v")
				if err != nil {
					errs <- err
					return
				}
				o := opts
				o.Cache = c
				if n := len(Discover(t.Context(), o).Skills); n != 60 {
					errs <- fmt.Errorf("worker %d: %d skills", i, n)
				}
				c.dirty = true // force a write every time
				if err := c.Save(path); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if tmps, _ := filepath.Glob(atomicfile.TempPattern(path)); len(tmps) > 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// TestCacheFileSkipsUnchangedSave: a warm start that changed nothing does
// not rewrite the file.
func TestCacheFileSkipsUnchangedSave(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "skills")
	writeFiles(t, root, map[string]string{"a/SKILL.md": "---\ndescription: A.\n---\nx\n"})
	backdate(t, root)
	opts := discOpts(Root{Path: root, Source: SourceExtra})
	path := filepath.Join(t.TempDir(), "skills.bin")
	for i := range 2 {
		c, _ := LoadParseCache(path, "v")
		opts.Cache = c
		Discover(t.Context(), opts)
		if err := c.Save(path); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if err := os.Chtimes(path, backdated, backdated); err != nil {
				t.Fatal(err)
			}
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.ModTime().Equal(backdated) {
		t.Error("an unchanged cache was rewritten")
	}
}

// seedCacheFile returns the cache file of a discovery of skills (a
// path → content map under one root) and of a commands folder whose
// command events the snapshot records: a fuzz seed.
func seedCacheFile(f *testing.F, skills map[string]string) []byte {
	root := filepath.Join(f.TempDir(), "skills")
	writeFiles(f, root, skills)
	cmds := filepath.Join(filepath.Dir(root), "commands") // replayed command events
	writeFiles(f, cmds, map[string]string{"deploy.md": "---\ndescription: D.\n---\nx\n", "ops/restart.md": "R.\n"})
	backdate(f, filepath.Dir(root))
	c := NewParseCache()
	c.stamp = "fuzz"
	opts := discOpts(Root{Path: root, Source: SourceExtra}, Root{Path: cmds, Source: SourceExtra, Commands: true})
	opts.Cache = c
	Discover(f.Context(), opts)
	data, _ := c.encode()
	if c.snap == nil {
		f.Fatal("the seed has no snapshot")
	}
	return data
}

// FuzzCacheDecode: no input makes the decoder panic or loop.
func FuzzCacheDecode(f *testing.F) {
	data := seedCacheFile(f, map[string]string{
		"a/SKILL.md":      "---\nname: a\ndescription: One.\nmetadata: {k: [1, 2.5, true, null, {x: y}]}\nrequires: {bins: [git]}\n---\nx\n",
		"b/SKILL.md":      "---\nname: [broken\n---\ny\n",
		"c/manifest.toml": "[skill]\nname = \"c\"\n",
		"c/SKILL.md":      "---\nshell: echo hi\n---\n",
	})
	f.Add(data)
	f.Add([]byte(cacheMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &ParseCache{stamp: "fuzz"}
		_ = c.decode(data)
		// A decoder that skips the checksum reaches the structure too.
		r := &cacheReader{s: string(data)}
		r.skill()
		r.value(0)
		r.dirEntries("/d")
		r.diags()
		r = &cacheReader{s: string(data)}
		r.snapshot(&loadedCache{eoff: make([]uint32, 3)})
	})
}
