package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/termtext"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/skills/watch"
)

// Options are what a command decides about the session it builds.
type Options struct {
	// Approver asks about tool calls that need approval; nil denies them
	// with a message saying how to allow them (unattended runs).
	Approver agent.Approver
	Sink     agent.Sink
	// MaxIterations replaces [agent].max_tool_iterations when positive.
	MaxIterations int
	Log           *slog.Logger
	// Notices receives one line per provider retry or fallback, and the
	// warnings of a resumed session.
	Notices io.Writer
	// Resume names the session to continue; the zero value starts a new
	// one.
	Resume Resume
	// Watch starts the skill watcher for hot reload (chat and run; not
	// a cron job's unattended run).
	Watch bool
	// Process is what the sessions of this process share; nil gives the
	// session its own (see [Process]).
	Process *Process
	// Eval, when set, makes the session one eval run's ([EvalRun]).
	Eval *EvalRun
	// Catalog, when set, is what [Discover] found for this configuration
	// just before (chat's trust question): the session starts from it
	// instead of discovering the same skills again.
	Catalog *skills.Catalog
	// Plan starts the session in plan mode (run --plan; issue 31).
	Plan bool
}

// Resume names the session to continue: the workspace's latest one
// (--continue), or the one whose id or unique id prefix is ID (--resume).
type Resume struct {
	Latest bool
	ID     string
	// ThisWorkspace refuses a session of another workspace: chat's
	// /resume switches among the sessions of the workspace the process
	// runs in ([Session.SwitchTo]).
	ThisWorkspace bool
}

// Process is what the sessions of one process share, and what only the
// program knows. cmd/clawseed's run makes one, passes it in every
// [Options] and waits for it ([Process.Wait]) before exiting; tests set
// its network hooks. It holds no package state: two processes in one
// test binary each have their own.
type Process struct {
	// Version identifies the build (the line of `clawseed version`): it
	// stamps the skill parse cache, so that a rebuilt binary never trusts
	// an older cache.
	Version string
	// ClientVersion is the version MCP servers are told; "" is "dev".
	ClientVersion string
	// Resolve, when set, replaces the DNS lookups of the network tools,
	// and TrustedHosts names the hosts that may resolve to loopback
	// (tools.WebFetchOptions). Only tests set them, so that scripts reach
	// their local page server through the tools' real guard.
	Resolve      func(ctx context.Context, host string) ([]netip.Addr, error)
	TrustedHosts []string

	// background holds work that must finish before the process exits.
	background sync.WaitGroup
	// storage holds the databases the process opened (storage.go).
	storage     processStorage
	actionsOnce sync.Once
	actions     *agent.ActionLimiter
	// gcRestore turns garbage collection back on after the start
	// (startgc.go); nil when DeferGC was not called.
	gcRestore func()
	// early is the skill cache work PrefetchSkills started
	// (skillcache_early.go).
	early atomic.Pointer[earlySkillCache]
}

// Wait waits for the work the process's sessions left running in the
// background (saving the skill parse cache): call it before exiting.
func (p *Process) Wait() {
	if p != nil {
		p.background.Wait()
	}
}

// goBackground runs f in the background, so that the caller does not wait
// for it but the process does ([Process.Wait]); without a Process, it runs
// f at once.
func (p *Process) goBackground(f func()) {
	if p == nil {
		f()
		return
	}
	p.background.Go(f)
}

// actionLimiter returns the process's max_actions_per_hour counter (§9):
// every agent the process builds takes from the one made first, with that
// session's limit, so starting another session does not reset it. nil
// without a Process: the agent counts for itself.
func (p *Process) actionLimiter(max int) *agent.ActionLimiter {
	if p == nil {
		return nil
	}
	p.actionsOnce.Do(func() { p.actions = agent.NewActionLimiter(max, nil) })
	return p.actions
}

// webNet is how the network tools resolve names: the test hooks, or the
// system's resolver.
func (p *Process) webNet() webNet {
	if p == nil {
		return webNet{}
	}
	return webNet{resolve: p.Resolve, trusted: p.TrustedHosts}
}

// version is the build stamp of the skill parse cache.
func (p *Process) version() string {
	if p == nil {
		return ""
	}
	return p.Version
}

// clientVersion is the version MCP servers are told.
func (p *Process) clientVersion() string {
	if p == nil {
		return "dev"
	}
	return cmp.Or(p.ClientVersion, "dev")
}

