// Package config owns clawseed's configuration: the config.toml schema and its
// defaults, discovery of the user and project files, per-key layering of files,
// environment and flags, strict decoding (unknown keys and wrong types are
// errors naming file, line and key), ${VAR} expansion, the one resolved
// workspace path, the provider presets, and model resolution (which preset,
// model, key and endpoint a session uses).
//
// Nothing here writes files: `clawseed config init` writes the embedded
// config.toml.example itself.
package config

// Config is the effective configuration. The exported fields with toml tags
// mirror config.toml; the rest are resolved by [Load].
type Config struct {
	// WorkspaceDir is the workspace_dir key. After [Load] it holds the same
	// resolved path as Workspace.
	WorkspaceDir string    `toml:"workspace_dir"`
	Providers    Providers `toml:"providers"`
	Agent        Agent     `toml:"agent"`
	// Dirs is the [workspace] table.
	Dirs        WorkspaceDirs `toml:"workspace"`
	Skills      Skills        `toml:"skills"`
	Autonomy    Autonomy      `toml:"autonomy"`
	Permissions Permissions   `toml:"permissions"`
	Sandbox     Sandbox       `toml:"sandbox"`
	Context     Context       `toml:"context"`
	Sessions    Sessions      `toml:"sessions"`
	Storage     Storage       `toml:"storage"`
	Memory      Memory        `toml:"memory"`

	Instructions Instructions `toml:"instructions"`

	WebFetch    WebFetch    `toml:"web_fetch"`
	WebSearch   WebSearch   `toml:"web_search"`
	HTTPRequest HTTPRequest `toml:"http_request"`
	Backup      Backup      `toml:"backup"`
	Cron        Cron        `toml:"cron"`
	MCP         MCP         `toml:"mcp"`
	Serve       Serve       `toml:"serve"`

	// Workspace is the absolute, cleaned, symlink-resolved workspace
	// directory: the one path every component uses.
	Workspace string `toml:"-"`
	// Home is the resolved CLAWSEED_HOME (default ~/.clawseed). It need not
	// exist.
	Home string `toml:"-"`
	// Files lists the config files read, in layer order.
	Files []string `toml:"-"`
	// ModelOverride is the model named by --model or CLAWSEED_MODEL; it
	// replaces the model of the default selection (see [Config.ResolveModel]).
	ModelOverride string `toml:"-"`
	// TemperatureOverride comes from --temperature or CLAWSEED_TEMPERATURE
	// and applies like ModelOverride.
	TemperatureOverride *float64 `toml:"-"`
	// Trusted is the trust decision [Load] made for the workspace (§9.1):
	// true when LoadOptions.Trusted is nil or says so. It is asked whether
	// or not the workspace has a project file: its skills are project input
	// too. When false, the project file could only lower privileges (see
	// projectRules), no project MCP server starts, and project skills run
	// no command unasked.
	Trusted bool `toml:"-"`
	// TrustChanged says why a workspace the user trusted is not trusted
	// now: which of its project files changed since (trust.Verdict.Reason);
	// "" when trusted or never trusted.
	TrustChanged string `toml:"-"`
	// Bare is --bare: no automatic discovery (no skill roots but managed
	// ones, --add-dir and --skill; no identity or instruction files, no
	// project MCP server, no Claude Code plugins, no nested skill
	// folders). Set by [Config.Apply].
	Bare bool `toml:"-"`
	// SkillPaths are the --skill PATH flags: a skill folder, or a folder
	// of skills, each a root of its own ([Config.ExplicitSkills]).
	SkillPaths []string `toml:"-"`
	// Ignored lists what an untrusted project file set and did not get, in
	// file order, each key once.
	Ignored []Ignored `toml:"-"`
	// Warnings are project files that were skipped unread (see
	// readProjectFile), one sentence each, for stderr.
	Warnings []string `toml:"-"`
	// Hooks are the [[hooks.EVENT]] tables of every file read, in layer
	// order (hooks.go); an untrusted project file's are in Ignored instead.
	Hooks []HookEntry `toml:"-"`

	userHome    string
	lookupEnv   func(string) (string, bool)
	trusted     func(workspace string) (bool, string) // LoadOptions.Trusted
	projectFile string                                // the project file read, "" when none
	trustAsked  bool                                  // Trusted was decided (asked at most once)
	mcp         mcpState                              // what [Config.MCPServers] adds to MCP.Servers
	sources     map[string]origin                     // dotted key → the layer that set it
	unresolved  map[string]unresolved                 // dotted key → the ${VAR} that was unset
	merged      map[string]bool                       // restriction lists an untrusted project file added to
	// droppedModels are the model entries an untrusted project file
	// defined, removed before it was applied (dropModelEntries).
	droppedModels []string
	// refused is what a trusted project file set that no project file
	// may (narrowSandbox), for Show.
	refused []Ignored
	// permissionRules are the [permissions] entries of every file, each
	// with the file that set it (permissions.go).
	permissionRules []PermissionRule
}

