package skills

import (
	"context"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/internal/confine"
)

// Walk limits of SPEC §4.2. A root is depth 0, so `root/a/b/c/name/SKILL.md`
// (depth 4) is the deepest skill found.
const (
	maxWalkDepth   = 4
	defaultMaxDirs = 50000
)

// walkLimits lets tests lower the directory cap without a package variable.
type walkLimits struct {
	maxDirs  int
	scanDirs int // see reportPassedOver
}

// Discover searches opts.Roots in order, then the built-in skills, and
// returns the effective catalog (SPEC §4.2, §4.3, §4.12 except `paths`).
//
// Within a root, directories are visited depth-first in sorted name order
// (that is, by path compared component by component), so the result does not
// depend on the filesystem. A directory holding SKILL.md or manifest.toml is
// a skill and is not descended into; a root that itself holds SKILL.md is a
// single skill. A Claude Code plugin (see plugins.go) is walked as one, also
// when it is a skill too. Hidden directories and node_modules are skipped.
// Symbolic links to directories are followed when their target stays inside
// the root, or for a user root inside [Options.UserLinkRoots] (otherwise
// they are refused with an error diagnostic naming the rule; see
// links.go); a skill
// directory reached a second time through a link, in this or any later root,
// is loaded once, with an info diagnostic. A root whose real path leaves
// [Root.Within] is refused with an error diagnostic. At most 50,000
// directories are read per root.
//
// No SKILL.md goes unloaded without a diagnostic: those in folders the walk
// does not search (hidden, node_modules, too deep, inside a skill) are
// counted, one diagnostic per folder (see skipped.go).
//
// Skill directories are parsed concurrently (GOMAXPROCS workers); the result
// is identical to a sequential run. Problems never abort discovery: they are
// diagnostics. When ctx is cancelled, Discover stops early and returns what
// it has, with a diagnostic.
func Discover(ctx context.Context, opts Options) *Catalog {
	return discover(ctx, opts, walkLimits{maxDirs: defaultMaxDirs, scanDirs: defaultMaxScanDirs})
}

func discover(ctx context.Context, opts Options, lim walkLimits) *Catalog {
	if cat, ok := opts.Cache.replay(ctx, opts, lim); ok {
		return cat
	}
	w := &walker{
		lim:        lim,
		maxBytes:   fileLimit(opts.MaxFileBytes),
		jobs:       make(chan *candidate, 512),
		seenRoot:   map[string]string{},
		seenSkill:  map[string]string{},
		realWithin: map[string]string{},
		cache:      opts.Cache.begin(),

		userLinkRoots: opts.UserLinkRoots,
		forbidden:     opts.Forbidden,
	}
	w.cache.prestat()
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for c := range w.jobs {
				if c.cmdPath != "" {
					w.parseCommand(ctx, c)
					continue
				}
				w.parse(ctx, c)
			}
		})
	}
	for _, r := range opts.Roots {
		if err := ctx.Err(); err != nil {
			w.stop = true
			w.diag(r.Path, SeverityWarning, "discovery interrupted: "+err.Error())
			break
		}
		w.walkRoot(ctx, r)
		if w.stop {
			break
		}
	}
	close(w.jobs)
	wg.Wait()
	cat := w.assemble(ctx, opts)
	if ctx.Err() != nil {
		w.cache.opaque("discovery interrupted") // whatever step noticed it, or none
	}
	w.cache.record(w, opts)
	return cat
}

// A walker walks the roots in order on one goroutine and hands every skill
// directory to the worker pool. events records diagnostics and candidates in
// discovery order so that assembly is deterministic.
type walker struct {
	lim      walkLimits
	maxBytes int64
	jobs     chan *candidate
	events   []walkEvent
	// replayed, for a replay, yields its numReplayed events instead
	// (allEvents).
	replayed    iter.Seq[walkEvent]
	numReplayed int
	seenRoot    map[string]string // real path of a root → its path
	seenSkill   map[string]string // real path of a skill dir → dir first reached
	realWithin  map[string]string // Root.Within, a user link root → its real path
	// userLinkRoots are [Options.UserLinkRoots].
	userLinkRoots []string
	// forbidden are [Options.Forbidden].
	forbidden confine.Forbidden
	stop      bool
	cache     *cacheRun
	// pluginAgents are the plugins' agents/ folders, in walk order.
	pluginAgents []PluginFolder
}