// Build builds the session cfg describes. Each step uses only what the
// steps before it made (none refers to a value made later: what must reach
// back, the usage of llm_task and the skills' permission check, goes
// through a sink that agent.New connects):
//
//  1. the configuration a session reads, checked before anything starts;
//  2. the provider chain and the summary model (need the resolved
//     provider), and the tool policy;
//  3. the session file (its header names the provider and model);
//  4. the sandboxes: the file tools' and the OS's (need the configuration);
//  5. the MCP servers (need the policy and the OS sandbox), started first
//     so that they start up while skills are discovered;
//  6. what needs no catalog, made while the skill cache is loaded and
//     checked on other cores: memory and the project instructions (need
//     the configuration), the installed plugins, the hook runner (needs
//     the OS sandbox: hook commands run in it), and the tools (need the
//     sandboxes, the model chain, memory and the usage sink);
//  7. the skills: reloader, cache and catalog (need the file sandbox,
//     which they widen to the skill directories), then the subagent
//     definitions (need the catalog's and the installed plugins' folders)
//     and their memories;
//  8. the permission rules (need the tools and the subagents) and the
//     active skill set (needs the catalog, the sandboxes and the session
//     id); then the sandbox probe and the session's TMPDIR are waited for
//     (nothing before runs a command);
//  9. the agent (needs everything above); then the resumed session is put
//     back, or the always-on skills are activated, and the SessionStart
//     hooks run.
//
// Errors are the configuration's (*config.Error, *config.NoProviderError
// and the others of resolving the provider chain) and those of the session
// Options.Resume names: [ErrSessionsDisabled], one that matches
// session.ErrNotFound or session.ErrInUse, the store's
// session.ErrInvalidID and *session.AmbiguousError, a [StoreError].
func Build(ctx context.Context, cfg *config.Config, o Options) (*Session, error) {
	if o.Eval != nil {
		cfg, o = o.Eval.apply(cfg, o)
	}
	resolved, err := checkSession(cfg) // 1
	if err != nil {
		return nil, err
	}
	// The skill cache is loaded and checked on other cores while steps
	// 2-6 run ([prefetchSkillCache]).
	skillCache := prefetchSkillCache(cfg, o.Process, o.Catalog == nil)
	model, err := newModel(cfg, resolved, o.Notices) // 2
	if err != nil {
		return nil, err
	}
	level, err := permissions.ParseLevel(cfg.Autonomy.Level)
	if err != nil {
		return nil, err
	}
	o.Log.Debug("Provider resolved", "provider", resolved.Provider, "model", resolved.Model, "base_url", resolved.BaseURL, "key_source", resolved.KeySource)
	summarizer, summaryModel, err := newSummarizer(cfg, o.Notices)
	if err != nil {
		return nil, err
	}
	_, yes := o.Approver.(YesApprover)
	s := &Session{cfg: cfg, resolved: resolved, notices: o.Notices, proc: o.Process, initial: *resolved, approvesAll: yes}
	s.debug = &debugLog{workspace: cfg.Workspace}
	o.Log = slog.New(teeHandler{next: o.Log.Handler(), debug: s.debug})
	s.bgCtx, s.bgCancel = context.WithCancel(ctx)
	if err := s.open(ctx, o.Resume); err != nil { // 3
		return nil, err
	}
	if s.resumed != nil {
		model = s.restoreModel(model) // the model it last used, unless chosen now
	}
	p := &parts{model: model, level: level, policy: sessionPolicy(cfg, level), summarizer: summarizer, summaryModel: summaryModel, skillCache: skillCache}
	if err := s.start(ctx, o, p); err != nil { // 4-8
		s.Shutdown()
		return nil, err
	}
	s.agent, err = agent.New(s.agentOptions(o, p)) // 9
	if err != nil {
		s.Shutdown()
		return nil, err
	}
	if o.Plan {
		s.agent.SetPlanMode(true)
	}
	if s.resumed != nil {
		// The active skills a resumed session restores may be served by
		// MCP servers: wait for them, as the first request would.
		if p.reloader.mcpChanged(ctx) {
			s.agent.SetCatalog(p.reloader.discover(ctx))
		}
		s.resume(ctx, o.Notices)
		s.agent.SessionStart(ctx, "resume", s.resolved.Model)
		o.Process.startedUp()
		return s, nil
	}
	for _, out := range s.agent.ActivateAlways(ctx) {
		o.Log.Warn("Always-on skill not activated", "reason", out.Text)
	}
	s.agent.SessionStart(ctx, "startup", resolved.Model)
	o.Process.startedUp()
	return s, nil
}

