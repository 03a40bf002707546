package app

import (
	"context"
	"iter"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/mcp"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/skills/lock"
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
	// builtins are the built-in skills, parsed once for every discovery
	// (nil when they are off).
	builtins *skills.BuiltinSkills
	// edit is applied to every catalog discovered (an eval run's
	// changes, [EvalRun.catalog]; none for other sessions).
	edit func(*skills.Catalog) *skills.Catalog

	// startWatch, when set, starts the watcher over the given roots once
	// the first request is on its way: at the first event of the first
	// response ([firstEvent] calls startWatching) or at the second
	// request, whichever comes first. Setting up one watch per skill
	// directory (a directory listing and an inotify watch each) would
	// otherwise compete with the first request for the CPU. The watcher
	// asks for one rebuild once its watches are in place, which catches a
	// change made in between.
	startWatch func(roots []skills.Root) *watch.Watcher
	watchOnce  sync.Once
	requests   atomic.Int64 // reload calls: one per request
	// watchMu guards watcher and watched: the watcher is started from the
	// goroutine that reads the first response and used by the agent's.
	watchMu sync.Mutex
	watcher *watch.Watcher // nil: no watching ([skills].watch = false) or not yet
	watched []skills.Root

	// mcp, when set, serves skills too (mcpskills.go); mcpVersion is the
	// version of its skills the last discovery added, under mu.
	mcp        *mcp.Manager
	mcpVersion uint64

	// mu guards roots, the roots of the last discovery: the installed
	// Claude Code plugins can change the roots mid-session, and then the
	// watcher is started again.
	mu    sync.Mutex
	roots []skills.Root
	// nested are the skill folders found below the workspace, in the
	// order found, and nestedSeen their paths (nestedskills.go); under mu.
	nested     []skills.Root
	nestedSeen map[string]bool
}

// discover runs a discovery with the cache and makes the new skill
// directories readable.
func (r *skillReloader) discover(ctx context.Context) *skills.Catalog {
	if !r.cfg.Skills.Enabled {
		return &skills.Catalog{}
	}
	opts, notes := r.cache.takeSetup(r.cfg) // the start's; a reload's are read afresh
	opts.Cache = r.cache.cache
	opts.Check = r.cache.takeCheck() // the start's; a reload checks for itself
	opts.BuiltinSet = r.builtins
	// The nested folders come last: their skills are claimed after every
	// other root's (skills.Root.Nested).
	opts.Roots = append(opts.Roots, r.nestedRoots()...)
	cat := discoverNoting(ctx, r.cfg, opts, notes, r.cache.hashes)
	r.cache.save()
	return r.adopt(cat, opts)
}

// adopt makes cat, discovered with opts, the reloader's catalog: the
// skills MCP servers serve join it, their folders become readable, and an
// eval run's changes apply.
func (r *skillReloader) adopt(cat *skills.Catalog, opts skills.Options) *skills.Catalog {
	var set mcp.SkillSet
	if r.mcp != nil {
		// What the servers serve now: the reload below waits for them.
		set = r.mcp.SkillsNow()
		addMCPSkills(cat, set, opts)
	}
	// Their folders are listed at the file tools' first lookup, which may
	// never come; from the skills as they are now.
	list := slices.Clone(cat.Skills)
	r.sb.SkillDirs.ReplaceFunc(func() []tools.ReadDir { return skillReadDirs(list) })
	r.mu.Lock()
	r.roots = opts.Roots
	r.mcpVersion = set.Version
	r.mu.Unlock()
	// Last, after every source of skills: what an eval run changes.
	if r.edit != nil {
		cat = r.edit(cat)
	}
	return cat
}

// waitMCP waits for the MCP servers, as the tools do before a request:
// a rediscovery (/reload, or a /NAME the catalog does not know yet) then
// has their skills.
func (r *skillReloader) waitMCP(ctx context.Context) {
	if r.mcp != nil && r.cfg.Skills.Enabled {
		r.mcp.Skills(ctx)
	}
}

// mcpChanged waits for the MCP servers, as the tools do before a request,
// and reports whether their skills changed since the last discovery.
func (r *skillReloader) mcpChanged(ctx context.Context) bool {
	if r.mcp == nil || !r.cfg.Skills.Enabled {
		return false
	}
	v := r.mcp.Skills(ctx).Version
	r.mu.Lock()
	defer r.mu.Unlock()
	return v != r.mcpVersion
}

// reload is the agent's [agent.Reloader].
func (r *skillReloader) reload(ctx context.Context, wrote bool) (*skills.Catalog, bool) {
	if r.requests.Add(1) > 1 {
		r.startWatching() // no response event started it
	}
	w := r.currentWatcher()
	due := w != nil && w.Take()
	due = r.mcpChanged(ctx) || due
	if !due && !wrote {
		return nil, false
	}
	cat := r.discover(ctx)
	r.rewatch(true)
	return cat, true
}

// startWatching starts the watcher over the roots of the last discovery,
// the first time it is called.
func (r *skillReloader) startWatching() { r.watchOnce.Do(func() { r.rewatch(false) }) }

func (r *skillReloader) currentWatcher() *watch.Watcher {
	r.watchMu.Lock()
	defer r.watchMu.Unlock()
	return r.watcher
}

// rewatch starts the watcher over the roots of the last discovery: at
// first (again false), or again when they are no longer the roots watched.
func (r *skillReloader) rewatch(again bool) {
	r.watchMu.Lock()
	defer r.watchMu.Unlock()
	if r.startWatch == nil || again && r.watcher == nil {
		return
	}
	r.mu.Lock()
	roots := r.roots
	r.mu.Unlock()
	if again && slices.Equal(roots, r.watched) {
		return
	}
	r.watched = roots
	if r.watcher != nil {
		r.watcher.Close()
	}
	r.watcher = r.startWatch(roots)
}