// A walkEvent is either a diagnostic or a skill directory.
type walkEvent struct {
	diag *Diagnostic
	cand *candidate
	// skill and diags are a skill folder's parse replayed from the cache
	// (replay.go), which needs no candidate: one of 264 bytes per skill
	// is megabytes with ten thousand.
	skill *Skill
	diags []Diagnostic
}

// allEvents yields the events in walk order: those the walk made, or
// those of the walk a replay stands for (replayed), made as they are
// reached.
func (w *walker) allEvents() iter.Seq[walkEvent] {
	if w.replayed != nil {
		return w.replayed
	}
	return slices.Values(w.events)
}

// numEvents returns the number of events allEvents yields.
func (w *walker) numEvents() int {
	if w.replayed != nil {
		return w.numReplayed
	}
	return len(w.events)
}

// A candidate is a skill directory; a worker fills skill and diags.
type candidate struct {
	root     Root
	rootReal string
	dir      string
	dirReal  string
	entries  []fs.DirEntry
	skill    *Skill
	diags    []Diagnostic
	dropped  bool // not parsed: the context was cancelled
	// plugin is the Claude Code plugin the candidate belongs to (""), and
	// pluginDir its folder.
	plugin, pluginDir string
	// cmdPath and cmdName are set for a Claude Code command: its file
	// (entries holds its one entry, cmdType that entry's type) and its
	// full name.
	cmdPath, cmdName string
	cmdType          fs.FileMode
}

// rootWalk is the state of walking one root.
type rootWalk struct {
	root     Root
	realPath string
	dirs     int
	visited  map[string]bool // real paths of directories read
	capped   bool
	plugin   string // the plugin being walked, if any
	// pluginDir is that plugin's folder.
	pluginDir string
	// bounds are the real folders the root's links may lead into and
	// rule the rule that says so (links.go).
	bounds []string
	rule   string
	// passed are the folders the walk did not search, and scanned the
	// real paths of those reportPassedOver has counted.
	passed  []passedOver
	scanned map[string]bool
}

func (w *walker) diag(path string, sev Severity, msg string) {
	w.events = append(w.events, walkEvent{diag: &Diagnostic{Path: path, Severity: sev, Message: msg}})
}

func (w *walker) walkRoot(ctx context.Context, root Root) {
	path := filepath.Clean(root.Path)
	root.Path = path
	entries, err := w.cache.readDir(path)
	if err != nil {
		if !os.IsNotExist(err) {
			w.diag(path, SeverityError, "cannot read skill root: "+describeErr(err))
		}
		return
	}
	rootReal, err := w.cache.evalSymlinks(path)
	if err != nil {
		w.diag(path, SeverityError, "cannot resolve skill root: "+describeErr(err))
		return
	}
	if first, ok := w.seenRoot[rootReal]; ok {
		w.diag(path, SeverityInfo, "same directory as skill root "+first+"; skipped")
		return
	}
	if !w.rootStaysInside(root, rootReal) {
		return
	}
	w.seenRoot[rootReal] = path
	rw := &rootWalk{root: root, realPath: rootReal, dirs: 1, visited: map[string]bool{rootReal: true}}
	w.linkBounds(rw)
	switch {
	case root.Plugin != "":
		w.walkInstalledPlugin(ctx, rw, path, rootReal, entries)
	case root.Commands:
		w.walkCommands(ctx, rw, path, path, rootReal, entries, 0)
	default:
		w.visit(ctx, rw, path, rootReal, entries, 0, true)
	}
	w.reportPassedOver(ctx, rw)
}