// parts are what Build makes for the agent, in the order it makes them.
type parts struct {
	model        agent.Model
	level        permissions.Level
	policy       permissions.Policy
	summarizer   agent.Model
	summaryModel string
	// skillCache waits for the skill cache file ([prefetchSkillCache]).
	skillCache func(log *slog.Logger) *skillCache
	sb         *tools.Sandbox
	// forbidden is sb's forbidden_paths rule, resolved once for the
	// readers Build makes (settings, subagents, instructions, skills).
	forbidden    confine.Forbidden
	reloader     *skillReloader
	instr        *sessionInstructions
	instrSection string
	usage        *agent.UsageSink
	tools        []agent.Tool
	perms        *agent.SkillPermissions
	active       *skills.ActiveSet
	// extraction waits for the memory extraction (memoryExtractionSoon).
	extraction func() *agent.Extraction
}

// watchAfterFirstEvent is the agent's model: with a skill watcher to
// start, the model that starts it at the first response event.
func (s *Session) watchAfterFirstEvent(p *parts) agent.Model {
	if p.reloader.startWatch == nil {
		return p.model
	}
	return firstEvent{Model: p.model, once: new(sync.Once), started: p.reloader.startWatching}
}

// checkSession checks what a session reads of the configuration before
// anything starts, in the order `config check` does: the provider, every
// ${VAR} of the session's tables, the web tools' tables.
func checkSession(cfg *config.Config) (*config.Resolved, error) {
	resolved, err := cfg.ResolveModel("", probeOllama)
	if err != nil {
		return nil, err
	}
	if err := cfg.UseSession(); err != nil {
		return nil, err
	}
	if err := webConfigError(cfg); err != nil {
		return nil, err
	}
	return resolved, nil
}

// Check evaluates every value a session would use, the way [Build] does.
// Having no provider yet is not a configuration error (the environment can
// supply one at run time): it is returned apart, when the rest is valid.
func Check(cfg *config.Config) (*config.NoProviderError, error) {
	err := cfg.CheckSession(probeOllama)
	var np *config.NoProviderError
	if err != nil && !errors.As(err, &np) {
		return nil, err
	}
	if err := webConfigError(cfg); err != nil {
		return nil, err
	}
	return np, nil
}

// sessionPolicy is the tool policy of the configuration at level.
func sessionPolicy(cfg *config.Config, level permissions.Level) permissions.Policy {
	return permissions.Policy{
		Level:       level,
		Allowed:     cfg.Agent.AllowedTools,
		Denied:      cfg.Agent.DeniedTools,
		AutoApprove: cfg.Autonomy.AutoApprove,
		AlwaysAsk:   cfg.Autonomy.AlwaysAsk,
		// Which calls are sandboxed is the tools' to say (SandboxMode):
		// with the sandbox off or unavailable, none is.
		AutoApproveSandboxed: cfg.Autonomy.AutoApproveSandboxed,
	}
}

