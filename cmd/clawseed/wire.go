package main

// wire.go is the only place that knows the concrete types: it turns the
// resolved configuration into a provider, the tools, the skill catalog and an
// agent.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/mcp"
	"github.com/clawseed/clawseed/runtime/memory"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/skills/watch"
)

// loadConfig loads the layered configuration and applies the global flags.
// Every failure is a usage error (exit 2) naming the file, line and key.
func loadConfig(g *globalOptions) (*config.Config, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, usageError(fmt.Errorf("current directory: %w", err))
	}
	home, _ := os.UserHomeDir()
	cfg, err := config.Load(config.LoadOptions{
		ConfigFile: g.ConfigFile,
		Workspace:  g.Workspace,
		Getenv:     os.Getenv,
		LookupEnv:  os.LookupEnv,
		Cwd:        cwd,
		Home:       home,
		Trusted:    workspaceTrusted(g, os.Stderr, clawseedHomeFor(cwd, home)),
	})
	if err != nil {
		return nil, usageError(err)
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(os.Stderr, "clawseed: warning: "+termtext.EscapeLine(w))
	}
	o := config.Overrides{Provider: g.Provider, Model: g.Model, SystemPrompt: g.SystemPrompt, Autonomy: g.Autonomy, NoSandbox: g.NoSandbox}
	if g.temperatureSet {
		t := g.Temperature
		o.Temperature = &t
	}
	if err := cfg.Apply(o); err != nil {
		return nil, usageError(err)
	}
	return cfg, nil
}

