package app

import (
	"log/slog"
	"path/filepath"

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
}

// openSkillCache loads the cache file for opts' roots, stamped with the
// process's build; a file it cannot use is a debug line of log.
func openSkillCache(cfg *config.Config, opts skills.Options, proc *Process, log *slog.Logger) *skillCache {
	c, err := loadSkillCache(cfg, opts, proc)
	c.log = log
	if err != nil {
		log.Debug("Skill cache not used", "error", err)
	}
	return c
}

// loadSkillCache is openSkillCache without the log: the cache and why its
// file was not used.
func loadSkillCache(cfg *config.Config, opts skills.Options, proc *Process) (*skillCache, error) {
	if cfg.Home == "" {
		return &skillCache{cache: skills.NewParseCache(), proc: proc, hashes: lock.NewHashCache()}, nil
	}
	path := filepath.Join(cfg.Home, "cache", skills.CacheFileName(opts))
	c, err := skills.LoadParseCache(path, skills.BuildStamp(proc.version()))
	return &skillCache{cache: c, path: path, proc: proc, hashes: lock.NewHashCache()}, err
}

// prefetchSkillCache opens the skill cache on another goroutine, and checks
// there what the discovery will replay ([skills.ParseCache.Preverify]),
// while the rest of the session is made: with thousands of skills that is
// megabytes to decode and thousands of stats. The function it returns
// waits for it (or does it itself: see soon) and logs to log, which the
// session's debug log has joined by then, why the file was not used.
func prefetchSkillCache(cfg *config.Config, proc *Process) func(log *slog.Logger) *skillCache {
	type loaded struct {
		c   *skillCache
		err error
	}
	load := soon(func() loaded {
		c, err := loadSkillCache(cfg, skillOptions(cfg), proc)
		c.cache.Preverify()
		return loaded{c, err}
	})
	return func(log *slog.Logger) *skillCache {
		l := load()
		l.c.log = log
		if l.err != nil {
			log.Debug("Skill cache not used", "error", l.err)
		}
		return l.c
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
