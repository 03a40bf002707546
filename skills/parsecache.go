package skills

import (
	"io/fs"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/clawseed/clawseed/internal/filestamp"
)

// racyWindow: a file modified this close to the start of a discovery may
// change again without its size or mtime changing (mtime granularity is a
// clock tick on Linux and up to 2 s on FAT), so its parse is not cached.
const racyWindow = 2 * time.Second

// A ParseCache keeps the parse of each skill directory between discoveries
// ([Options.Cache]), keyed by the directory, its real path, the root's real
// path, the size limit and each skill file's name, type, size, mtime, device
// and inode. Discovery still walks every root and stats every skill file; it
// re-reads and re-parses only directories whose files changed. Directory
// listings read through it (readDir) are kept while the directory's own
// mtime, size and inode are unchanged. Directories
// whose skill files are symbolic links, or were modified within 2 s of the
// discovery, are always parsed. Entries not used by a discovery are dropped
// by the next one. The zero value is ready to use; a ParseCache is safe for
// concurrent use, but is meant for one sequence of discoveries over the same
// roots (one session). LoadParseCache and Save keep it in a file between
// processes.
type ParseCache struct {
	mu      sync.Mutex
	gen     uint64
	entries map[cacheKey]*cacheEntry
	dirs    map[string]*dirEntry
	hits    int // parses reused, for tests
	listed  int // directories listed (not served from the cache), for tests
	replays int // discoveries that replayed the last walk, for tests
	// stamp identifies the build for the cache file; loaded says the
	// entries came from (or were last saved to) it, and dirty that they
	// changed since.
	stamp         string
	loaded, dirty bool
	// pending holds what the cache file held, in file order, until a
	// discovery needs the maps ([ParseCache.ensureMaps]): a start whose
	// walk replays ([ParseCache.replay]) never builds them.
	pending *loadedCache
	// snap is the last discovery's walk, when it can be replayed.
	snap *walkSnapshot
}

// A dirEntry is a directory listing kept while the directory's own stamp
// (mtime, size, inode) is unchanged: adding, removing or renaming an entry
// changes the directory's mtime, editing a file inside does not (the skill
// files are stamped separately).
type dirEntry struct {
	stamp   fileStamp
	entries []fs.DirEntry
	// raw is the listing as the cache file holds it ([listing]), decoded
	// when a walk uses it; entries is nil then.
	raw string
	gen uint64
	// pre is what the pre-stat of a walk found ([cacheRun.prestat]); nil
	// before one. A replayed start never makes one: kept apart, its 72
	// bytes are not paid for each of ten thousand listings.
	pre *dirPre
}

// A dirPre is a directory's stamp taken by the pre-stat of the discovery
// of generation gen; ok says that it is a directory that could be
// stat'ed.
type dirPre struct {
	stamp fileStamp
	gen   uint64
	ok    bool
}

// NewParseCache returns an empty cache.
func NewParseCache() *ParseCache { return &ParseCache{} }

type cacheKey struct {
	dir, dirReal, rootReal string
	limit                  int64
}

type fileStamp struct {
	name         string
	mode         fs.FileMode
	size         int64
	mtime, ctime int64
	dev, ino     uint64
}

type cacheEntry struct {
	stamps []fileStamp
	// raw is the skill and its diagnostics encoded as the cache file holds
	// them ([encodeResult]), decoded afresh for each hit, so that callers
	// never share what the cache keeps and the cache keeps no decoded
	// copy. kept holds them instead when the codec cannot encode the
	// skill (then raw is "", and the entry is not saved).
	raw  string
	kept *keptResult
	gen  uint64
	// pre is what the pre-stat of a walk found ([cacheRun.prestat]); nil
	// before one, as for dirEntry.pre.
	pre *entryPre
}

// A keptResult is a parse the codec could not encode: never handed out,
// callers get copies.
type keptResult struct {
	skill *Skill
	diags []Diagnostic
}

// An entryPre is what the pre-stat of the discovery of generation gen
// found of an entry: the stamps of its skill files, and the entry decoded
// when they were unchanged (decoded): the first hit of the run takes
// skill and diags.
type entryPre struct {
	stamps  []fileStamp
	gen     uint64
	skill   *Skill
	diags   []Diagnostic
	decoded bool
}