// Providers is the [providers] table.
type Providers struct {
	// Default names a [providers.models.NAME] entry or a preset; "" means
	// auto-detect. ClawSeed's `fallback = "name"` is read into it.
	Default string `toml:"default"`
	// Fallbacks are tried in order when the default fails with a retryable
	// error.
	Fallbacks []string `toml:"fallbacks"`
	// MaxRetries is per provider, for transient and rate-limit errors.
	MaxRetries int `toml:"max_retries"`
	// MaxRetryWaitSecs is the longest Retry-After honoured; a provider that
	// asks for longer is given up for the next fallback. See
	// [Providers.MaxRetryWait].
	MaxRetryWaitSecs int `toml:"max_retry_wait_secs"`
	// Models are the named model entries.
	Models map[string]ModelEntry `toml:"models"`
}

// ModelEntry is one [providers.models.NAME] table.
type ModelEntry struct {
	// Provider is a preset name (see [Presets]); "" means the entry's NAME.
	Provider string `toml:"provider"`
	// Model is the model id; "" means the preset's default model.
	Model string `toml:"model"`
	// APIKey overrides the preset's key environment variable.
	APIKey string `toml:"api_key"`
	// BaseURL overrides the preset's endpoint.
	BaseURL string `toml:"base_url"`
	// MaxTokens caps output tokens; 0 means the preset default.
	MaxTokens int `toml:"max_tokens"`
	// Temperature is the sampling temperature, 0 to 2.
	Temperature float64 `toml:"temperature"`
	// ContextWindow in tokens; 0 means the known value for the model, else
	// 128000.
	ContextWindow int `toml:"context_window"`
	// TimeoutSecs bounds one request; [Resolved].Timeout is the Duration.
	TimeoutSecs int `toml:"timeout_secs"`
	// ExtraHeaders are sent with every request.
	ExtraHeaders map[string]string `toml:"extra_headers"`
	// NativeTools false selects the text tool-call protocol.
	NativeTools bool `toml:"native_tools"`
	// ReasoningEffort is passed to models that accept it.
	ReasoningEffort string `toml:"reasoning_effort"`
	// Wire picks the API of an OpenAI-wire entry: [APIChat] or
	// [APIResponses]; "" means the preset's ([Preset].API). An Anthropic
	// entry takes no value.
	Wire string `toml:"wire"`
	// Price overrides the built-in price list for the entry's model; nil
	// (also `price = {}`) means the list's price (see [Config.Prices]).
	Price *PriceEntry `toml:"price"`
	// Vision says whether the model accepts images (chat's @file.png,
	// run --image, file_read of an image); nil means the known value for
	// the model ([ModelVision]), which is false for models clawseed does
	// not know: a model without vision gets a clear error, not an image.
	Vision *bool `toml:"vision"`
}

// DefaultDeferredTools returns [agent].deferred_tools by default: the
// tools a session rarely needs (jobs, backups, the knowledge graph, memory
// export and purge, side requests, PDFs, arithmetic), 5.5 KB of schemas
// that would otherwise travel with every request.
func DefaultDeferredTools() []string {
	return []string{
		"backup", "calculator",
		"cron_add", "cron_list", "cron_remove", "cron_run", "cron_runs", "cron_update",
		"knowledge", "llm_task", "memory_export", "memory_purge", "pdf_read",
	}
}

// Agent is the [agent] table.
type Agent struct {
	SystemPrompt      string `toml:"system_prompt"`
	MaxToolIterations int    `toml:"max_tool_iterations"`
	ParallelTools     int    `toml:"parallel_tools"`
	// ToolTimeoutSecs bounds one tool call; see [Agent.ToolTimeout].
	ToolTimeoutSecs    int      `toml:"tool_timeout_secs"`
	MaxToolOutputChars int      `toml:"max_tool_output_chars"`
	AllowedTools       []string `toml:"allowed_tools"`
	DeniedTools        []string `toml:"denied_tools"`
	// DeferredTools are registered tools whose schemas stay out of the
	// tools array until the model finds them with tool_search, calls them,
	// or a skill that needs them activates (issue 28): rarely used tools,
	// so the array every request carries stays small.
	DeferredTools []string `toml:"deferred_tools"`
	// MaxParallelSubagents is how many Agent calls of one response run
	// at once.
	MaxParallelSubagents int `toml:"max_parallel_subagents"`
}