// visit decides what the directory dir (at depth; isRoot for the root
// itself) is and walks it. A directory holding SKILL.md (or, below the root,
// manifest.toml) is a skill; a Claude Code plugin ([isPlugin]) is walked as
// one, and when it is also a skill both load; anything else is a category
// folder whose sub-folders are searched.
func (w *walker) visit(ctx context.Context, rw *rootWalk, dir, dirReal string, entries []fs.DirEntry, depth int, isRoot bool) {
	skill := hasSkillFile(entries, !isRoot)
	if skill {
		if first, ok := w.seenSkill[dirReal]; ok && isRoot {
			w.diag(dir, SeverityInfo, "same skill directory as "+first+"; skipped")
			return
		}
		w.seenSkill[dirReal] = dir
		w.addCandidate(rw, dir, dirReal, entries)
	}
	if rw.plugin == "" && w.isPlugin(dir, entries) {
		w.walkPlugin(ctx, rw, dir, dirReal, entries, depth, skill)
		return
	}
	if skill {
		w.passOverChildren(rw, dir, dirReal, entries, skipInSkill, nil)
		return
	}
	w.noteMisnamedSkillFile(dir, entries)
	w.walkDir(ctx, rw, dir, dirReal, entries, depth)
}

// noteMisnamedSkillFile warns about a skill.md (or Skill.md, ...) in a
// folder without SKILL.md: the name is case-sensitive, also where the file
// system is not.
func (w *walker) noteMisnamedSkillFile(dir string, entries []fs.DirEntry) {
	for _, e := range entries {
		if name := e.Name(); len(name) == len(skillFileName) && name != skillFileName && strings.EqualFold(name, skillFileName) {
			w.diag(joinPath(dir, name), SeverityWarning, fmt.Sprintf("%s is not loaded: a skill's file must be named %s, in capitals", name, skillFileName))
			return
		}
	}
}

// rootStaysInside reports whether the real path of root lies inside the
// directory the root belongs to ([Root.Within]), with an error diagnostic
// when it does not. A root that is itself a link out of the workspace (a
// cloned repository's `.claude/skills -> /`) would make everything under its
// target a skill directory the file tools may read.
func (w *walker) rootStaysInside(root Root, rootReal string) bool {
	if root.Within == "" {
		return true
	}
	parent, ok := w.realWithin[root.Within]
	if !ok {
		parent = filepath.Clean(root.Within)
		if r, err := w.cache.evalSymlinks(parent); err == nil {
			parent = r
		}
		w.realWithin[root.Within] = parent
	}
	if within(parent, rootReal) {
		return true
	}
	w.diag(root.Path, SeverityError, fmt.Sprintf("skill root resolves to %s, which is outside %s; refused", rootReal, root.Within))
	return false
}

// walkDir visits the children of dir (at depth) in the order of entries,
// which os.ReadDir sorts by name.
func (w *walker) walkDir(ctx context.Context, rw *rootWalk, dir, dirReal string, entries []fs.DirEntry, depth int) {
	if depth >= maxWalkDepth {
		w.passOverChildren(rw, dir, dirReal, entries, skipDepth, nil)
		return
	}
	for _, e := range entries {
		if w.stop || rw.capped {
			return
		}
		if err := ctx.Err(); err != nil {
			w.stop = true
			w.diag(rw.root.Path, SeverityWarning, "discovery interrupted: "+err.Error())
			return
		}
		if rule, skip := skipRuleFor(e.Name()); skip {
			w.passOver(rw, dir, dirReal, e, rule)
			continue
		}
		child, childReal, childEntries, ok := w.enter(rw, dir, dirReal, e)
		if !ok {
			continue
		}
		w.visit(ctx, rw, child, childReal, childEntries, depth+1, false)
	}
}

// enter resolves and reads the directory entry e of dir, counting it toward
// the root's directory cap. ok is false when it is not a directory to walk
// (with a diagnostic when that is a problem).
func (w *walker) enter(rw *rootWalk, dir, dirReal string, e fs.DirEntry) (child, childReal string, entries []fs.DirEntry, ok bool) {
	child = joinPath(dir, e.Name())
	childReal, ok = w.childReal(rw, child, dir, dirReal, e)
	if !ok {
		return "", "", nil, false
	}
	if first, seen := w.seenSkill[childReal]; seen {
		w.diag(child, SeverityInfo, "same skill directory as "+first+"; skipped")
		return "", "", nil, false
	}
	if rw.visited[childReal] {
		return "", "", nil, false // a link back to a directory already walked
	}
	if rw.dirs >= w.lim.maxDirs {
		rw.capped = true
		w.diag(rw.root.Path, SeverityWarning, fmt.Sprintf("stopped after %d directories; skills further down were not loaded", w.lim.maxDirs))
		return "", "", nil, false
	}
	rw.dirs++
	rw.visited[childReal] = true
	entries, err := w.cache.readDir(child)
	if err != nil {
		w.diag(child, SeverityError, "cannot read directory: "+describeErr(err))
		return "", "", nil, false
	}
	return child, childReal, entries, true
}

