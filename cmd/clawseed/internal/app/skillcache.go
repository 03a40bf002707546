package app

import (
	"log/slog"
	"path/filepath"
	"sync/atomic"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/skills/lock"
)

// skillCache keeps discovery's parse cache in $CLAWSEED_HOME/cache between
// processes (§4.2), so that a warm start stats skill files instead of
// parsing them. The cache can only make discovery faster: an unusable file
// is ignored, a save that fails is a debug line, and `skills doctor
// --no-cache` discovers without it.
type skillCache struct {
	cache *skills.ParseCache
	path  string // "" when there is no CLAWSEED_HOME to keep it in
	log   *slog.Logger
	// proc runs the saves in the background ([Process.goBackground]).
	proc *Process
	// hashes remembers the tree hashes of locked skills between the
	// discoveries of a session ([checkSkillLocks]); in memory only.
	hashes *lock.HashCache
	// check is the replay check made ahead for the discovery that follows
	// the load ([loadChecked]), which takes it; a later one (a reload)
	// must check for itself.
	check atomic.Pointer[skills.Check]
	// setup is the discovery options the cache file was chosen by
	// ([prefetchSkillCache]), for that same discovery: a reload reads
	// them afresh.
	setup atomic.Pointer[discoverySetup]
}

// A discoverySetup is what [skillSetup] returns.
type discoverySetup struct {
	opts  skills.Options
	notes []skills.Diagnostic
}

// takeCheck returns the check made ahead, once.
func (c *skillCache) takeCheck() *skills.Check { return c.check.Swap(nil) }

// takeSetup returns the options made with the cache, once; skillSetup's
// afresh after that.
func (c *skillCache) takeSetup(cfg *config.Config) (skills.Options, []skills.Diagnostic) {
	if d := c.setup.Swap(nil); d != nil {
		return d.opts, d.notes
	}
	return skillSetup(cfg)
}

// skillCachePath is the cache file of opts' roots in cfg's CLAWSEED_HOME,
// "" when there is none.
func skillCachePath(cfg *config.Config, opts skills.Options) string {
	if cfg.Home == "" {
		return ""
	}
	return filepath.Join(cfg.Home, "cache", skills.CacheFileName(opts))
}

// A loadedSkillCache is a cache file loaded, or why it was not used.
type loadedSkillCache struct {
	c   *skillCache
	err error
}

// loadSkillCache loads the cache file path ("": none, an empty cache).
func loadSkillCache(path string, proc *Process) loadedSkillCache {
	if path == "" {
		return loadedSkillCache{c: &skillCache{cache: skills.NewParseCache(), proc: proc, hashes: lock.NewHashCache()}}
	}
	c, err := skills.LoadParseCache(path, skills.BuildStamp(proc.version()))
	return loadedSkillCache{c: &skillCache{cache: c, path: path, proc: proc, hashes: lock.NewHashCache()}, err: err}
}

// open gives the cache the log its saves report to, and logs there why
// the file was not used.
func (l loadedSkillCache) open(log *slog.Logger) *skillCache {
	l.c.log = log
	if l.err != nil {
		log.Debug("Skill cache not used", "error", l.err)
	}
	return l.c
}

// loadChecked loads the cache file path and checks what the discovery
// that follows will replay ([skills.ParseCache.Preverify]).
func loadChecked(path string, proc *Process) loadedSkillCache {
	l := loadSkillCache(path, proc)
	l.c.check.Store(l.c.cache.Preverify())
	return l
}

// prefetchSkillCache opens the skill cache of a session of cfg on other
// cores while the rest of the session is made (with thousands of skills
// that is megabytes to decode), and, when the session discovers its
// skills (it does not when it adopts the catalog the trust question
// showed), checks there what that discovery will replay: thousands of
// stats. It takes over the work [Process.PrefetchSkills] started when that
// was for the same file. The function it returns waits for it (or does it
// itself: see soon) and logs to log, which the session's debug log has
// joined by then, why the file was not used.
func prefetchSkillCache(cfg *config.Config, proc *Process, discovers bool) func(log *slog.Logger) *skillCache {
	opts, notes := skillSetup(cfg)
	path := skillCachePath(cfg, opts)
	load := proc.takeEarlySkillCache(path)
	switch {
	case load != nil:
	case discovers:
		load = soon(func() loadedSkillCache { return loadChecked(path, proc) })
	default:
		load = soon(func() loadedSkillCache { return loadSkillCache(path, proc) })
	}
	return func(log *slog.Logger) *skillCache {
		c := load().open(log)
		if !discovers {
			c.takeCheck() // made early, before it was known: no discovery follows
		} else {
			c.setup.Store(&discoverySetup{opts: opts, notes: notes})
		}
		return c
	}
}

// save writes the cache in the background when the last discovery changed
// it: the first request does not wait for the write, and the process waits
// for it before exiting ([Process.Wait]). Saves are atomic renames, so two
// processes never see a torn file.
func (c *skillCache) save() {
	if c.path == "" {
		return
	}
	c.proc.goBackground(func() {
		if err := c.cache.Save(c.path); err != nil {
			c.log.Debug("Skill cache not saved", "error", err)
		}
	})
}