// Skills is the [skills] table.
type Skills struct {
	Enabled            bool     `toml:"enabled"`
	MaxActive          int      `toml:"max_active"`
	Excluded           []string `toml:"excluded"`
	ExtraRoots         []string `toml:"extra_roots"`
	IndexBudgetPercent float64  `toml:"index_budget_percent"`
	MaxSkillFileBytes  int      `toml:"max_skill_file_bytes"`
	// DynamicContext is "off", "trusted" or "all".
	DynamicContext string `toml:"dynamic_context"`
	Watch          bool   `toml:"watch"`
	// ForkMaxIterations bounds the sub-agent of a `context: fork` skill.
	ForkMaxIterations int `toml:"fork_max_iterations"`
	// ClaudePlugins reads the plugins installed with Claude Code
	// (~/.claude/plugins/installed_plugins.json); false leaves them out.
	ClaudePlugins bool `toml:"claude_plugins"`
	// RequireLock hides the project skills that .clawseed/skills.lock does
	// not name (`skills add` writes it); user and built-in skills are not
	// affected.
	RequireLock bool `toml:"require_lock"`
	// Builtins lists the skills bundled in the binary (skill-creator,
	// simplify, batch, …); false leaves them all out.
	Builtins bool `toml:"builtins"`
}

// Autonomy is the [autonomy] table.
type Autonomy struct {
	// Level is "read_only", "supervised" or "full" after [Load]; ClawSeed's
	// "readonly" is accepted and normalised.
	Level           string   `toml:"level"`
	AutoApprove     []string `toml:"auto_approve"`
	AlwaysAsk       []string `toml:"always_ask"`
	AllowedCommands []string `toml:"allowed_commands"`
	ForbiddenPaths  []string `toml:"forbidden_paths"`
	// MaxActionsPerHour caps tool calls per hour; 0 means no cap.
	MaxActionsPerHour int `toml:"max_actions_per_hour"`
	// EnvPassthrough are names or path.Match globs of environment
	// variables that child processes (shell, ...) get beyond the harmless
	// set; a secret-looking one only when named exactly
	// (tools.ScrubbedEnv).
	EnvPassthrough []string `toml:"env_passthrough"`
	// AutoApproveSandboxed lets a supervised session run, unasked, a call
	// its tool reports will run inside an active OS sandbox with the
	// network off (the shell tool); allowed_commands still apply. It
	// overrides neither always_ask, nor a control-path write, nor an
	// untrusted project skill's command (runtime/agent authorize).
	AutoApproveSandboxed bool `toml:"auto_approve_sandboxed"`
}

// Sandbox is the [sandbox] table: the OS sandbox every command clawseed
// starts runs in (issue 21). A project file may only narrow it
// (projectRules when untrusted, narrowSandbox when trusted): only the
// user's own files and --no-sandbox can widen it.
type Sandbox struct {
	// Enabled false runs commands without the sandbox.
	Enabled bool `toml:"enabled"`
	// Required true refuses to run commands where the platform cannot
	// sandbox them, instead of running them bare with a notice.
	Required bool `toml:"required"`
	// Network is "off" (commands cannot connect or listen) or "on".
	Network string `toml:"network"`
	// Writable are folders commands may write besides the workspace and
	// the session's temporary folder: "~" and "~/" expand to the user's
	// home, a relative path is relative to the workspace. See
	// [Config.SandboxWritable] for the resolved, absolute list.
	Writable []string `toml:"writable"`
}

// NetworkOn reports whether [sandbox].network lets commands use the
// network.
func (s Sandbox) NetworkOn() bool { return s.Network == "on" }

// Context is the [context] table (compaction).
type Context struct {
	CompactAtPercent int    `toml:"compact_at_percent"`
	KeepRecentTokens int    `toml:"keep_recent_tokens"`
	SummaryModel     string `toml:"summary_model"`
}

// Sessions is the [sessions] table.
type Sessions struct {
	Enabled bool `toml:"enabled"`
	// Dir "" means $CLAWSEED_HOME/sessions; see [Config.SessionsDir].
	Dir string `toml:"dir"`
}

