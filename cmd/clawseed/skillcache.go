package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/skills"
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
}

// openSkillCache loads the cache file for opts' roots.
func openSkillCache(cfg *config.Config, opts skills.Options, log *slog.Logger) *skillCache {
	if cfg.Home == "" {
		return &skillCache{cache: skills.NewParseCache(), log: log}
	}
	path := filepath.Join(cfg.Home, "cache", skills.CacheFileName(opts))
	c, err := skills.LoadParseCache(path, skills.BuildStamp(versionString()))
	if err != nil {
		log.Debug("Skill cache not used", "error", err)
	}
	return &skillCache{cache: c, path: path, log: log}
}

// save writes the cache in the background when the last discovery changed
// it: the first request does not wait for the write, and the process waits
// for it before exiting (waitBackground). Saves are atomic renames, so two
// processes never see a torn file.
func (c *skillCache) save() {
	if c.path == "" {
		return
	}
	background.Go(func() {
		if err := c.cache.Save(c.path); err != nil {
			c.log.Debug("Skill cache not saved", "error", err)
		}
	})
}

// background holds work that must finish before the process exits.
var background sync.WaitGroup

// discoverCached runs one discovery through the cache file.
func discoverCached(ctx context.Context, cfg *config.Config, log *slog.Logger) *skills.Catalog {
	opts := skillOptions(cfg)
	c := openSkillCache(cfg, opts, log)
	opts.Cache = c.cache
	cat := skills.Discover(ctx, opts)
	c.save()
	return cat
}
