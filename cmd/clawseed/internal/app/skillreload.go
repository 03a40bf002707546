package app

import (
	"context"
	"log/slog"
	"sync"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/skills/watch"
)

// skillReloader rebuilds the catalog for hot reload (§4.13) when the
// watcher saw a skill file change, or when the session's own tools may have
// changed files (a write or exec call succeeded): then the next request
// sees a skill the model just wrote, or one whose `paths` now match,
// without waiting for the watcher's debounce. A parse cache makes the
// rebuild re-read only the skills whose files changed, and an unchanged
// catalog leaves the index, and so the prompt cache, as it was.
type skillReloader struct {
	cfg   *config.Config
	sb    *tools.Sandbox
	cache *skillCache

	// startWatch, when set, starts the watcher at the first reload, that
	// is just as the first request goes out: setting up one watch per skill
	// directory then overlaps the model's answer instead of delaying the
	// request. The watcher asks for one rebuild once its watches are in
	// place, which catches a change made in between.
	startWatch func() *watch.Watcher
	watchOnce  sync.Once
	watcher    *watch.Watcher // nil: no watching ([skills].watch = false)
}

// discover runs a discovery with the cache and makes the new skill
// directories readable.
func (r *skillReloader) discover(ctx context.Context) *skills.Catalog {
	if !r.cfg.Skills.Enabled {
		return &skills.Catalog{}
	}
	opts := skillOptions(r.cfg)
	opts.Cache = r.cache.cache
	cat := skills.Discover(ctx, opts)
	r.cache.save()
	r.sb.SkillDirs.Replace(skillReadDirs(cat))
	return cat
}

// reload is the agent's [agent.Reloader].
func (r *skillReloader) reload(ctx context.Context, wrote bool) (*skills.Catalog, bool) {
	r.watchOnce.Do(func() {
		if r.startWatch != nil {
			r.watcher = r.startWatch()
		}
	})
	due := r.watcher != nil && r.watcher.Take()
	if !due && !wrote {
		return nil, false
	}
	return r.discover(ctx), true
}

// watchSkills starts the watcher over every skill root (and commands
// folder) when [skills].watch is on; it stops with ctx. A watcher that
// cannot start leaves hot reload off, with a debug line: skills still load
// at start and on /reload.
func watchSkills(ctx context.Context, cfg *config.Config, log *slog.Logger) *watch.Watcher {
	if !cfg.Skills.Enabled || !cfg.Skills.Watch {
		return nil
	}
	var dirs []string
	for _, r := range skillOptions(cfg).Roots {
		dirs = append(dirs, r.Path)
	}
	// Started, not waited for: setting up thousands of watches would delay
	// the first request; the watcher asks for one rebuild once ready.
	w, err := watch.Start(ctx, watch.Options{Roots: dirs})
	if err != nil {
		log.Debug("Skill watcher not started", "error", err)
		return nil
	}
	return w
}

// skillOptions returns the discovery options for the configuration.
func skillOptions(cfg *config.Config) skills.Options {
	return skills.Options{
		Roots:        skills.StandardRoots(cfg.Workspace, cfg.Home, homeDir(), cfg.Skills.ExtraRoots),
		Builtins:     true,
		MaxFileBytes: int64(cfg.Skills.MaxSkillFileBytes),
		Excluded:     cfg.Skills.Excluded,
		Workspace:    cfg.Workspace,
	}
}

// Discover runs skill discovery as a session does, through the parse cache
// file of CLAWSEED_HOME (a save left running is the process's to wait for);
// an empty catalog when skills are disabled.
func Discover(ctx context.Context, cfg *config.Config, proc *Process, log *slog.Logger) *skills.Catalog {
	if !cfg.Skills.Enabled {
		return &skills.Catalog{}
	}
	opts := skillOptions(cfg)
	c := openSkillCache(cfg, opts, proc, log)
	opts.Cache = c.cache
	cat := skills.Discover(ctx, opts)
	c.save()
	return cat
}

// DiscoverUncached runs skill discovery without the parse cache: every
// skill is read and parsed (skills doctor --no-cache).
func DiscoverUncached(ctx context.Context, cfg *config.Config) *skills.Catalog {
	if !cfg.Skills.Enabled {
		return &skills.Catalog{}
	}
	return skills.Discover(ctx, skillOptions(cfg))
}

// IndexBudget is the skill index budget of a session of cfg: a share of the
// configured model's context window, or of the default window when no
// provider resolves (listing skills needs none).
func IndexBudget(cfg *config.Config) int {
	window := 128000
	if r, err := cfg.ResolveModel("", func() bool { return false }); err == nil && r.ContextWindow > 0 {
		window = r.ContextWindow
	}
	return skills.IndexBudget(window, cfg.Skills.IndexBudgetPercent)
}
