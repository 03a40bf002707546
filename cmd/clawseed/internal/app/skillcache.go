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
// process's build.
func openSkillCache(cfg *config.Config, opts skills.Options, proc *Process, log *slog.Logger) *skillCache {
	if cfg.Home == "" {
		return &skillCache{cache: skills.NewParseCache(), log: log, proc: proc, hashes: lock.NewHashCache()}
	}
	path := filepath.Join(cfg.Home, "cache", skills.CacheFileName(opts))
	c, err := skills.LoadParseCache(path, skills.BuildStamp(proc.version()))
	if err != nil {
		log.Debug("Skill cache not used", "error", err)
	}
	return &skillCache{cache: c, path: path, log: log, proc: proc, hashes: lock.NewHashCache()}
}

// prefetchSkillCache opens the skill cache on another goroutine; the
// function it returns waits for it (or opens it itself: see soon).
func prefetchSkillCache(cfg *config.Config, proc *Process, log *slog.Logger) func() *skillCache {
	return soon(func() *skillCache { return openSkillCache(cfg, skillOptions(cfg), proc, log) })
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
