package skills

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDiscoverNoSilentSkip checks, over generated trees, that no SKILL.md
// goes unloaded without a diagnostic saying why: every file named SKILL.md
// below the root (links not followed, `.git` aside) is a loaded skill, or is
// named by a diagnostic about its folder or itself, or is counted by exactly
// one "N SKILL.md files ... not loaded ...: reason" diagnostic of a folder
// above it, whose N is exact. Every tenth tree is discovered with tiny
// limits, where the cap's diagnostic may stand for what is left.
func TestDiscoverNoSilentSkip(t *testing.T) {
	t.Parallel()
	for seed := range uint64(50) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			t.Parallel()
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			g := &treeGen{t: t, r: rand.New(rand.NewPCG(seed, 20)), base: base}
			root := filepath.Join(base, "root")
			g.folder(root, 0, g.r.IntN(4) == 0)
			g.links(root)
			lim := walkLimits{maxDirs: defaultMaxDirs, scanDirs: defaultMaxScanDirs}
			if seed%10 == 9 {
				lim = walkLimits{maxDirs: 5 + g.r.IntN(40), scanDirs: 1 + g.r.IntN(10)}
			}
			c := discover(t.Context(), discOpts(Root{Path: root, Source: SourceExtra}), lim)
			t.Logf("%d folders, %d skills, %d diagnostics", len(g.dirs), len(c.Skills), len(c.Diagnostics))
			checkNoSilentSkip(t, root, c)
		})
	}
}

// A treeGen writes a random skill tree: category folders, skills (valid,
// broken, duplicate names, gated, skills inside skills), plugin-looking
// folders with and without plugin.json, marketplace.json, skills/,
// commands/ and agents/, hidden folders, node_modules, .git, skill.md in
// other cases, folders deeper than the walk goes, and links in and out.
type treeGen struct {
	t    *testing.T
	r    *rand.Rand
	base string
	dirs []string
	n    int
}

var genFolderNames = []string{"cat", "tools", "skills", "commands", "agents", "node_modules", ".hidden", ".git", ".claude-plugin", "docs", "a b", "scripts", "refs", "x"}

var genSkillNames = []string{"review", "lint", "deploy", "test", "docs", "fmt"}

func (g *treeGen) write(path, content string) {
	g.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		g.t.Fatal(err)
	}
}

func (g *treeGen) mkdir(path string) {
	g.t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		g.t.Fatal(err)
	}
	g.dirs = append(g.dirs, path)
}

// folder makes dir at depth: a skill when skill is set (or at random), else
// a category folder or a plugin-looking one, with sub-folders.
func (g *treeGen) folder(dir string, depth int, skill bool) {
	g.mkdir(dir)
	if !skill && g.r.IntN(3) == 0 {
		skill = true
	}
	if skill {
		g.skillFiles(dir)
	}
	if g.r.IntN(5) == 0 {
		g.pluginLooking(dir, depth)
	}
	if g.r.IntN(8) == 0 {
		g.write(filepath.Join(dir, []string{"skill.md", "Skill.md", "SKILL.MD"}[g.r.IntN(3)]), md("misnamed", "b"))
	}
	if g.r.IntN(4) == 0 {
		g.write(filepath.Join(dir, "README.md"), "not a skill")
	}
	if depth >= 7 || len(g.dirs) > 150 {
		return
	}
	children := g.r.IntN(4)
	if depth < 2 {
		children += 2
	}
	for i := range children {
		g.n++
		name := genFolderNames[g.r.IntN(len(genFolderNames))]
		if g.r.IntN(2) == 0 {
			name = fmt.Sprintf("%s%d", name, i)
		}
		g.folder(filepath.Join(dir, name), depth+1, g.r.IntN(3) == 0)
	}
}

// skillFiles writes a SKILL.md (or manifest.toml) of some kind into dir.
func (g *treeGen) skillFiles(dir string) {
	g.n++
	name := genSkillNames[g.r.IntN(len(genSkillNames))]
	if g.r.IntN(2) == 0 {
		name = fmt.Sprintf("skill-%d", g.n)
	}
	p := filepath.Join(dir, "SKILL.md")
	switch g.r.IntN(10) {
	case 0:
		g.write(p, "---\nname: [\n---\nbroken frontmatter\n")
	case 1:
		g.write(p, "---\nname: bin\n---\n\x00\x01")
	case 2:
		g.write(p, md("bad name!", "an invalid name"))
	case 3:
		g.write(p, "---\nname: "+name+"\ndescription: gated\nos: [windows]\n---\nb\n")
	case 4:
		g.write(filepath.Join(dir, "manifest.toml"), fmt.Sprintf("[skill]\nname = %q\n", name))
	case 5:
		g.write(filepath.Join(g.base, "outside", fmt.Sprint(g.n), "secret.md"), md(name, "outside"))
		if err := os.Symlink(filepath.Join(g.base, "outside", fmt.Sprint(g.n), "secret.md"), p); err != nil {
			g.t.Skipf("symlinks not supported: %v", err)
		}
	default:
		g.write(p, md(name, "b"))
		if g.r.IntN(3) == 0 {
			g.write(filepath.Join(dir, "manifest.toml"), "[skill]\nversion = \"1.0\"\n")
		}
	}
}