// newLogger returns the debug logger of -v, or one that discards.
func newLogger(g *globalOptions, stderr io.Writer) *slog.Logger {
	if !g.Verbose {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// home returns the user's home directory ("" when unknown).
func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
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

// discover runs skill discovery through the cache file, or without it when
// noCache is set; an empty catalog when skills are disabled.
func discover(ctx context.Context, cfg *config.Config, noCache bool, log *slog.Logger) *skills.Catalog {
	if !cfg.Skills.Enabled {
		return &skills.Catalog{}
	}
	if noCache {
		return skills.Discover(ctx, skillOptions(cfg))
	}
	return discoverCached(ctx, cfg, log)
}

// newSandbox confines the file tools to the workspace, plus reads of the
// catalog's skill directories and of the memory directory. Whole skill roots are not readable: only the
// directories discovery accepted as skills, so neither a root that is a link
// elsewhere nor a stray file beside the skills widens what the model reads.
func newSandbox(cfg *config.Config, cat *skills.Catalog) *tools.Sandbox {
	sb := &tools.Sandbox{Workspace: cfg.Workspace, Forbidden: cfg.Autonomy.ForbiddenPaths, Home: homeDir(), SkillDirs: &tools.DirSet{}, Control: controlPaths(cfg)}
	if cfg.Memory.Enabled {
		// §8: memory files are readable by file_read (never writable by it:
		// memory_store keeps MEMORY.md consistent with them).
		sb.ReadRoots = []string{cfg.MemoryDir()}
	}
	sb.SkillDirs.Replace(skillReadDirs(cat))
	return sb
}

// skillReadDirs returns the directories of the catalog's on-disk skills.
// A command's folder is not one of them: the command is its one file, whose
// body is in the prompt, and ~/.claude/commands may hold anything.
func skillReadDirs(cat *skills.Catalog) []tools.ReadDir {
	dirs := make([]tools.ReadDir, 0, len(cat.Skills))
	for _, s := range cat.Skills {
		if s.Dir != "" && s.RealDir != "" && !s.Command {
			dirs = append(dirs, tools.ReadDir{Path: s.Dir, Real: s.RealDir})
		}
	}
	return dirs
}

// processActions is the process's max_actions_per_hour counter (§9): every
// agent this process builds (the session's, cron jobs run while chat is
// open) takes from the one made first.
func processActions(n int) *agent.ActionLimiter {
	actionsOnce.Do(func() { actionLimiter = agent.NewActionLimiter(n, nil) })
	return actionLimiter
}

var (
	actionsOnce   sync.Once
	actionLimiter *agent.ActionLimiter
)

// probeOllama reports whether something answers on Ollama's port.
func probeOllama() bool {
	conn, err := net.DialTimeout("tcp", "127.0.0.1:11434", 300*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// app is a wired session: the agent and what the UI shows about it.
type app struct {
	cfg       *config.Config
	resolved  *config.Resolved
	agent     *agent.Agent
	catalog   *skills.Catalog
	sessionID string
	// store is nil when [sessions].enabled is false; writer is then nil too.
	store  *session.Store
	writer *session.Writer
	// resumed is the session loaded by --continue/--resume, nil for a new one.
	resumed *session.Session
	// notices receives retry and fallback lines (also of a model switched to).
	notices io.Writer
	// memory is the session's memory store, nil when [memory] is off.
	memory *memory.Store
	// mcp runs the session's MCP servers, nil when none are configured.
	mcp *mcp.Manager
	// conf is the session's OS sandbox.
	conf *confinement
}

// recorder returns the writer as an agent.Recorder, nil (not a typed nil)
// when sessions are off.
func (a *app) recorder() agent.Recorder {
	if a.writer == nil {
		return nil
	}
	return a.writer
}

// newSession closes the current session file and starts a new session
// (/clear): the id comes first, so the always-on skills that Agent.Reset
// activates again substitute the new ${CLAWSEED_SESSION_ID}.
func (a *app) newSession(ctx context.Context) string {
	a.Close()
	a.sessionID = session.NewID(time.Now())
	a.resumed = nil
	if set := a.agent.Skills(); set != nil {
		set.SetSessionID(a.sessionID)
	}
	a.agent.SetSessionID(a.sessionID)
	a.agent.Reset(ctx)
	if a.store != nil {
		a.writer = a.store.Create(a.header())
	}
	a.agent.SetRecorder(a.recorder())
	return a.sessionID
}

func (a *app) header() session.Header {
	return session.Header{ID: a.sessionID, Workspace: a.cfg.Workspace, Provider: a.resolved.Provider, Model: a.resolved.Model, Trust: trustWord(a.cfg.Trusted)}
}

// shutdown closes the session file, stops the MCP servers and closes the
// memory index: the end of the process's session (Close alone is also
// /clear's). The app owns the memory store it opened: closing its database
// is what removes index.db-wal and index.db-shm.
func (a *app) shutdown() error {
	if a.mcp != nil {
		a.mcp.Close()
		a.mcp = nil
	}
	var memErr, tmpErr error
	if a.memory != nil {
		memErr = a.memory.Close()
	}
	if a.conf != nil {
		tmpErr = a.conf.close()
	}
	return errors.Join(a.Close(), memErr, tmpErr)
}

// Close flushes and closes the session file.
func (a *app) Close() error {
	if a.writer == nil {
		return nil
	}
	err := a.writer.Close()
	a.writer = nil
	return err
}

// sessionFlags are the --continue and --resume flags of chat and run.
type sessionFlags struct {
	Continue bool
	Resume   string
}

func (f *sessionFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.Continue, "continue", "c", false, "resume the latest session of this workspace")
	cmd.Flags().StringVar(&f.Resume, "resume", "", "resume session `ID` (or a unique prefix; see clawseed sessions list)")
	cmd.MarkFlagsMutuallyExclusive("continue", "resume")
}

// openSession picks the session to resume (none without the flags) and
// opens its file for appending, or prepares a new one. Asking to resume with
// sessions disabled, or a session that does not exist, is a usage error.
func (a *app) openSession(f sessionFlags) error {
	if a.cfg.Sessions.Enabled {
		a.store = &session.Store{Dir: a.cfg.SessionsDir()}
	}
	if !f.Continue && f.Resume == "" {
		a.sessionID = session.NewID(time.Now())
		if a.store != nil {
			a.writer = a.store.Create(a.header())
		}
		return nil
	}
	if a.store == nil {
		return usageError(errors.New("sessions are disabled ([sessions].enabled = false), so there is nothing to resume"))
	}
	var id string
	var err error
	if f.Continue {
		id, err = a.store.Latest(a.cfg.Workspace)
		if errors.Is(err, session.ErrNotFound) {
			return usageError(fmt.Errorf("no session to continue in %s (clawseed sessions list --all shows every session)", a.cfg.Workspace))
		}
	} else if id, err = resolveSession(a.store, f.Resume); err != nil {
		return err
	}
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	w, sess, err := a.store.Open(id)
	if errors.Is(err, session.ErrInUse) {
		return usageError(fmt.Errorf("session %s is open in another clawseed process; finish it there, or start a new session (without --continue/--resume)", id))
	}
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("resume session %s: %w", id, err)}
	}
	a.sessionID, a.writer, a.resumed = id, w, sess
	return nil
}

// appOptions are the per-command parts of wiring.
type appOptions struct {
	Approver      agent.Approver
	Sink          agent.Sink
	MaxIterations int
	Log           *slog.Logger
	// Notices receives one line per provider retry or fallback, and the
	// warnings of a resumed session.
	Notices io.Writer
	Session sessionFlags
	// Watch starts the skill watcher for hot reload (chat and run; not
	// a cron job's unattended run).
	Watch bool
}

// buildApp resolves the provider and builds the agent with its tools and
// skills. Configuration problems are usage errors (exit 2).
func buildApp(ctx context.Context, cfg *config.Config, o appOptions) (*app, error) {
	resolved, err := cfg.ResolveModel("", probeOllama)
	if err != nil {
		return nil, usageError(err)
	}
	if err := cfg.UseSession(); err != nil {
		return nil, usageError(err)
	}
	if err := webConfigError(cfg); err != nil {
		return nil, usageError(err)
	}
	model, err := newModel(cfg, resolved, o.Notices)
	if err != nil {
		return nil, usageError(err)
	}
	level, err := permissions.ParseLevel(cfg.Autonomy.Level)
	if err != nil {
		return nil, usageError(err)
	}
	o.Log.Debug("Provider resolved", "provider", resolved.Provider, "model", resolved.Model, "base_url", resolved.BaseURL, "key_source", resolved.KeySource)

	summarizer, summaryModel, err := newSummarizer(cfg, o.Notices)
	if err != nil {
		return nil, usageError(err)
	}
	a := &app{cfg: cfg, resolved: resolved, notices: o.Notices}
	if err := a.openSession(o.Session); err != nil {
		return nil, err
	}
	policy := permissions.Policy{
		Level:       level,
		Allowed:     cfg.Agent.AllowedTools,
		Denied:      cfg.Agent.DeniedTools,
		AutoApprove: cfg.Autonomy.AutoApprove,
		AlwaysAsk:   cfg.Autonomy.AlwaysAsk,
		// Which calls are sandboxed is the tools' to say (SandboxMode):
		// with the sandbox off or unavailable, none is.
		AutoApproveSandboxed: cfg.Autonomy.AutoApproveSandboxed,
	}
	sb := newSandbox(cfg, &skills.Catalog{})
	a.conf = newConfinement(cfg, sb.Control)
	if err := a.conf.makeTemp(); err != nil {
		a.shutdown()
		return nil, err
	}
	// MCP servers start first: their processes start up while skills are
	// discovered.
	a.mcp = startMCP(ctx, cfg, mcpVisible(policy), a.conf.prepareMCP, o.Log)
	reloader := &skillReloader{cfg: cfg, sb: sb, cache: openSkillCache(cfg, skillOptions(cfg), o.Log)}
	began := time.Now()
	a.catalog = reloader.discover(ctx)
	o.Log.Debug("Skills discovered", "skills", len(a.catalog.Skills), "diagnostics", len(a.catalog.Diagnostics),
		"cached", reloader.cache.cache.Len(), "took", time.Since(began))
	if o.Watch {
		reloader.startWatch = func() *watch.Watcher { return watchSkills(ctx, cfg, o.Log) }
	}

	toolTimeout := cfg.Agent.ToolTimeout()
	mem, err := sessionMemory(ctx, cfg, o.Log)
	if err != nil {
		a.shutdown()
		return nil, err
	}
	a.memory = mem
	usage := &agent.UsageSink{}
	agentTools := buildTools(toolEnv{
		cfg: cfg, sb: sb, conf: a.conf, model: model, modelName: resolved.Model, notices: o.Notices,
		usage: usage, memory: mem,
	})

	var toolSource agent.ToolSource
	if a.mcp != nil {
		toolSource = &mcpSource{m: a.mcp, notices: o.Notices}
	}
	perms := &agent.SkillPermissions{}
	active := skills.NewActiveSet(skills.ActiveConfig{
		Enabled:          cfg.Skills.Enabled,
		MaxActive:        cfg.Skills.MaxActive,
		Excluded:         cfg.Skills.Excluded,
		CheckPermissions: perms.Check,
		Load: func(s *skills.Skill) (*skills.Skill, error) {
			return skills.Reread(s, int64(cfg.Skills.MaxSkillFileBytes))
		},
		SessionID:          a.sessionID,
		Workspace:          cfg.Workspace,
		DynamicContext:     cfg.Skills.DynamicContext,
		UntrustedWorkspace: !cfg.Trusted,
		Forbidden:          sb.ForbiddenRule(),
		RunCommand:         dynamicRunner(cfg, sb, a.conf),
	}, a.catalog)

	temp := resolved.Temperature
	maxIter := cfg.Agent.MaxToolIterations
	if o.MaxIterations > 0 {
		maxIter = o.MaxIterations
	}
	ag, err := agent.New(agent.Options{
		Model:           model,
		ModelName:       resolved.Model,
		MaxTokens:       resolved.MaxTokens,
		Temperature:     &temp,
		ReasoningEffort: resolved.ReasoningEffort,
		TextTools:       !resolved.NativeTools,
		Tools:           agentTools,
		ToolSource:      toolSource,
		Policy:          policy,
		Approver:        o.Approver,
		Prompt: agent.PromptConfig{
			SystemPrompt: cfg.Agent.SystemPrompt,
			Workspace:    cfg.Workspace,
			Autonomy:     level,
			Identity:     identityFiles(cfg, sb, o.Notices),
		},
		Skills:             active,
		SkillsEnabled:      cfg.Skills.Enabled,
		SkillPermissions:   perms,
		IndexBudget:        skills.IndexBudget(resolved.ContextWindow, cfg.Skills.IndexBudgetPercent),
		ForkModel:          a.forkModel,
		SkillShell:         newSkillShell(cfg, sb, a.conf),
		ForkMaxIterations:  cfg.Skills.ForkMaxIterations,
		UntrustedWorkspace: !cfg.Trusted,
		ControlPath:        sb.Control.Match,
		Rediscover: func(ctx context.Context) (*skills.Catalog, error) {
			return reloader.discover(ctx), nil
		},
		Reload:             reloader.reload,
		Memory:             memoryIndex(mem),
		Recall:             autoRecall(cfg, mem),
		MaxIterations:      maxIter,
		ParallelTools:      cfg.Agent.ParallelTools,
		ToolTimeout:        toolTimeout,
		MaxToolOutputChars: cfg.Agent.MaxToolOutputChars,
		MaxActionsPerHour:  cfg.Autonomy.MaxActionsPerHour,
		Actions:            processActions(cfg.Autonomy.MaxActionsPerHour),
		ContextWindow:      resolved.ContextWindow,
		CompactAtPercent:   cfg.Context.CompactAtPercent,
		KeepRecentTokens:   cfg.Context.KeepRecentTokens,
		Usage:              usage,
		Summarizer:         summarizer,
		SummaryModelName:   summaryModel,
		Recorder:           a.recorder(),
		SessionID:          a.sessionID,
		Sink:               o.Sink,
	})
	if err != nil {
		a.shutdown()
		return nil, err
	}
	a.agent = ag
	if a.resumed != nil {
		a.restore(ctx, o.Notices)
		return a, nil
	}
	for _, out := range ag.ActivateAlways(ctx) {
		o.Log.Warn("Always-on skill not activated", "reason", out.Text)
	}
	return a, nil
}

// restore puts the resumed session into the agent and reports what could not
// be restored as it was.
func (a *app) restore(ctx context.Context, notices io.Writer) {
	s := a.resumed
	diags := a.agent.Resume(ctx, s.Messages, s.Skills, s.UsageByModel, s.Recalled)
	if a.mcp != nil {
		// Deferred MCP tools the session had called are in its tools
		// array again, in the order first called.
		var called []string
		for _, m := range s.Messages {
			for _, c := range m.ToolCalls() {
				if strings.HasPrefix(c.Name, mcp.Prefix) {
					called = append(called, c.Name)
				}
			}
		}
		a.mcp.Prefound(called)
	}
	if notices == nil {
		return
	}
	for _, w := range s.Warnings {
		fmt.Fprintln(notices, "warning: "+termtext.Escape(w))
	}
	for _, d := range diags {
		fmt.Fprintln(notices, "warning: "+termtext.Escape(d.Message))
	}
	for _, act := range a.agent.Skills().List() {
		if a.agent.Skills().ChangedOnDisk(act.Skill.Name) {
			fmt.Fprintf(notices, "note: skill %s changed on disk since the session was saved; its current text is active\n", termtext.EscapeLine(act.Skill.Name))
		}
	}
}