// childReal returns the real path of a directory entry, following a symbolic
// link only when it points to a directory inside the root. ok is false for
// anything that is not a directory to walk.
func (w *walker) childReal(rw *rootWalk, child, parent, parentReal string, e fs.DirEntry) (string, bool) {
	t := e.Type()
	if t.IsDir() {
		if parentReal == parent {
			return child, true // no link on the way: one string for both
		}
		return joinPath(parentReal, e.Name()), true
	}
	if t&fs.ModeSymlink == 0 {
		return "", false
	}
	w.cache.opaque("a symbolic link")
	fi, err := os.Stat(child)
	if err != nil {
		w.diag(child, SeverityWarning, "broken symbolic link skipped: "+describeErr(err))
		return "", false
	}
	if !fi.IsDir() {
		return "", false
	}
	target, err := filepath.EvalSymlinks(child)
	if err != nil {
		w.diag(child, SeverityWarning, "cannot resolve symbolic link: "+describeErr(err))
		return "", false
	}
	if !w.followLink(rw, child, target) {
		return "", false
	}
	return target, true
}

func (w *walker) addCandidate(rw *rootWalk, dir, dirReal string, entries []fs.DirEntry) {
	if !w.fileLinksAllowed(rw, dir, entries) {
		return
	}
	bound, _ := rw.boundOf(dirReal) // dirReal passed the link rule on the way here
	c := &candidate{root: rw.root, rootReal: bound, dir: dir, dirReal: dirReal, plugin: rw.plugin, pluginDir: rw.pluginDir}
	w.events = append(w.events, walkEvent{cand: c})
	// A warm cache hit needs no system call: taken here, it saves a
	// worker hand-off per skill.
	if s, diags, ok := w.cache.quickHit(dir, dirReal, entries, bound, w.maxBytes); ok {
		c.skill, c.diags = s, diags
		c.found()
		return
	}
	c.entries = entries
	w.jobs <- c
}