// start makes steps 4 to 8 of [Build] into s and p.
func (s *Session) start(ctx context.Context, o Options, p *parts) error {
	cfg := s.cfg
	// 4. The sandboxes, and Claude Code's settings files (they are read
	// with the sandbox's forbidden_paths). The machine's probe starts
	// first: it runs while the rest of the session is made.
	box := probeSoon(cfg)
	p.sb = newSandbox(cfg, &skills.Catalog{})
	// The forbidden_paths rule, resolved once for the readers below.
	p.forbidden = p.sb.ForbiddenRule()
	s.sb = p.sb
	s.settings = readClaudeSettings(cfg, cfg.Trusted, p.forbidden)
	s.conf = newConfinementIn(cfg, p.sb.Control, box, p.forbidden)
	s.conf.prepareSoon() // waited for at the end of step 8
	// 5. MCP servers start first: their processes start up while skills
	// are discovered.
	// They do not wait for the session's TMPDIR (prepareSoon): each server
	// gets its own state folder as TMPDIR, and prepareMCP waits for the
	// sandbox probe. Should the TMPDIR fail, Build fails at step 8 and its
	// Shutdown stops the servers already started.
	s.mcp = startMCP(ctx, cfg, mcpVisible(p.policy), s.conf.prepareMCP, o.Process.clientVersion(), o.Log)
	// 6. What needs no catalog is made while the skill cache is loaded
	// and checked on the other cores ([prefetchSkillCache]): memory, the
	// project instructions, the plugins installed with Claude Code (their
	// skills are among the roots of step 7; kept for their hooks and
	// agents), the hooks (need the OS sandbox), and the tools, with the
	// sink of llm_task's usage, which agent.New connects.
	s.memory = sessionMemory(ctx, cfg, o.Process, o.Log)
	p.extraction = memoryExtractionSoon(cfg, p.sb.Control, s.memory, cfg.Agent.MaxToolOutputChars, o.Log)
	p.instr = newSessionInstructions(cfg, p.forbidden, o.Notices)
	p.instrSection = p.instr.section(ctx)
	s.instr = p.instr
	s.plugins = installedPlugins(cfg, func(msg string) {
		if o.Notices != nil {
			fmt.Fprintln(o.Notices, "clawseed: warning: "+termtext.EscapeLine(msg))
		}
	})
	if o.Eval == nil {
		s.hooks = newHookRunner(cfg, s.settings, s.conf, o.Process.webNet(), o.Notices)
	}
	s.hookSession()
	p.usage = &agent.UsageSink{}
	p.tools = buildTools(toolEnv{
		cfg: cfg, sb: p.sb, conf: s.conf, model: p.model, modelName: s.resolved.Model, notices: o.Notices,
		usage: p.usage, memory: s.memory, proc: o.Process,
	})
	// 7. Skills. What the first request needs and does not depend on them
	// is prepared before waiting for the cache: the built-in skills,
	// parsed, and the session record's encoders.
	p.reloader = &skillReloader{cfg: cfg, sb: p.sb, mcp: s.mcp}
	if builtinsOn(cfg) {
		p.reloader.builtins = skills.ParseBuiltins()
	}
	session.PrepareEncoding()
	p.reloader.cache = p.skillCache(o.Log)
	began := time.Now()
	p.reloader.edit = o.Eval.catalog // an eval run's catalog: EvalRun
	if o.Catalog != nil {
		s.catalog = p.reloader.adopt(o.Catalog, skillOptions(cfg))
		o.Log.Debug("Skills taken from the trust question", "skills", len(s.catalog.Skills))
	} else {
		s.catalog = p.reloader.discover(ctx)
		o.Log.Debug("Skills discovered", "skills", len(s.catalog.Skills), "diagnostics", len(s.catalog.Diagnostics),
			"cached", p.reloader.cache.cache.Len(), "took", time.Since(began))
	}
	if o.Watch {
		p.reloader.startWatch = func(roots []skills.Root) *watch.Watcher { return watchSkills(ctx, cfg, roots, o.Log) }
	}
	// Subagent definitions, with the plugins' agents/ folders; fixed for
	// the session; and their memories.
	s.subagents = loadSubagents(ctx, agentFolders(cfg, s.catalog), p.forbidden)
	s.agentMemory = newSubagentMemories(cfg, o.Process, s.memory, s.subagents)
	// 8. The permission rules, with the tools they name, and the active
	// set, with the permission check that agent.New connects.
	s.perms = sessionPermissions(cfg, s.settings, visibleTools(cfg, p.policy, p.tools, s.subagents))
	s.perms.notify(o.Notices)
	p.perms = &agent.SkillPermissions{}
	p.active = skills.NewActiveSet(skills.ActiveConfig{
		Enabled:          cfg.Skills.Enabled,
		MaxActive:        cfg.Skills.MaxActive,
		Excluded:         cfg.Skills.Excluded,
		CheckPermissions: p.perms.Check,
		Load: func(sk *skills.Skill) (*skills.Skill, error) {
			return skills.Reread(sk, int64(cfg.Skills.MaxSkillFileBytes))
		},
		SessionID:          s.sessionID,
		Workspace:          cfg.Workspace,
		DynamicContext:     cfg.Skills.DynamicContext,
		UntrustedWorkspace: !cfg.Trusted,
		Forbidden:          p.forbidden,
		RunCommand:         dynamicRunner(cfg, p.sb, s.conf),
	}, s.catalog)
	// The probe and the session's TMPDIR (step 4), before anything that
	// may run a command: the always-on skills' dynamic context and the
	// SessionStart hooks (step 9). Waited for last, it has had the whole
	// start to finish.
	return s.conf.ready()
}