// newCacheEntry encodes the parse of the skill directory dir for the
// cache.
func newCacheEntry(dir string, stamps []fileStamp, s *Skill, diags []Diagnostic, gen uint64) *cacheEntry {
	e := &cacheEntry{stamps: stamps, gen: gen}
	if raw, err := encodeResult(dir, s, diags); err == nil {
		e.raw = raw
	} else {
		e.kept = &keptResult{skill: cloneSkill(s), diags: slices.Clone(diags)}
	}
	return e
}

// result returns a fresh copy of the cached parse of dir; ok is false
// when raw does not decode (a damaged file: the skill is parsed again).
func (e *cacheEntry) result(dir string) (s *Skill, diags []Diagnostic, ok bool) {
	if e.raw == "" {
		return cloneSkill(e.kept.skill), slices.Clone(e.kept.diags), true
	}
	return decodeResult(dir, e.raw, nil)
}

// A cacheRun is one discovery's use of the cache; a nil run parses
// everything.
type cacheRun struct {
	c     *ParseCache
	gen   uint64
	start time.Time
	// rec is what the walk observed beyond the listings and skill files
	// the cache stamps, for [ParseCache.record]. Only the walking
	// goroutine touches it.
	rec walkRecord
}

// begin starts a discovery, dropping the entries the previous one did not
// use (skills removed or moved).
func (c *ParseCache) begin() *cacheRun {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ensureMaps()
	for k, e := range c.entries {
		if e.gen < c.gen {
			delete(c.entries, k)
			c.dirty = true
		}
	}
	for k, e := range c.dirs {
		if e.gen < c.gen {
			delete(c.dirs, k)
			c.dirty = true
		}
	}
	c.gen++
	return &cacheRun{c: c, gen: c.gen, start: time.Now()}
}

// Hits returns how many parses the cache has saved so far.
func (c *ParseCache) Hits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

// Len returns the number of cached skill directories.
func (c *ParseCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending != nil {
		return len(c.pending.eoff)
	}
	return len(c.entries)
}

// loadSkillDir is [loadSkillDir] through the cache. The files are stat'ed
// before they are read, so a change during the read shows as a miss next
// time.
func (r *cacheRun) loadSkillDir(dir, dirReal string, entries []fs.DirEntry, rootReal string, limit int64) (*Skill, []Diagnostic) {
	if r == nil {
		return loadSkillDir(dir, entries, rootReal, limit)
	}
	key := cacheKey{dir: dir, dirReal: dirReal, rootReal: rootReal, limit: limit}
	stamps, cacheable := stampSkillFiles(dir, entries)
	if cacheable {
		if s, diags, ok := r.reuse(key, stamps); ok {
			return s, diags
		}
	}
	s, diags := loadSkillDir(dir, entries, rootReal, limit)
	if s != nil {
		s.Body = "" // a catalog does not keep it (Skill.Body), nor the cache file
	}
	var e *cacheEntry
	if cacheable && !r.racy(stamps) {
		e = newCacheEntry(dir, stamps, s, diags, r.gen)
	}
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	if e == nil {
		if _, ok := r.c.entries[key]; ok {
			delete(r.c.entries, key)
			r.c.dirty = true
		}
		return s, diags
	}
	r.c.dirty = true
	if r.c.entries == nil {
		r.c.entries = map[cacheKey]*cacheEntry{}
	}
	r.c.entries[key] = e
	return s, diags
}

