package skills

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A warm start whose skill folders are unchanged replays the last walk
// instead of walking again (issue 28). A walk is a function of the
// discovery options and of what it observes of the file system; when it
// observes only
//
//   - directory listings, which the cache keeps with the directory's stamp
//     (adding, removing or renaming an entry changes the stamp),
//   - skill files, whose parse the cache keeps with their stamps,
//   - folders that do not exist, and
//   - the real paths of the roots and of the folders they must stay in,
//
// then a later discovery with the same options that finds every one of
// those unchanged would observe the same things and produce the same
// events: the diagnostics and skill folders in walk order, which assembly
// turns into the catalog. The replay checks exactly those (one stat per
// listing and per skill file, on every core, with the skills decoded on
// the way) and hands the recorded events to assembly; it opens and lists
// no directory and builds none of the cache's maps. Claude Code command
// files are not cached (a walk reads each afresh), so a replay reads the
// recorded ones afresh too, with the arguments the walk read them with;
// their folders' listings are stamped like any other. Anything else the
// walk meets — a symbolic link, a plugin, a folder changed too recently
// for its stamp to show the next change, an interruption — makes the walk
// opaque ([cacheRun.opaque]): nothing is recorded, and the next discovery
// walks as before. Every file-system call of the walk goes
// through the cache run (readDir, evalSymlinks) or marks it opaque; see
// TestWalkFileSystemCalls.

// A walkRecord is what one walk observed besides the listings and skill
// files the cache stamps.
type walkRecord struct {
	// absent are the folders the walk found missing.
	absent []string
	// links are the real paths the walk resolved.
	links []linkWitness
	// opaque says why the walk cannot be replayed ("" when it can).
	opaque string
}

// A linkWitness is one filepath.EvalSymlinks the walk made, and its
// outcome.
type linkWitness struct{ path, real, err string }

// opaque marks the run's walk as one that cannot be replayed.
func (r *cacheRun) opaque(why string) {
	if r != nil && r.rec.opaque == "" {
		r.rec.opaque = why
	}
}

// noteUncached records a listing the cache does not keep: a missing
// folder is a witness, anything else makes the walk opaque.
func (r *cacheRun) noteUncached(dir string, err error) {
	switch {
	case r == nil:
	case err != nil && errors.Is(err, fs.ErrNotExist):
		r.rec.absent = append(r.rec.absent, dir)
	case err != nil:
		r.opaque("a folder could not be listed")
	default:
		r.opaque("a folder changed too recently")
	}
}