// pluginLooking adds some of .claude-plugin/{plugin.json,marketplace.json}
// and skills/, commands/, agents/ to dir.
func (g *treeGen) pluginLooking(dir string, depth int) {
	meta := filepath.Join(dir, ".claude-plugin")
	g.mkdir(meta)
	switch g.r.IntN(5) {
	case 0:
		g.write(filepath.Join(meta, "plugin.json"), fmt.Sprintf(`{"name":"plug%d"}`, g.n))
	case 1:
		g.write(filepath.Join(meta, "plugin.json"), `{"description":"no name"}`)
	case 2:
		g.write(filepath.Join(meta, "plugin.json"), "{oops")
	case 3:
		g.write(filepath.Join(meta, "marketplace.json"), `{"plugins":[]}`)
	}
	if g.r.IntN(2) == 0 {
		g.write(filepath.Join(meta, "marketplace.json"), `{"plugins":[]}`)
	}
	if depth >= 6 {
		return
	}
	if g.r.IntN(2) == 0 {
		g.folder(filepath.Join(dir, "skills"), depth+1, false)
	}
	if g.r.IntN(3) == 0 {
		cmds := filepath.Join(dir, "commands")
		g.write(filepath.Join(cmds, "do.md"), "---\ndescription: do\n---\ndo\n")
		g.write(filepath.Join(cmds, "a", "b", "c", "d", "deep.md"), "deep\n")
		g.write(filepath.Join(cmds, "a", "b", "c", "d", "SKILL.md"), md("in-commands", "b"))
		g.write(filepath.Join(cmds, ".hidden", "SKILL.md"), md("hidden-command", "b"))
	}
	if g.r.IntN(3) == 0 {
		g.write(filepath.Join(dir, "agents", "reviewer.md"), "an agent")
		if g.r.IntN(2) == 0 {
			g.write(filepath.Join(dir, "agents", "inner", "SKILL.md"), md("in-agents", "b"))
		}
	}
}

// links adds links among the folders made: to another folder inside the
// root, out of it, to nowhere, and back up (a loop).
func (g *treeGen) links(root string) {
	g.write(filepath.Join(g.base, "outside", "evil", "SKILL.md"), md("evil", "outside"))
	dirs := slices.Clone(g.dirs)
	for i := range 1 + g.r.IntN(6) {
		at := dirs[g.r.IntN(len(dirs))]
		var target string
		switch g.r.IntN(4) {
		case 0:
			target = dirs[g.r.IntN(len(dirs))]
		case 1:
			target = filepath.Join(g.base, "outside", "evil")
		case 2:
			target = filepath.Join(g.base, "nowhere")
		default:
			target = root
		}
		if err := os.Symlink(target, filepath.Join(at, fmt.Sprintf("link%d", i))); err != nil {
			g.t.Skipf("symlinks not supported: %v", err)
		}
	}
}

var notLoadedRE = regexp.MustCompile(`^(\d+) SKILL\.md files? .* not loaded \((?:first: )?[^)]*\): \S.*$`)

// checkNoSilentSkip asserts the invariant of TestDiscoverNoSilentSkip for
// the skills under root.
func checkNoSilentSkip(t *testing.T, root string, c *Catalog) {
	t.Helper()
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return p
	}
	loaded := map[string]bool{}
	for _, s := range c.Skills {
		if s.Command {
			loaded[real(s.SkillPath)] = true
		} else if s.RealDir != "" {
			loaded[filepath.Join(s.RealDir, skillFileName)] = true
		}
	}
	named := map[string]bool{}
	counted := map[string]int{} // real path of the folder → N
	capped := false
	for _, d := range c.Diagnostics {
		if m := notLoadedRE.FindStringSubmatch(d.Message); m != nil {
			n, _ := strconv.Atoi(m[1])
			counted[real(d.Path)] += n
			continue
		}
		if d.Path == root && (strings.HasPrefix(d.Message, "stopped after") || strings.HasPrefix(d.Message, "stopped counting")) {
			capped = true
		}
		// A diagnostic about a link names the link, not its target.
		named[filepath.Join(real(filepath.Dir(d.Path)), filepath.Base(d.Path))] = true
		named[real(d.Path)] = true
	}
	rootReal := real(root)
	attributed := map[string]int{}
	var silent []string
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && e.Name() == ".git" {
			return filepath.SkipDir
		}
		if e.IsDir() || e.Name() != skillFileName {
			return nil
		}
		dir := real(filepath.Dir(p))
		file := filepath.Join(dir, skillFileName)
		if loaded[file] || named[file] || named[dir] {
			return nil
		}
		for a := dir; ; a = filepath.Dir(a) {
			if _, ok := counted[a]; ok {
				attributed[a]++
				return nil
			}
			if a == rootReal || a == filepath.Dir(a) {
				break
			}
		}
		silent = append(silent, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dump := func() string {
		var b strings.Builder
		for _, s := range c.Skills {
			fmt.Fprintf(&b, "  skill %s @%s\n", s.Name, s.Dir)
		}
		for _, d := range c.Diagnostics {
			fmt.Fprintf(&b, "  %s %s: %s\n", d.Severity, d.Path, d.Message)
		}
		return b.String()
	}
	if len(silent) > 0 && !capped {
		t.Errorf("SKILL.md files neither loaded nor named by a diagnostic:\n  %s\ncatalog:\n%s", strings.Join(silent, "\n  "), dump())
	}
	for dir, n := range counted {
		if attributed[dir] != n && !capped {
			t.Errorf("%s: a diagnostic counts %d SKILL.md files, %d are not loaded there\ncatalog:\n%s", dir, n, attributed[dir], dump())
		}
	}
}