// quickHit is loadSkillDir's cache hit when this discovery's pre-stat
// stamped every skill file of entries: then it makes no system call, and
// the walker takes it without handing the directory to a worker. ok is
// false otherwise (the directory goes to [cacheRun.loadSkillDir]).
func (r *cacheRun) quickHit(dir, dirReal string, entries []fs.DirEntry, rootReal string, limit int64) (*Skill, []Diagnostic, bool) {
	if r == nil {
		return nil, nil, false
	}
	key := cacheKey{dir: dir, dirReal: dirReal, rootReal: rootReal, limit: limit}
	r.c.mu.Lock()
	e := r.c.entries[key]
	if e == nil || e.pre == nil || e.pre.gen != r.gen || !preMatches(entries, e.stamps, e.pre.stamps) {
		r.c.mu.Unlock()
		return nil, nil, false
	}
	if p := e.pre; p.decoded {
		s, diags := p.skill, p.diags
		p.skill, p.diags, p.decoded = nil, nil, false
		e.gen = max(e.gen, r.gen)
		r.c.hits++
		r.c.mu.Unlock()
		return s, diags, true
	}
	return r.hit(e, dir)
}

// preMatches reports whether the skill files among entries are those
// stamps were taken of, with the pre-stat's stamps (pre) equal to them:
// what comparing stampSkillFiles(dir, entries, pre, true) with stamps
// says, without allocating.
func preMatches(entries []fs.DirEntry, stamps, pre []fileStamp) bool {
	i := 0
	for _, e := range entries {
		name := e.Name()
		if name != skillFileName && name != manifestFileName {
			continue
		}
		t := e.Type()
		if t&fs.ModeSymlink != 0 || i >= len(stamps) {
			return false
		}
		want := stamps[i]
		i++
		if !t.IsRegular() {
			if want != (fileStamp{name: name, mode: t}) {
				return false
			}
			continue
		}
		if st, ok := preStamp(pre, name); !ok || st != want {
			return false
		}
	}
	return i == len(stamps)
}

// reuse returns the cached parse of key when its skill files' stamps are
// stamps.
func (r *cacheRun) reuse(key cacheKey, stamps []fileStamp) (*Skill, []Diagnostic, bool) {
	r.c.mu.Lock()
	e := r.c.entries[key]
	if e == nil || !slices.Equal(e.stamps, stamps) {
		r.c.mu.Unlock()
		return nil, nil, false
	}
	return r.hit(e, key.dir)
}

// hit uses e, found unchanged under the lock, which it releases.
func (r *cacheRun) hit(e *cacheEntry, dir string) (*Skill, []Diagnostic, bool) {
	// Discoveries sharing the cache may overlap: one that began earlier
	// and is still walking must not take back what a later one used (the
	// later one records its walk; see record).
	e.gen = max(e.gen, r.gen)
	r.c.hits++
	r.c.mu.Unlock()
	// An entry is never changed once stored (a new parse replaces it), so
	// it is decoded outside the lock.
	s, diags, ok := e.result(dir)
	if !ok {
		r.c.mu.Lock()
		r.c.hits--
		r.c.mu.Unlock()
	}
	return s, diags, ok
}

// readDir is os.ReadDir through the cache: a warm reload stats each
// directory instead of opening and reading it, and a directory the
// pre-stat stamped is not even stat'ed again.
func (r *cacheRun) readDir(dir string) ([]fs.DirEntry, error) {
	if r == nil {
		return os.ReadDir(dir)
	}
	r.c.mu.Lock()
	e := r.c.dirs[dir]
	var st fileStamp
	if e != nil && e.pre != nil && e.pre.gen == r.gen && e.pre.ok {
		st = e.pre.stamp
	} else {
		r.c.mu.Unlock()
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			entries, err := os.ReadDir(dir) // its error, as without the cache
			r.noteUncached(dir, err)
			return entries, err
		}
		st = dirStamp(fi)
		r.c.mu.Lock()
		e = r.c.dirs[dir]
	}
	if e != nil && e.stamp == st {
		e.gen = max(e.gen, r.gen) // as in hit
		raw, entries := e.raw, e.entries
		r.c.mu.Unlock()
		if raw == "" {
			return slices.Clone(entries), nil
		}
		if entries, ok := decodeListing(dir, raw); ok {
			return entries, nil
		}
		// Damaged: listed again below, and replaced.
	} else {
		r.c.mu.Unlock()
	}
	entries, err := os.ReadDir(dir)
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	r.c.listed++
	old := r.c.dirs[dir]
	if old != nil && old.gen > r.gen {
		// A later discovery's listing: this one's walk is not recorded
		// (record), and the later one's must keep it.
		return entries, err
	}
	if err != nil || r.racy([]fileStamp{st}) {
		r.noteUncached(dir, err)
		if old != nil {
			delete(r.c.dirs, dir)
			r.c.dirty = true
		}
		return entries, err
	}
	r.c.dirty = true
	if r.c.dirs == nil {
		r.c.dirs = map[string]*dirEntry{}
	}
	r.c.dirs[dir] = &dirEntry{stamp: st, entries: slices.Clone(entries), gen: r.gen}
	return entries, nil
}