// firstEvent is the session's model: the first event of any response
// calls started, once, in a goroutine of its own, so that work which can
// wait until the first request is out (the skill watcher) does not delay
// it.
type firstEvent struct {
	agent.Model
	once    *sync.Once
	started func()
}

func (m firstEvent) Stream(ctx context.Context, req providers.Request) iter.Seq2[providers.Event, error] {
	seq := m.Model.Stream(ctx, req)
	return func(yield func(providers.Event, error) bool) {
		for ev, err := range seq {
			m.once.Do(func() { go m.started() })
			if !yield(ev, err) {
				return
			}
		}
	}
}

// watchSkills starts the watcher over the skill roots (and commands
// folders) and the files that name the installed Claude Code plugins when
// [skills].watch is on; it stops with ctx. Of an installed plugin, only
// what discovery reads is watched: its skills/ and commands/, its
// plugin.json and top SKILL.md, not the rest of its folder. A watcher that
// cannot start leaves hot reload off, with a debug line: skills still load
// at start and on /reload.
func watchSkills(ctx context.Context, cfg *config.Config, roots []skills.Root, log *slog.Logger) *watch.Watcher {
	if !cfg.Skills.Enabled || !cfg.Skills.Watch {
		return nil
	}
	opts := watch.Options{Files: pluginWatchFiles(cfg)}
	for _, r := range roots {
		if r.Plugin == "" {
			opts.Roots = append(opts.Roots, r.Path)
			continue
		}
		opts.Roots = append(opts.Roots, filepath.Join(r.Path, "skills"), filepath.Join(r.Path, "commands"))
		opts.Files = append(opts.Files, filepath.Join(r.Path, ".claude-plugin", "plugin.json"), filepath.Join(r.Path, "SKILL.md"))
	}
	// Started, not waited for: setting up thousands of watches would delay
	// the first request; the watcher asks for one rebuild once ready.
	w, err := watch.Start(ctx, opts)
	if err != nil {
		log.Debug("Skill watcher not started", "error", err)
		return nil
	}
	return w
}

// skillOptions returns the discovery options for the configuration.
func skillOptions(cfg *config.Config) skills.Options {
	opts, _ := skillSetup(cfg)
	return opts
}

// skillSetup returns the discovery options for the configuration: the
// roots of its layout ([skillLayout]) with those of the installed Claude Code plugins, read
// afresh ([claudePlugins]), and the problems of the plugin files, as skill
// diagnostics.
func skillSetup(cfg *config.Config) (skills.Options, []skills.Diagnostic) {
	states, diags := claudePlugins(cfg)
	return skills.Options{
		Roots:        skills.WithPlugins(skillLayout(cfg).Roots(), pluginRoots(enabledPlugins(states))),
		Builtins:     builtinsOn(cfg),
		MaxFileBytes: int64(cfg.Skills.MaxSkillFileBytes),
		Excluded:     cfg.Skills.Excluded,
		Workspace:    cfg.Workspace,
		// A user root's links may lead into these (skills/links.go).
		UserLinkRoots: skills.UserLinkRoots(cfg.Workspace, homeDir(), cfg.Skills.ExtraRoots),
		// ... but never under forbidden_paths.
		Forbidden: forbiddenRule(cfg),
		// OpenClaw's requires.config, answered by clawseed's own settings.
		Config: cfg.RequiredSetting,
	}, pluginDiagnostics(diags)
}

// builtinsOn says whether discovery adds the built-in skills: --bare lists
// only what the command line names (and the managed skills, which policy
// keeps), so the bundled skills too are off.
func builtinsOn(cfg *config.Config) bool { return cfg.Skills.Builtins && !cfg.Bare }

// discoverNoting runs discovery with opts; the catalog's diagnostics begin
// with notes. Every discovery goes through it, so the lock files apply on
// every path ([checkSkillLocks], hashing through hashes, which may be nil).
func discoverNoting(ctx context.Context, cfg *config.Config, opts skills.Options, notes []skills.Diagnostic, hashes *lock.HashCache) *skills.Catalog {
	cat := skills.Discover(ctx, opts)
	if len(notes) > 0 {
		cat.Diagnostics = append(notes, cat.Diagnostics...)
	}
	checkSkillLocks(cfg, cat, hashes)
	return cat
}

// Discover runs skill discovery as a session does, through the parse cache
// file of CLAWSEED_HOME (a save left running is the process's to wait for);
// an empty catalog when skills are disabled.
func Discover(ctx context.Context, cfg *config.Config, proc *Process, log *slog.Logger) *skills.Catalog {
	if !cfg.Skills.Enabled {
		return &skills.Catalog{}
	}
	opts, notes := skillSetup(cfg)
	path := skillCachePath(cfg, opts)
	load := proc.takeEarlySkillCache(path) // chat's trust question
	if load == nil {
		load = func() loadedSkillCache { return loadSkillCache(path, proc) }
	}
	c := load().open(log)
	opts.Cache, opts.Check = c.cache, c.takeCheck()
	cat := discoverNoting(ctx, cfg, opts, notes, c.hashes)
	c.save()
	return cat
}

// DiscoverUncached runs skill discovery without the parse cache: every
// skill is read and parsed (skills doctor --no-cache).
func DiscoverUncached(ctx context.Context, cfg *config.Config) *skills.Catalog {
	if !cfg.Skills.Enabled {
		return &skills.Catalog{}
	}
	opts, notes := skillSetup(cfg)
	return discoverNoting(ctx, cfg, opts, notes, nil)
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