// evalSymlinks is filepath.EvalSymlinks, recorded.
func (r *cacheRun) evalSymlinks(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if r != nil {
		r.rec.links = append(r.rec.links, linkWitness{path: path, real: real, err: errText(err)})
	}
	return real, err
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A walkSnapshot is a walk that can be replayed: its witnesses and its
// events. It is valid for the discovery after the one of generation gen.
type walkSnapshot struct {
	gen uint64
	// key is [walkKey] of the options of the walk.
	key    string
	absent []string
	links  []linkWitness
	// dirs and ents are every listing and skill entry the walk used, in
	// the order the cache file keeps them. A snapshot read from the cache
	// file leaves them nil: its listings and entries are file's, still
	// encoded (cacheload.go). Either way they are read through the
	// methods numDirs, dirAt, entAt and the like.
	dirs   []loadedDir
	ents   []loadedEntry
	file   *loadedCache
	events []snapEvent
}

// verified is what [walkSnapshot.verify] found.
type verified struct {
	skills []*Skill
	diags  [][]Diagnostic
	ok     bool
}

// A snapEvent is a diagnostic (diag set), a Claude Code command file (cmd
// set) or the skill folder of ents[ent] found under Options.Roots[root].
type snapEvent struct {
	diag      *Diagnostic
	cmd       *cmdEvent
	root, ent int
}

// A cmdEvent is a command file the walk found under Options.Roots[root]:
// what it read the file with ([loadCommand]).
type cmdEvent struct {
	dir, dirReal, bound, path, name string
	typ                             fs.FileMode
}

// walkKey is what, besides the file system, decides a walk: the roots, the
// size limit, the walk limits and the folders user roots' links may lead
// into.
func walkKey(opts Options, maxBytes int64, lim walkLimits) string {
	var b strings.Builder
	for _, r := range opts.Roots {
		fmt.Fprintf(&b, "%q %q %q %t %q %q\n", r.Path, r.Source, r.Within, r.Commands, r.Plugin, r.Nested)
	}
	fmt.Fprintf(&b, "limit %d dirs %d scan %d links %q\n", maxBytes, lim.maxDirs, lim.scanDirs, opts.UserLinkRoots)
	return b.String()
}

// record keeps the walk w just made as the snapshot the next discovery may
// replay, or drops the last one when w cannot be replayed.
func (r *cacheRun) record(w *walker, opts Options) {
	if r == nil {
		return
	}
	c := r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != r.gen {
		return // a later discovery has begun
	}
	old := c.snap
	c.snap = nil
	// The file must follow: a snapshot recorded with other options, or
	// none where it held one, is a change to save even when every entry
	// and listing is the same.
	defer func() {
		if (old == nil) != (c.snap == nil) || old != nil && c.snap != nil && old.key != c.snap.key {
			c.dirty = true
		}
	}()
	if r.rec.opaque != "" || w.stop || len(w.pluginAgents) > 0 {
		return
	}
	snap := &walkSnapshot{gen: r.gen, key: walkKey(opts, w.maxBytes, w.lim), absent: r.rec.absent, links: r.rec.links}
	for p, e := range c.dirs {
		if e.gen == r.gen {
			snap.dirs = append(snap.dirs, loadedDir{path: p, e: e})
		}
	}
	index := map[*cacheEntry]int{}
	for k, e := range c.entries {
		if e.gen != r.gen {
			continue
		}
		if e.raw == "" {
			return // not written to the file: the replay could not decode it
		}
		snap.ents = append(snap.ents, loadedEntry{key: k, e: e})
	}
	// The cache file's order (encode), so that its indexes are these.
	slices.SortFunc(snap.dirs, func(a, b loadedDir) int { return cmp.Compare(a.path, b.path) })
	slices.SortFunc(snap.ents, func(a, b loadedEntry) int { return compareKeys(a.key, b.key) })
	for i, le := range snap.ents {
		index[le.e] = i
	}
	roots := cleanRoots(opts.Roots)
	for _, ev := range w.events {
		if ev.diag != nil {
			snap.events = append(snap.events, snapEvent{diag: ev.diag})
			continue
		}
		cand := ev.cand
		if cand.dropped || cand.plugin != "" {
			return
		}
		if cand.cmdPath != "" {
			root := slices.Index(roots, cand.root)
			if root < 0 {
				return
			}
			snap.events = append(snap.events, snapEvent{root: root, cmd: &cmdEvent{
				dir: cand.dir, dirReal: cand.dirReal, bound: cand.rootReal, path: cand.cmdPath, name: cand.cmdName, typ: cand.cmdType,
			}})
			continue
		}
		e := c.entries[cacheKey{dir: cand.dir, dirReal: cand.dirReal, rootReal: cand.rootReal, limit: w.maxBytes}]
		i, ok := index[e]
		root := slices.Index(roots, cand.root)
		if e == nil || !ok || root < 0 {
			return
		}
		snap.events = append(snap.events, snapEvent{root: root, ent: i})
	}
	c.snap = snap
}

// cleanRoots returns roots with their paths cleaned, as the walk uses
// them.
func cleanRoots(roots []Root) []Root {
	out := slices.Clone(roots)
	for i := range out {
		out[i].Path = filepath.Clean(out[i].Path)
	}
	return out
}

// compareKeys orders cache keys as the cache file does.
func compareKeys(a, b cacheKey) int {
	return cmp.Or(cmp.Compare(a.dir, b.dir), cmp.Compare(a.dirReal, b.dirReal), cmp.Compare(a.rootReal, b.rootReal), cmp.Compare(a.limit, b.limit))
}

// replay returns the catalog of the last walk when it can be replayed and
// nothing it observed changed; ok is false otherwise (the caller walks).
func (c *ParseCache) replay(ctx context.Context, opts Options, lim walkLimits) (*Catalog, bool) {
	if c == nil {
		return nil, false
	}
	maxBytes := fileLimit(opts.MaxFileBytes)
	c.mu.Lock()
	snap := c.snap
	c.mu.Unlock()
	if snap == nil || snap.key != walkKey(opts, maxBytes, lim) || !snap.fits(len(opts.Roots)) || ctx.Err() != nil {
		return nil, false
	}
	v := c.takeCheck(opts.Check, snap)
	if v == nil {
		v = snap.verify()
	}
	skills, diags, ok := v.skills, v.diags, v.ok
	c.mu.Lock()
	if !ok || c.snap != snap || c.gen != snap.gen {
		c.snap = nil
		c.mu.Unlock()
		return nil, false
	}
	// The replay is this generation's discovery: what it used is kept,
	// what it did not is dropped by the next walk (begin).
	c.gen++
	snap.gen = c.gen
	snap.setGen(c.gen)
	c.hits += snap.numEnts()
	c.replays++
	c.mu.Unlock()
	w := &walker{maxBytes: maxBytes, lim: lim}
	// The events are built, the command files read and the catalog
	// assembled outside the lock: a snapshot is never changed once
	// recorded (a later walk replaces it).
	roots := cleanRoots(opts.Roots)
	// The command files are read and the skills placed once, here; the
	// events are made as assembly reaches them, not kept (48 bytes each).
	var cmds []*candidate
	for _, ev := range snap.events {
		switch cmd := ev.cmd; {
		case ev.diag != nil:
		case cmd != nil:
			cand := &candidate{
				root: roots[ev.root], rootReal: cmd.bound, dir: cmd.dir, dirReal: cmd.dirReal, cmdPath: cmd.path, cmdName: cmd.name, cmdType: cmd.typ,
				entries: []fs.DirEntry{cachedDirEntry{dir: cmd.dir, name: filepath.Base(cmd.path), typ: cmd.typ}},
			}
			w.parseCommand(ctx, cand)
			cmds = append(cmds, cand)
		default:
			k := snap.keyAt(ev.ent)
			placeSkill(skills[ev.ent], roots[ev.root], k.dirReal, k.rootReal)
		}
	}
	w.replayed, w.numReplayed = func(yield func(walkEvent) bool) {
		next := cmds
		for _, ev := range snap.events {
			var we walkEvent
			switch {
			case ev.diag != nil:
				// Assembly copies it; the snapshot's own stays unchanged.
				we.diag = ev.diag
			case ev.cmd != nil:
				we.cand, next = next[0], next[1:]
			default:
				we.skill, we.diags = skills[ev.ent], diags[ev.ent]
			}
			if !yield(we) {
				return
			}
		}
	}, len(snap.events)
	return w.assemble(ctx, opts), true
}

// A Check is the replay check of a recorded walk made ahead of the
// discovery that replays it ([ParseCache.Preverify], [Options.Check]).
type Check struct {
	cache *ParseCache
	snap  *walkSnapshot
	gen   uint64
	v     *verified
	used  bool // c.mu guards it
}

// Preverify makes the replay check of the recorded walk now, on every
// core, for one discovery that follows soon and passes it as
// [Options.Check]: a start calls it on another goroutine as soon as the
// cache is loaded, so that the check runs while the rest of the session
// is made instead of after it. A check made a little before the discovery
// is as good as one made at it: a change after the check is one after the
// discovery, which the next discovery sees. It must not be kept for a
// discovery much later (a reload): that one would miss what changed
// meanwhile. A check serves only a discovery of this cache with the
// recorded options, before any other discovery of it, and only once; it
// is nil when there is no recorded walk.
func (c *ParseCache) Preverify() *Check {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	snap, gen := c.snap, c.gen
	current := snap != nil && snap.gen == gen
	c.mu.Unlock()
	if !current {
		return nil
	}
	return &Check{cache: c, snap: snap, gen: gen, v: snap.verify()}
}

// takeCheck returns what check found of snap when it is this cache's
// check of its current recorded walk, not yet used; nil otherwise.
func (c *ParseCache) takeCheck(check *Check, snap *walkSnapshot) *verified {
	if check == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if check.cache != c || check.snap != snap || c.snap != snap || check.gen != c.gen || check.used {
		return nil
	}
	check.used = true
	return check.v
}

// fits reports whether the events index roots roots and each entry once
// at most, as a recorded walk's do.
func (snap *walkSnapshot) fits(roots int) bool {
	seen := make([]bool, snap.numEnts())
	for _, ev := range snap.events {
		if ev.diag != nil {
			continue
		}
		if cmd := ev.cmd; cmd != nil {
			// A command is replayed only as the walk found it: a `.md`
			// file of a folder whose listing the snapshot stamps (dirs
			// are sorted by path), inside its bound.
			if ev.root < 0 || ev.root >= roots || !snap.listed(cmd.dir) || cmd.path != joinPath(cmd.dir, filepath.Base(cmd.path)) ||
				!strings.HasSuffix(cmd.path, commandSuffix) || !within(cmd.bound, cmd.dirReal) {
				return false
			}
			continue
		}
		if ev.root < 0 || ev.root >= roots || ev.ent < 0 || ev.ent >= len(seen) || seen[ev.ent] {
			return false
		}
		seen[ev.ent] = true
	}
	return true
}

// verifyChunk is how many checks a replay worker takes at a time.
const verifyChunk = 64

// verify re-observes every witness of the snapshot and decodes its skill
// entries on the way, on every core; its ok is false at the first
// difference.
func (snap *walkSnapshot) verify() *verified {
	for _, p := range snap.absent {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			return &verified{}
		}
	}
	for _, l := range snap.links {
		real, err := filepath.EvalSymlinks(l.path)
		if real != l.real || errText(err) != l.err {
			return &verified{}
		}
	}
	nd, ne := snap.numDirs(), snap.numEnts()
	skills := make([]*Skill, ne)
	diags := make([][]Diagnostic, ne)
	ok := onEveryCore(nd+ne, verifyChunk, func(stat *statter) func(lo, hi int) bool {
		var now, was []fileStamp
		dec := slabDecoder{size: ne}
		return func(lo, hi int) bool {
			for i := lo; i < hi; i++ {
				if i < nd {
					path, st := snap.dirAt(i)
					if got, ok := stat.dir(path); !ok || got != st {
						return false
					}
					continue
				}
				j := i - nd
				k, stamps, raw := snap.entAt(j, &was)
				var ok bool
				if now, ok = stat.files(k.dir, stamps, now); !ok || !sameFiles(stamps, now) {
					return false
				}
				if skills[j], diags[j], ok = dec.decode(k.dir, raw); !ok {
					return false
				}
			}
			return true
		}
	})
	return &verified{skills: skills, diags: diags, ok: ok}
}