// Memory is the [memory] table.
type Memory struct {
	Enabled bool `toml:"enabled"`
	// Dir "" means $CLAWSEED_HOME/memory; see [Config.MemoryDir].
	Dir        string `toml:"dir"`
	AutoRecall bool   `toml:"auto_recall"`
	// Mode is how the model writes memory: "topics" (memory_store
	// writes topic files) or "daily_log" (memory_store appends to
	// logs/YYYY-MM-DD.md; `clawseed memory distill` makes topic files
	// of the logs). See [MemoryModeTopics].
	Mode string `toml:"mode"`
	// Recall is how automatic recall finds memories: "fts" (the local
	// full-text index) or "model" (the summary model picks files from the
	// memories' descriptions: a request per message; the user's choice,
	// see projectRules).
	Recall string `toml:"recall"`
	// Extract is "auto" (the memory extractor runs after a turn that
	// wrote no memory) or "off".
	Extract string `toml:"extract"`
	// Session is [memory.session]: each session's summary file.
	Session MemorySession `toml:"session"`
}

// MemorySession is the [memory.session] table: the summary file each
// session keeps next to its transcript, updated in the background and used
// by compaction instead of a summary request (issue 24). It needs
// [sessions].enabled; it does not need [memory].enabled.
type MemorySession struct {
	Enabled bool `toml:"enabled"`
	// UpdateEveryTokens is how much the conversation grows (estimated
	// tokens) between two updates.
	UpdateEveryTokens int `toml:"update_every_tokens"`
}

// SessionMemoryEvery is the growth, in tokens, between two updates of the
// session summary; 0 when there is no session summary ([sessions] or
// [memory.session] off).
func (c *Config) SessionMemoryEvery() int {
	if !c.Sessions.Enabled || !c.Memory.Session.Enabled {
		return 0
	}
	return c.Memory.Session.UpdateEveryTokens
}

// The values of [memory].mode.
const (
	MemoryModeTopics   = "topics"
	MemoryModeDailyLog = "daily_log"
)

// Instructions is the [instructions] table: the project instruction files
// (CLAUDE.md, AGENTS.md, their imports, .claude/rules) of the system
// prompt's `## Project instructions` section (runtime/instructions).
type Instructions struct {
	Enabled bool `toml:"enabled"`
	// MaxFileBytes caps each file's text in the prompt (at most
	// confine.MaxInstructionFile); MaxTotalBytes all of them together.
	MaxFileBytes  int `toml:"max_file_bytes"`
	MaxTotalBytes int `toml:"max_total_bytes"`
}

// WorkspaceDirs is the [workspace] table.
type WorkspaceDirs struct {
	// AddDirs are folders that join the workspace (as --add-dir does): the
	// file tools' roots and skill discovery ([Config.AddDirs]).
	AddDirs []string `toml:"add_dirs"`
}

// WebFetch is the [web_fetch] table.
type WebFetch struct {
	Enabled        bool     `toml:"enabled"`
	AllowedDomains []string `toml:"allowed_domains"`
	BlockedDomains []string `toml:"blocked_domains"`
	// MaxBytes caps what is read of a response body.
	MaxBytes    int `toml:"max_bytes"`
	TimeoutSecs int `toml:"timeout_secs"`
}

// WebSearch is the [web_search] table.
type WebSearch struct {
	Enabled bool `toml:"enabled"`
	// Provider is "duckduckgo", "brave", "searxng" or "tavily".
	Provider string `toml:"provider"`
	// APIKey is the brave or tavily key; "" means $BRAVE_API_KEY or
	// $TAVILY_API_KEY.
	APIKey string `toml:"api_key"`
	// BaseURL is the searxng instance URL (required for searxng), or an
	// override of the brave/tavily endpoint.
	BaseURL     string `toml:"base_url"`
	TimeoutSecs int    `toml:"timeout_secs"`
}

// HTTPRequest is the [http_request] table.
type HTTPRequest struct {
	Enabled        bool     `toml:"enabled"`
	AllowedDomains []string `toml:"allowed_domains"`
	// MaxBytes caps what is read of a response body.
	MaxBytes    int `toml:"max_bytes"`
	TimeoutSecs int `toml:"timeout_secs"`
}

// Backup is the [backup] table.
type Backup struct {
	Enabled bool `toml:"enabled"`
	// Paths are the folders backed up, relative to the workspace; empty
	// means the whole workspace.
	Paths []string `toml:"paths"`
	// Dir "" means <workspace>/.clawseed/backups; see [Config.BackupDir].
	Dir string `toml:"dir"`
}