// joinPath is filepath.Join for a clean dir and a plain name, without
// Join's cleaning cost (it runs once per directory).
func joinPath(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// parse runs on a worker.
func (w *walker) parse(ctx context.Context, c *candidate) {
	if ctx.Err() != nil {
		c.dropped = true
		return
	}
	c.skill, c.diags = w.cache.loadSkillDir(c.dir, c.dirReal, c.entries, c.rootReal, w.maxBytes)
	c.entries = nil
	c.found()
}

// found sets what the skill's place in the walk decides.
func (c *candidate) found() { placeSkill(c.skill, c.root, c.dirReal, c.rootReal) }

// placeSkill gives s, found in a folder whose real path is dirReal under
// root (real path rootReal), where it was found.
func placeSkill(s *Skill, root Root, dirReal, rootReal string) {
	if s != nil {
		s.Root = root.Path
		s.RealDir = dirReal
		s.Bound = rootReal
		s.Source = root.Source
		s.Nested = root.Nested
	}
}

// assemble resolves name clashes in discovery order (the first skill to claim
// a name wins: roots are in priority order), adds the built-ins last, and
// decides every winner's status.
func (w *walker) assemble(ctx context.Context, opts Options) *Catalog {
	// The built-ins: parsed once for the session (Options.BuiltinSet), else
	// now; none when they are off.
	var builtins *BuiltinSkills
	if opts.Builtins {
		if builtins = opts.BuiltinSet; builtins == nil {
			builtins = ParseBuiltins()
		}
	}
	// Sized for every skill the walk found: a warm start of a large
	// collection claims thousands.
	cat := &Catalog{Skills: make([]*Skill, 0, w.numEvents()+builtins.len())}
	g := newGate(opts)
	byName := make(map[string]*Skill, cap(cat.Skills))
	claim := func(s *Skill) {
		// Every skill of the catalog passes here: none keeps its body
		// (see Skill.Body), whichever way it was read.
		s.Body = ""
		if win, ok := byName[s.Name]; ok {
			by := "shadowed by "
			if win.Source == SourceManaged {
				by = "shadowed by managed skill "
			}
			cat.Diagnostics = append(cat.Diagnostics, Diagnostic{Path: origin(s), Severity: SeverityInfo, Message: by + origin(win)})
			return
		}
		byName[s.Name] = s
		cat.Diagnostics = append(cat.Diagnostics, g.decide(s)...)
		commandStatus(s)
		cat.Skills = append(cat.Skills, s)
	}
	// Commands are claimed after every skill, built-ins included: a real
	// skill of the same name wins. Nested folders' skills come last of
	// all, under a qualified name when theirs is taken (qualifyNested).
	var commands, nested []*Skill
	interrupted := w.stop
	// The walk's diagnostics, counted, so that the list is not regrown
	// (a collection whose every skill has a warning has thousands).
	n := 0
	for ev := range w.allEvents() {
		switch {
		case ev.diag != nil:
			n++
		case ev.cand != nil:
			n += len(ev.cand.diags)
		default:
			n += len(ev.diags)
		}
	}
	if n > 0 {
		cat.Diagnostics = make([]Diagnostic, 0, n+builtins.len()+1)
	}
	for ev := range w.allEvents() {
		if ev.diag != nil {
			cat.Diagnostics = append(cat.Diagnostics, *ev.diag)
			continue
		}
		s, diags, plugin, pluginDir := ev.skill, ev.diags, "", ""
		if c := ev.cand; c != nil {
			if c.dropped {
				if !interrupted {
					interrupted = true
					cat.Diagnostics = append(cat.Diagnostics, Diagnostic{Path: c.dir, Severity: SeverityWarning, Message: "discovery interrupted: " + ctx.Err().Error() + "; this and later skills were not loaded"})
				}
				continue
			}
			s, diags, plugin, pluginDir = c.skill, c.diags, c.plugin, c.pluginDir
		}
		cat.Diagnostics = append(cat.Diagnostics, diags...)
		if s == nil {
			continue
		}
		if plugin != "" && !s.Command {
			var d *Diagnostic
			if s, d = inPlugin(s, plugin, pluginDir); d != nil {
				cat.Diagnostics = append(cat.Diagnostics, *d)
				continue
			}
		}
		switch {
		case s.Nested != "":
			nested = append(nested, s)
		case s.Command:
			commands = append(commands, s)
		default:
			claim(s)
		}
	}
	if builtins != nil {
		builtins.each(func(s *Skill, diags []Diagnostic) {
			cat.Diagnostics = append(cat.Diagnostics, diags...)
			if s != nil {
				claim(s)
			}
		})
	}
	for _, s := range commands {
		claim(s)
	}
	for _, s := range nested {
		if _, taken := byName[s.Name]; taken {
			var d *Diagnostic
			if s, d = qualifyNested(s); d != nil {
				cat.Diagnostics = append(cat.Diagnostics, *d)
				continue
			}
		}
		claim(s)
	}
	cat.Diagnostics = append(cat.Diagnostics, g.notes...)
	cat.PluginAgents = w.pluginAgents
	if len(cat.Skills) == 0 {
		cat.Skills = nil // as before the presizing: JSON shows null
	}
	slices.SortFunc(cat.Skills, func(a, b *Skill) int { return strings.Compare(a.Name, b.Name) })
	return cat
}

// qualifyNested returns a nested folder's skill under its qualified name,
// `dir:name` with the folder's `/` as `:` (as a command's subfolders
// are): the name alone is taken, and a folder deep in the workspace must
// not shadow, or be shadowed by, a skill the session already had.
func qualifyNested(s *Skill) (*Skill, *Diagnostic) {
	n := *s
	n.Name = nestedName(s.Nested, s.Name)
	if !ValidName(n.Name) {
		return nil, &Diagnostic{Path: diagPathOf(s), Severity: SeverityError,
			Message: fmt.Sprintf("skill name %q clashes with another skill and %q is not a valid skill name; not loaded", s.Name, n.Name)}
	}
	return &n, nil
}

// nestedName is the qualified name of the skill name of the nested folder
// dir ("pkg/api", "deploy" → "pkg:api:deploy").
func nestedName(dir, name string) string {
	return strings.ReplaceAll(dir, "/", ":") + ":" + name
}