// encodeSnapshot writes the snapshot after the listings: a 1 byte and the
// snapshot, or a 0 byte when there is none for what is written (keys and
// dirs, in file order).
func (c *ParseCache) encodeSnapshot(w *cacheWriter, keys []cacheKey, dirs []*dirEntry) {
	snap := c.snap
	if snap == nil {
		w.bool(false)
		return
	}
	sdirs, sents := snap.objects()
	if snap.gen != c.gen || len(sents) != len(keys) || len(sdirs) != len(dirs) {
		w.bool(false)
		return
	}
	for i, k := range keys {
		if sents[i].key != k || sents[i].e != c.entries[k] {
			w.bool(false)
			return
		}
	}
	for i, d := range dirs {
		if sdirs[i].e != d {
			w.bool(false)
			return
		}
	}
	w.bool(true)
	w.str(snap.key)
	w.strs(snap.absent)
	w.uint(uint64(len(snap.links)))
	for _, l := range snap.links {
		w.str(l.path)
		w.str(l.real)
		w.str(l.err)
	}
	w.uint(uint64(len(snap.events)))
	for _, ev := range snap.events {
		switch {
		case ev.diag != nil:
			w.uint(eventDiag)
			w.str(ev.diag.Path)
			w.str(string(ev.diag.Severity))
			w.str(ev.diag.Message)
		case ev.cmd != nil:
			w.uint(eventCommand)
			w.uint(uint64(ev.root))
			for _, s := range []string{ev.cmd.dir, ev.cmd.dirReal, ev.cmd.bound, ev.cmd.path, ev.cmd.name} {
				w.str(s)
			}
			w.uint(uint64(ev.cmd.typ))
		default:
			w.uint(eventSkill)
			w.uint(uint64(ev.root))
			w.uint(uint64(ev.ent))
		}
	}
}

