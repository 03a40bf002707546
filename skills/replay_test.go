package skills

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// replayChecker discovers through the cache file as each new process does
// and compares the catalog with a cold discovery; it reports whether the
// discovery replayed the last walk.
type replayChecker struct {
	t    *testing.T
	opts Options
	path string
}

func (c *replayChecker) discover(step string) (replayed bool) {
	c.t.Helper()
	_, cache := discoverThroughFile(c.t, c.opts, c.path, "replay test", step)
	if cache.replays > 0 && cache.listed > 0 {
		c.t.Fatalf("%s: replayed and listed %d directories", step, cache.listed)
	}
	return cache.replays > 0
}

// replayTree writes a tree whose walk can be replayed: categories, a skill
// with a sub-folder holding a SKILL.md (passed over, with a diagnostic), a
// misnamed skill.md, a broken skill, a name clash between two roots, and a
// root that does not exist.
func replayTree(t *testing.T) (Options, string) {
	base := t.TempDir()
	first, second := filepath.Join(base, "first"), filepath.Join(base, "second")
	files := map[string]string{
		"cat-a/one/SKILL.md":               md("one", "One."),
		"cat-a/two/SKILL.md":               md("two", "Two."),
		"cat-a/two/scripts/run.sh":         "echo",
		"cat-a/two/examples/x/SKILL.md":    md("inner", "Not loaded."),
		"cat-b/deep/er/three/SKILL.md":     md("three", "Three."),
		"cat-b/misnamed/skill.md":          md("misnamed", "Case."),
		"broken/SKILL.md":                  "---\nname: [broken\n---\nx\n",
		"withmanifest/SKILL.md":            md("withmanifest", "M."),
		"withmanifest/manifest.toml":       "[skill]\nversion = \"1.0.0\"\n",
		"cat-c/a/b/c/d/toodeep/SKILL.md":   md("toodeep", "Deep."),
		"cat-c/.hidden/hid/SKILL.md":       md("hid", "Hidden."),
		"cat-c/node_modules/nm/SKILL.md":   md("nm", "NM."),
		"cat-c/requires/SKILL.md":          "---\nname: requires\ndescription: R.\nrequires: {bins: [nope]}\n---\nx\n",
		"cat-c/ordinary-folder/readme.txt": "no skill",
	}
	writeFiles(t, first, files)
	writeFiles(t, second, map[string]string{"one/SKILL.md": md("one", "Shadowed."), "four/SKILL.md": md("four", "Four.")})
	backdate(t, base)
	opts := discOpts(
		Root{Path: first, Source: SourceProject, Within: base},
		Root{Path: filepath.Join(base, "missing"), Source: SourceProject, Within: base},
		Root{Path: second + string(filepath.Separator), Source: SourceUser},
	)
	opts.Builtins = true
	return opts, base
}

// TestReplay (issue 28): a warm start over an unchanged tree replays the
// last walk, lists no directory, and gives the cold catalog; every kind of
// change is seen (the replay is refused and the tree walked), and the
// discovery after it replays again.
func TestReplay(t *testing.T) {
	t.Parallel()
	opts, base := replayTree(t)
	first := opts.Roots[0].Path
	c := &replayChecker{t: t, opts: opts, path: filepath.Join(t.TempDir(), "skills.bin")}
	if c.discover("cold") {
		t.Fatal("a missing cache file replayed")
	}
	if !c.discover("warm") {
		t.Fatal("an unchanged tree was not replayed")
	}
	write := func(rel, content string) func() error {
		return func() error {
			p := filepath.Join(first, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			return os.WriteFile(p, []byte(content), 0o644)
		}
	}
	steps := []struct {
		name string
		do   func() error
	}{
		{"add a skill", write("cat-a/new/SKILL.md", md("new", "New."))},
		{"edit a SKILL.md", write("cat-a/one/SKILL.md", md("one", "Edited, longer."))},
		{"add a manifest", write("cat-a/one/manifest.toml", "[skill]\nversion = \"2.0.0\"\n")},
		{"remove a manifest", func() error { return os.Remove(filepath.Join(first, "withmanifest", "manifest.toml")) }},
		{"add a SKILL.md below a skill", write("cat-a/two/scripts/SKILL.md", md("sub", "Sub."))},
		{"fix the misnamed skill", func() error {
			return os.Rename(filepath.Join(first, "cat-b", "misnamed", "skill.md"), filepath.Join(first, "cat-b", "misnamed", "SKILL.md"))
		}},
		{"add a folder to a category", func() error { return os.Mkdir(filepath.Join(first, "cat-c", "empty"), 0o755) }},
		{"remove a skill", func() error { return os.RemoveAll(filepath.Join(first, "cat-a", "two")) }},
		{"create the missing root", write("../missing/five/SKILL.md", md("five", "Five."))},
		{"remove the shadowing skill", func() error { return os.RemoveAll(filepath.Join(first, "cat-a", "one")) }},
		{"turn a skill folder into a link", func() error {
			dir := filepath.Join(first, "cat-b", "deep", "er", "three")
			if err := os.Rename(dir, filepath.Join(base, "three")); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(base, "three"), dir)
		}},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		backdate(t, base)
		if c.discover(st.name) {
			t.Fatalf("%s: replayed the walk from before the change", st.name)
		}
		want := !strings.Contains(st.name, "link")
		if got := c.discover(st.name + ", again"); got != want {
			t.Fatalf("%s, again: replayed %v, want %v", st.name, got, want)
		}
	}
}