// agentOptions are the agent's options: step 9 of [Build].
func (s *Session) agentOptions(o Options, p *parts) agent.Options {
	cfg, resolved := s.cfg, s.resolved
	temp := resolved.Temperature
	maxIter := cfg.Agent.MaxToolIterations
	if o.MaxIterations > 0 {
		maxIter = o.MaxIterations
	}
	refreshInstructions, nestedInstructions := p.instr.agentHooks()
	var toolSource agent.ToolSource
	if s.mcp != nil {
		toolSource = &mcpSource{m: s.mcp, notices: o.Notices}
	}
	return agent.Options{
		Model:           s.watchAfterFirstEvent(p),
		ModelName:       resolved.Model,
		MaxTokens:       resolved.MaxTokens,
		Temperature:     &temp,
		ReasoningEffort: resolved.ReasoningEffort,
		TextTools:       !resolved.NativeTools,
		Vision:          resolved.Vision,
		Tools:           p.tools,
		Deferred:        cfg.Agent.DeferredTools,
		ToolSource:      toolSource,
		Policy:          p.policy,
		Approver:        o.Approver,
		Hooks:           s.hooks,
		Prompt: agent.PromptConfig{
			SystemPrompt: cfg.Agent.SystemPrompt,
			Workspace:    cfg.Workspace,
			Autonomy:     p.level,
			Identity:     identityFiles(cfg, p.sb, o.Notices),
			Instructions: p.instrSection,
		},
		RefreshInstructions:  refreshInstructions,
		NestedInstructions:   nestedInstructions,
		NestedSkills:         p.reloader.nestedSkills,
		Planning:             o.Eval == nil, // todo_write, plan mode
		Skills:               p.active,
		SkillsEnabled:        cfg.Skills.Enabled,
		SkillPermissions:     p.perms,
		IndexBudget:          skills.IndexBudget(resolved.ContextWindow, cfg.Skills.IndexBudgetPercent),
		ForkModel:            s.forkModel,
		SkillShell:           newSkillShell(cfg, p.sb, s.conf),
		ForkMaxIterations:    cfg.Skills.ForkMaxIterations,
		Subagents:            s.subagents,
		MaxParallelSubagents: cfg.Agent.MaxParallelSubagents,
		Worktree:             s.worktreeMaker(p),
		SubagentMemory:       s.agentMemory.forAgent(),
		UntrustedWorkspace:   !cfg.Trusted,
		Rules:                s.perms.rules,
		RuleBases:            s.perms.bases,
		PathForms:            p.sb.PathForms,
		ShellLine: func(line, dir string) *permissions.ShellLine {
			return tools.ShellLine(line, p.sb, dir)
		},
		ControlPath: p.sb.Control.Match,
		Rediscover: func(ctx context.Context) (*skills.Catalog, error) {
			p.reloader.waitMCP(ctx)
			return p.reloader.discover(ctx), nil
		},
		Reload:             p.reloader.reload,
		Memory:             memoryIndex(s.memory),
		MemoryDailyLog:     cfg.Memory.Mode == config.MemoryModeDailyLog,
		Recall:             autoRecall(cfg, s.memory, s.agentMemory, s.recallModel(o, p)),
		Extraction:         p.extraction(),
		MaxIterations:      maxIter,
		ParallelTools:      cfg.Agent.ParallelTools,
		ToolTimeout:        cfg.Agent.ToolTimeout(),
		MaxToolOutputChars: cfg.Agent.MaxToolOutputChars,
		MaxActionsPerHour:  cfg.Autonomy.MaxActionsPerHour,
		Actions:            o.Process.actionLimiter(cfg.Autonomy.MaxActionsPerHour),
		ContextWindow:      resolved.ContextWindow,
		CompactAtPercent:   cfg.Context.CompactAtPercent,
		KeepRecentTokens:   cfg.Context.KeepRecentTokens,
		Usage:              p.usage,
		Summarizer:         p.summarizer,
		SummaryModelName:   p.summaryModel,
		SummaryEveryTokens: cfg.SessionMemoryEvery(),
		Background:         s.background,
		Recorder:           s.recorder(),
		SessionID:          s.sessionID,
		Sink:               s.debug.sink(o.Sink, func() string { return s.sessionID }, activeBuiltin(p.active), s.notice),
	}
}