// The kinds of a snapshot's events in the cache file.
const (
	eventSkill = iota
	eventDiag
	eventCommand
)

// snapshot decodes [ParseCache.encodeSnapshot]'s snapshot over the entries
// and listings p holds; an index out of range fails the reader.
func (r *cacheReader) snapshot(p *loadedCache) *walkSnapshot {
	snap := &walkSnapshot{key: r.str(), absent: r.strs(), file: p}
	snap.links = make([]linkWitness, r.n())
	for i := range snap.links {
		snap.links[i] = linkWitness{path: r.str(), real: r.str(), err: r.str()}
	}
	n := r.n()
	if r.err != nil {
		return nil
	}
	snap.events = make([]snapEvent, 0, n)
	for range n {
		switch r.uint() {
		case eventDiag:
			snap.events = append(snap.events, snapEvent{diag: &Diagnostic{Path: r.str(), Severity: Severity(r.str()), Message: r.str()}})
			continue
		case eventCommand:
			root := r.uint()
			cmd := &cmdEvent{dir: r.str(), dirReal: r.str(), bound: r.str(), path: r.str(), name: r.str(), typ: fs.FileMode(r.uint())}
			if root > 1<<20 || cmd.typ&^fs.ModeType != 0 {
				r.fail()
			}
			if r.err != nil {
				return nil
			}
			snap.events = append(snap.events, snapEvent{root: int(root), cmd: cmd})
			continue
		case eventSkill:
		default:
			r.fail()
			return nil
		}
		root, ent := r.uint(), r.uint()
		if ent >= uint64(len(p.eoff)) || root > 1<<20 {
			r.fail()
		}
		if r.err != nil {
			return nil
		}
		snap.events = append(snap.events, snapEvent{root: int(root), ent: int(ent)})
	}
	return snap
}