// TestReplayChangeWithinTick: a skill file rewritten with the same size
// and modification time still shows (its inode or ctime changes), and a
// folder changed within the racy window is walked, not recorded.
func TestReplayChangeWithinTick(t *testing.T) {
	t.Parallel()
	opts, base := replayTree(t)
	c := &replayChecker{t: t, opts: opts, path: filepath.Join(t.TempDir(), "skills.bin")}
	c.discover("cold")
	p := filepath.Join(opts.Roots[0].Path, "cat-a", "one", "SKILL.md")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(md("one", "One."), "The one", "Our one", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if c.discover("same size and mtime") {
		t.Fatal("replayed over an edited file")
	}
	now := time.Now()
	dir := filepath.Join(opts.Roots[0].Path, "cat-a")
	if err := os.Chtimes(dir, now, now); err != nil {
		t.Fatal(err)
	}
	if c.discover("racy folder") || c.discover("racy folder, again") {
		t.Fatal("replayed a walk over a folder changed within the racy window")
	}
	backdate(t, base)
	c.discover("settled")
	if !c.discover("settled, again") {
		t.Fatal("not replayed once the folder settled")
	}
}

// TestReplayOpaque: walks that meet a symbolic link (a command's too) or
// a plugin are not recorded, and the options a walk depends on are part
// of the snapshot.
func TestReplayOpaque(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root string)
	}{
		{"link", func(t *testing.T, root string) { discSymlink(t, filepath.Join(root, "a"), filepath.Join(root, "b")) }},
		{"plugin", func(t *testing.T, root string) {
			writeFiles(t, root, map[string]string{
				"p/.claude-plugin/plugin.json": `{"name": "p"}`,
				"p/skills/ps/SKILL.md":         md("ps", "P."),
			})
		}},
		{"command link", func(t *testing.T, root string) {
			writeFiles(t, filepath.Join(root, "..", "commands"), map[string]string{"c.md": "---\ndescription: C.\n---\nDo.\n"})
			discSymlink(t, "c.md", filepath.Join(root, "..", "commands", "d.md"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			root := filepath.Join(base, "skills")
			writeFiles(t, root, map[string]string{"a/SKILL.md": md("a", "A.")})
			tc.setup(t, root)
			backdate(t, base)
			opts := discOpts(Root{Path: root, Source: SourceExtra}, Root{Path: filepath.Join(base, "commands"), Source: SourceExtra, Commands: true})
			c := &replayChecker{t: t, opts: opts, path: filepath.Join(t.TempDir(), "skills.bin")}
			c.discover("cold")
			if c.discover("warm") {
				t.Fatal("replayed an opaque walk")
			}
		})
	}
	t.Run("options", func(t *testing.T) {
		t.Parallel()
		opts, _ := replayTree(t)
		c := &replayChecker{t: t, opts: opts, path: filepath.Join(t.TempDir(), "skills.bin")}
		c.discover("cold")
		c.opts.UserLinkRoots = []string{t.TempDir()}
		if c.discover("other link roots") {
			t.Fatal("replayed a walk made with other link roots")
		}
		if !c.discover("same options again") {
			t.Fatal("not replayed")
		}
	})
}

// TestReplayReload: within one process, a second discovery through the
// same cache replays the first, and a change is seen.
func TestReplayReload(t *testing.T) {
	t.Parallel()
	opts, base := replayTree(t)
	cache := NewParseCache()
	opts.Cache = cache
	cold := opts
	cold.Cache = nil
	for i := range 3 {
		if i == 2 {
			writeFiles(t, opts.Roots[0].Path, map[string]string{"cat-a/six/SKILL.md": md("six", "Six.")})
			backdate(t, base)
		}
		got := Discover(t.Context(), opts)
		if d := cmp.Diff(Discover(t.Context(), cold), got); d != "" {
			t.Fatalf("discovery %d differs from a cold one:\n%s", i, d)
		}
		if want := min(i, 1); cache.replays != want {
			t.Fatalf("after discovery %d: %d replays, want %d", i, cache.replays, want)
		}
	}
	if cache.Len() == 0 {
		t.Fatal("cache emptied")
	}
}

// TestWalkFileSystemCalls: a walk is replayed only when it observed
// nothing but what the snapshot checks, so a walker method that calls the
// file system directly must mark the walk opaque (cacheRun.opaque) or go
// through the cache run (readDir, evalSymlinks). A new call fails here
// until it does one or the other.
func TestWalkFileSystemCalls(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	fsCalls := map[string]bool{
		"os.Stat": true, "os.Lstat": true, "os.ReadDir": true, "os.ReadFile": true, "os.Open": true, "os.OpenFile": true,
		"os.Readlink": true, "filepath.EvalSymlinks": true, "filepath.Glob": true, "filepath.WalkDir": true, "filepath.Walk": true,
	}
	checked := 0
	for _, pkg := range pkgs {
		for _, file := range pkg.Files {
			for _, decl := range file.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Recv == nil || fn.Body == nil {
					continue
				}
				recv := types.ExprString(fn.Recv.List[0].Type)
				if recv != "*walker" && recv != "*rootWalk" {
					continue
				}
				checked++
				opaque := false
				var direct []string
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					name := types.ExprString(call.Fun)
					if strings.HasSuffix(name, ".cache.opaque") {
						opaque = true
					}
					if fsCalls[name] || strings.HasPrefix(name, "confine.") {
						direct = append(direct, fset.Position(call.Pos()).String()+" "+name)
					}
					return true
				})
				if len(direct) > 0 && !opaque {
					t.Errorf("%s.%s calls the file system directly without marking the walk opaque: %v", recv, fn.Name.Name, direct)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d walker methods found", checked)
	}
}

// cancelInCount is a context whose Err reports cancellation only when
// asked from countSkillFiles: a cancellation that lands while the last
// root's passed-over folders are counted.
type cancelInCount struct{ context.Context }

func (c cancelInCount) Err() error {
	pc, _, _, _ := runtime.Caller(1)
	if strings.Contains(runtime.FuncForPC(pc).Name(), "countSkillFiles") {
		return context.Canceled
	}
	return nil
}

// TestReplayNotAfterInterruptedCount (security review): a discovery
// cancelled while it counts the SKILL.md files it passed over lacks their
// diagnostic, and is not recorded for the next start to replay.
func TestReplayNotAfterInterruptedCount(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	writeFiles(t, root, map[string]string{
		"two/SKILL.md":            md("two", "Two."),
		"two/examples/x/SKILL.md": md("inner", "Not loaded."),
	})
	backdate(t, base)
	opts := discOpts(Root{Path: root, Source: SourceProject, Within: base})
	warm := opts
	warm.Cache = NewParseCache()
	Discover(cancelInCount{context.Background()}, warm)
	if d := cmp.Diff(Discover(context.Background(), opts), Discover(context.Background(), warm)); d != "" {
		t.Fatalf("the discovery after the interrupted one differs from a cold one (-cold +warm):\n%s", d)
	}
}

// TestPreverify: a check made ahead by Preverify serves the discovery that
// passes it, once: that discovery replays without stat'ing again (a change
// made after the check is the next discovery's to see). A check that found
// a change makes it walk; a check is not used by a discovery after
// another one of the same cache (a reload), nor after another walk was
// recorded, nor with another cache.
func TestPreverify(t *testing.T) {
	t.Parallel()
	opts, base := replayTree(t)
	first := opts.Roots[0].Path
	path := filepath.Join(t.TempDir(), "cache.bin")
	record := func(step string) (Options, *ParseCache) {
		t.Helper()
		backdate(t, base)
		discoverThroughFile(t, opts, path, "preverify test", step)
		c, err := LoadParseCache(path, "preverify test")
		if err != nil {
			t.Fatal(err)
		}
		o := opts
		o.Cache = c
		return o, c
	}
	has := func(cat *Catalog, name string) bool {
		return slices.ContainsFunc(cat.Skills, func(s *Skill) bool { return s.Name == name })
	}
	remove := func(rel string) {
		t.Helper()
		if err := os.RemoveAll(filepath.Join(first, rel)); err != nil {
			t.Fatal(err)
		}
		backdate(t, base)
	}
	restore := func(rel, name string) {
		t.Helper()
		writeFiles(t, first, map[string]string{rel + "/SKILL.md": md(name, "Back.")})
	}

	// Checked, then changed: the discovery uses the check.
	o, c := record("checked, then changed")
	o.Check = c.Preverify()
	remove("cat-a/two")
	if got := Discover(t.Context(), o); c.replays != 1 || !has(got, "two") {
		t.Fatalf("after a check made before the change: %d replays, two listed: %v; want the check's catalog", c.replays, has(got, "two"))
	}
	// Used once: passed again, it is not used.
	if got := Discover(t.Context(), o); c.replays != 1 || has(got, "two") {
		t.Fatalf("the check passed again: %d replays, two listed: %v; want a walk without it", c.replays, has(got, "two"))
	}
	restore("cat-a/two", "two")

	// Changed, then checked: the discovery walks and sees the change.
	o, c = record("changed, then checked")
	remove("cat-b")
	o.Check = c.Preverify()
	if got := Discover(t.Context(), o); c.replays != 0 || has(got, "three") {
		t.Fatalf("after a check that found the change: %d replays, three listed: %v", c.replays, has(got, "three"))
	}
	restore("cat-b/three", "three")

	// Checked, then another discovery of the cache (the start's), a change,
	// and a reload that passes the check: it checks for itself.
	o, c = record("reload")
	check := c.Preverify()
	Discover(t.Context(), o)
	remove("withmanifest")
	o.Check = check
	if got := Discover(t.Context(), o); has(got, "withmanifest") {
		t.Fatal("a reload used the start's check: withmanifest listed")
	}
	restore("withmanifest", "withmanifest")

	// Checked, then another walk recorded: not used.
	o, c = record("another walk")
	check = c.Preverify()
	other := o
	other.Roots = other.Roots[:1] // other options: a walk
	Discover(t.Context(), other)
	remove("cat-a/one")
	o.Check = check
	if got := Discover(t.Context(), o); slices.ContainsFunc(got.Skills, func(s *Skill) bool { return s.Name == "one" && s.Root == first }) {
		t.Fatal("a check of the replaced walk was used: the first root's one listed")
	}
	restore("cat-a/one", "one")

	// Another cache's check: not used.
	o, c = record("another cache")
	_, c2 := record("another cache, second load")
	o.Check = c2.Preverify()
	remove("cat-a/two")
	if got := Discover(t.Context(), o); has(got, "two") {
		t.Fatal("another cache's check was used: two listed")
	}
	_ = c
}

// TestPreverifyConcurrent: a check made while a discovery of the same
// cache runs is safe (run with -race) and never serves a later one.
func TestPreverifyConcurrent(t *testing.T) {
	t.Parallel()
	opts, base := replayTree(t)
	path := filepath.Join(t.TempDir(), "cache.bin")
	backdate(t, base)
	discoverThroughFile(t, opts, path, "preverify test", "record")
	for range 20 {
		c, err := LoadParseCache(path, "preverify test")
		if err != nil {
			t.Fatal(err)
		}
		o := opts
		o.Cache = c
		var check *Check
		var wg sync.WaitGroup
		wg.Go(func() { check = c.Preverify() })
		Discover(t.Context(), o)
		wg.Wait()
		o.Check = check
		before := c.gen
		Discover(t.Context(), o)
		if check != nil && check.used && check.gen != before {
			t.Fatalf("a check of generation %d served the discovery after generation %d", check.gen, before)
		}
	}
}

// TestReplayCommands: a walk that found Claude Code command files is
// replayed, the files read afresh as a walk reads them, so an edit is seen
// by the replay itself; a command added, removed or moved changes its
// folder's listing, and the start walks.
func TestReplayCommands(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root, cmds := filepath.Join(base, "skills"), filepath.Join(base, "commands")
	writeFiles(t, root, map[string]string{"a/SKILL.md": md("a", "A.")})
	writeFiles(t, cmds, map[string]string{
		"deploy.md":        "---\ndescription: Deploy.\n---\nDeploy it.\n",
		"frontend/lint.md": "---\ndescription: Lint.\n---\nLint it.\n",
		"notes.md":         "No frontmatter: user-only.\n",
		"bad name!.md":     "---\ndescription: Bad.\n---\nx\n",
		".hidden/x.md":     "---\ndescription: Hidden.\n---\nx\n",
		"a.md":             "---\ndescription: Loses to the skill a.\n---\nx\n",
	})
	backdate(t, base)
	opts := discOpts(Root{Path: root, Source: SourceProject, Within: base}, Root{Path: cmds, Source: SourceProject, Within: base, Commands: true})
	c := &replayChecker{t: t, opts: opts, path: filepath.Join(t.TempDir(), "skills.bin")}
	c.discover("cold")
	if !c.discover("warm") {
		t.Fatal("a walk with command files was not replayed")
	}
	steps := []struct {
		name   string
		change func()
		walks  bool
	}{
		{"a command edited", func() {
			writeFiles(t, cmds, map[string]string{"deploy.md": "---\ndescription: Deploy, now with a check.\n---\nDeploy it.\n"})
		}, false},
		{"a command in a folder edited", func() {
			writeFiles(t, cmds, map[string]string{"frontend/lint.md": "---\ndescription: Lint, edited.\nallowed-tools: [shell]\n---\nLint.\n"})
		}, false},
		{"a command added", func() { writeFiles(t, cmds, map[string]string{"new.md": "---\ndescription: New.\n---\nx\n"}) }, true},
		{"a command removed", func() {
			if err := os.Remove(filepath.Join(cmds, "notes.md")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a command folder added", func() { writeFiles(t, cmds, map[string]string{"ops/restart.md": "---\ndescription: R.\n---\nx\n"}) }, true},
	}
	for _, st := range steps {
		st.change()
		if st.walks {
			backdate(t, base) // an edit in place leaves its folder as it was
		}
		if replayed := c.discover(st.name); replayed == st.walks {
			t.Fatalf("%s: replayed %v, want %v", st.name, replayed, !st.walks)
		}
		if !c.discover(st.name + ", again") {
			t.Fatalf("%s: not replayed the time after", st.name)
		}
	}
}

// TestOverlappingRunsKeepListings: discoveries sharing a cache may
// overlap. A discovery that began earlier and lists a folder after a later
// one did must not take the listing back (its generation, which the later
// discovery's recorded walk needs), nor replace or drop it; otherwise the
// later walk is recorded without that folder's stamp and no replay checks
// it again.
func TestOverlappingRunsKeepListings(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "cat")
	writeFiles(t, dir, map[string]string{"x/SKILL.md": md("x", "X.")})
	backdate(t, base)
	c := NewParseCache()
	older, later := c.begin(), c.begin()
	if _, err := later.readDir(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := older.readDir(dir); err != nil { // unchanged: a hit
		t.Fatal(err)
	}
	if got := c.dirs[dir].gen; got != later.gen {
		t.Fatalf("after the older run's hit the listing is of generation %d, want the later run's %d", got, later.gen)
	}
	// Changed since: the older run lists it again, and must not replace
	// the later run's listing either; within the racy window it must not
	// drop it.
	writeFiles(t, dir, map[string]string{"y/SKILL.md": md("y", "Y.")})
	for _, step := range []string{"within the racy window", "changed"} {
		if step == "changed" {
			backdate(t, base)
			older.start = time.Now()
		}
		if _, err := older.readDir(dir); err != nil {
			t.Fatal(err)
		}
		if e := c.dirs[dir]; e == nil || e.gen != later.gen {
			t.Fatalf("%s: the older run replaced or dropped the later run's listing (%+v)", step, e)
		}
	}
}

// TestReplayCommandFits: a snapshot's command is replayed only as a walk
// finds one, a `.md` file of a listed folder inside its bound; a damaged
// cache file that says otherwise is not replayed.
func TestReplayCommandFits(t *testing.T) {
	t.Parallel()
	good := cmdEvent{dir: "/r/commands", dirReal: "/r/commands", bound: "/r", path: "/r/commands/deploy.md", name: "deploy"}
	for _, tc := range []struct {
		name string
		edit func(*cmdEvent)
		want bool
	}{
		{"as recorded", func(*cmdEvent) {}, true},
		{"a folder not listed", func(c *cmdEvent) { c.dir, c.dirReal, c.path = "/r/other", "/r/other", "/r/other/deploy.md" }, false},
		{"a file outside its folder", func(c *cmdEvent) { c.path = "/etc/passwd.md" }, false},
		{"not a .md file", func(c *cmdEvent) { c.path = "/r/commands/deploy.txt" }, false},
		{"a folder outside its bound", func(c *cmdEvent) { c.bound = "/elsewhere" }, false},
	} {
		cmd := good
		tc.edit(&cmd)
		snap := &walkSnapshot{dirs: []loadedDir{{path: "/r/commands"}}, events: []snapEvent{{root: 0, cmd: &cmd}}}
		if got := snap.fits(1); got != tc.want {
			t.Errorf("%s: fits = %v, want %v", tc.name, got, tc.want)
		}
	}
}