// Cron is the [cron] table.
type Cron struct {
	Enabled bool `toml:"enabled"`
	// Dir "" means $CLAWSEED_HOME/cron; see [Config.CronDir].
	Dir string `toml:"dir"`
}

// Default returns the built-in defaults (the first layer). Its environment is
// empty: only [Load] connects a Config to real variables.
func Default() *Config {
	return &Config{
		Providers: Providers{
			Fallbacks:        []string{},
			MaxRetries:       2,
			MaxRetryWaitSecs: 120,
			Models:           map[string]ModelEntry{},
		},
		Agent: Agent{
			MaxToolIterations:    25,
			ParallelTools:        4,
			ToolTimeoutSecs:      120,
			MaxToolOutputChars:   30000,
			AllowedTools:         []string{},
			DeniedTools:          []string{},
			DeferredTools:        DefaultDeferredTools(),
			MaxParallelSubagents: 4,
		},
		Skills: Skills{
			Enabled:            true,
			MaxActive:          5,
			Excluded:           []string{},
			ExtraRoots:         []string{},
			IndexBudgetPercent: 1.0,
			MaxSkillFileBytes:  262144,
			DynamicContext:     "trusted",
			Watch:              true,
			ForkMaxIterations:  15,
			ClaudePlugins:      true,
			Builtins:           true,
		},
		Autonomy: Autonomy{
			Level:                "supervised",
			AutoApprove:          []string{"file_read", "glob_search", "content_search", "memory_recall", "calculator", "Skill"},
			AlwaysAsk:            []string{},
			AllowedCommands:      []string{},
			ForbiddenPaths:       []string{"/etc", "/root", "~/.ssh", "~/.gnupg", "~/.aws"},
			MaxActionsPerHour:    1000,
			EnvPassthrough:       []string{},
			AutoApproveSandboxed: true,
		},
		Permissions: Permissions{Allow: []string{}, Deny: []string{}, Ask: []string{}},
		Sandbox:     Sandbox{Enabled: true, Network: "off", Writable: []string{}},
		Context: Context{
			CompactAtPercent: 80,
			KeepRecentTokens: 20000,
		},
		Sessions:    Sessions{Enabled: true},
		Storage:     Storage{Backend: StorageFiles, PoolSize: 10},
		Memory:      Memory{Enabled: true, AutoRecall: true, Mode: MemoryModeTopics, Recall: "fts", Extract: "auto", Session: MemorySession{Enabled: true, UpdateEveryTokens: 10000}},
		WebFetch:    WebFetch{Enabled: true, AllowedDomains: []string{"*"}, BlockedDomains: []string{}, MaxBytes: 2 << 20, TimeoutSecs: 30},
		WebSearch:   WebSearch{Enabled: true, Provider: "duckduckgo", TimeoutSecs: 30},
		HTTPRequest: HTTPRequest{Enabled: false, AllowedDomains: []string{}, MaxBytes: 2 << 20, TimeoutSecs: 30},
		Backup:      Backup{Enabled: true, Paths: []string{}},
		Cron:        Cron{Enabled: true},
		MCP:         MCP{Enabled: true, StartupTimeoutSecs: 10, MaxSchemaBytes: 16384, Servers: map[string]MCPServer{}},
		Serve:       DefaultServe(),

		Instructions: Instructions{Enabled: true, MaxFileBytes: 40000, MaxTotalBytes: 80000},
		Dirs:         WorkspaceDirs{AddDirs: []string{}},

		Trusted:    true,
		sources:    map[string]origin{},
		unresolved: map[string]unresolved{},
		merged:     map[string]bool{},
	}
}

// DefaultModelEntry returns the defaults of a [providers.models.NAME] table;
// an entry a file defines starts from these, and so does a bare preset name.
func DefaultModelEntry() ModelEntry {
	return ModelEntry{
		Temperature:  0.7,
		TimeoutSecs:  120,
		ExtraHeaders: map[string]string{},
		NativeTools:  true,
	}
}

// Source reports which layer set a dotted key ("agent.max_tool_iterations",
// `providers.models."gpt-4.1".model`): "FILE:LINE", "env NAME" or
// "flag --NAME"; "" means the built-in default.
func (c *Config) Source(key string) string {
	o, ok := c.sources[key]
	if !ok {
		return ""
	}
	return o.String()
}