// dirStamp is a directory's stamp as readDir keeps it.
func dirStamp(fi fs.FileInfo) fileStamp {
	st := fileStamp{mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	st.dev, st.ino, st.ctime = filestamp.Identity(fi)
	return st
}

func (r *cacheRun) racy(stamps []fileStamp) bool {
	limit := r.start.Add(-racyWindow).UnixNano()
	for _, s := range stamps {
		if s.mtime >= limit {
			return true
		}
	}
	return false
}

// stampSkillFiles stats the skill files among entries. It reports false
// (do not cache) when one is a symbolic link, whose target may move, or
// cannot be stat'ed.
func stampSkillFiles(dir string, entries []fs.DirEntry) ([]fileStamp, bool) {
	var stamps []fileStamp
	for _, e := range entries {
		name := e.Name()
		if name != skillFileName && name != manifestFileName {
			continue
		}
		t := e.Type()
		if t&fs.ModeSymlink != 0 {
			return nil, false
		}
		st := fileStamp{name: name, mode: t}
		if t.IsRegular() {
			var ok bool
			if st, ok = statSkillFile(dir, name); !ok {
				return nil, false
			}
		}
		stamps = append(stamps, st)
	}
	return stamps, true
}

// statSkillFile stamps the regular file dir/name.
func statSkillFile(dir, name string) (fileStamp, bool) {
	fi, err := os.Lstat(joinPath(dir, name))
	if err != nil || !fi.Mode().IsRegular() {
		return fileStamp{}, false
	}
	st := fileStamp{name: name, mode: fi.Mode().Type(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	st.dev, st.ino, st.ctime = filestamp.Identity(fi)
	return st, true
}

func preStamp(pre []fileStamp, name string) (fileStamp, bool) {
	for _, st := range pre {
		if st.name == name {
			return st, true
		}
	}
	return fileStamp{}, false
}

// cloneSkill copies s so that setting Status, Reason or Root on one catalog's
// skill never shows in another's.
func cloneSkill(s *Skill) *Skill {
	if s == nil {
		return nil
	}
	n := *s
	n.Tags = slices.Clone(s.Tags)
	n.Permissions = slices.Clone(s.Permissions)
	n.Triggers = slices.Clone(s.Triggers)
	n.AllowedTools = slices.Clone(s.AllowedTools)
	n.Arguments = slices.Clone(s.Arguments)
	n.Paths = slices.Clone(s.Paths)
	n.Dynamic = slices.Clone(s.Dynamic)
	n.OS = slices.Clone(s.OS)
	n.Requires = Requires{
		Bins:    slices.Clone(s.Requires.Bins),
		AnyBins: slices.Clone(s.Requires.AnyBins),
		Env:     slices.Clone(s.Requires.Env),
		OS:      slices.Clone(s.Requires.OS),
		Config:  slices.Clone(s.Requires.Config),
	}
	if s.Shell != nil {
		sh := *s.Shell
		sh.Args = slices.Clone(s.Shell.Args)
		n.Shell = &sh
	}
	if s.Metadata != nil {
		n.Metadata = cloneValue(s.Metadata).(map[string]any)
	}
	return &n
}

// cloneValue deep-copies the maps and slices of decoded YAML/TOML.
func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := maps.Clone(v)
		for k, x := range m {
			m[k] = cloneValue(x)
		}
		return m
	case []any:
		s := slices.Clone(v)
		for i, x := range s {
			s[i] = cloneValue(x)
		}
		return s
	}
	return v
}
