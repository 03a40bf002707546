package agent

import (
	"context"
	"time"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/hooks"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/subagents"
)

// Options configures an [Agent]. Zero values mean the documented defaults.
type Options struct {
	Model Model
	// ModelName is sent as the request's model.
	ModelName       string
	MaxTokens       int
	Temperature     *float64
	ReasoningEffort string
	// TextTools selects the text tool-call protocol (§5.5) for providers
	// without native tool calling.
	TextTools bool
	// Vision is whether the model accepts images (the model entry's
	// `vision`): without it a turn with images is refused with
	// [ErrNoVision], a tool's images become an error result, and images
	// already in the history are sent as text placeholders.
	Vision bool

	// Tools are the registered tools; the Skill tool is added by the agent when
	// skills are enabled. Tools hidden by Policy.Visible are dropped.
	Tools []Tool
	// Deferred names registered tools whose schemas are left out of the
	// tools array until tool_search finds them, the model calls them, or
	// an active skill needs them (toolsearch.go). They are registered: every
	// permission check sees them.
	Deferred []string
	// ToolSource, when set, supplies tools that come and go during the
	// session (MCP servers); it is asked before each model request.
	ToolSource ToolSource
	Policy     permissions.Policy
	// Approver asks the user; nil denies every call that needs approval with a
	// message telling how to allow it (non-interactive runs).
	Approver Approver

	Prompt PromptConfig

	// Skills is the session's active set; nil or SkillsEnabled false means the
	// skill system is off (no index, no Skill tool).
	Skills        *skills.ActiveSet
	SkillsEnabled bool
	// SkillPermissions, when set, is the permission check Skills was made
	// with: New connects it to this agent's tools.
	SkillPermissions *SkillPermissions
	// IndexBudget is the index budget in characters (see skills.IndexBudget).
	IndexBudget int
	// Planning offers todo_write (the model's todo list, todo.go) and
	// exit_plan_mode (the end of plan mode, plan.go): a session's agent,
	// never a sub-agent's.
	Planning bool
	// Rediscover rebuilds the catalog after skill_create wrote a skill.
	Rediscover func(ctx context.Context) (*skills.Catalog, error)

	// Memory, when set, gives the MEMORY.md indexes of the `## Memory`
	// section (§8), read at start and after each compaction; nil omits the
	// section (memory off). It replaces Prompt.Memory.
	Memory MemoryIndex
	// MemoryDailyLog is [memory].mode = "daily_log": the `## Memory`
	// section says that memory_store appends a note to today's log.
	MemoryDailyLog bool
	// Recall, when set, prefixes each user message with the memories
	// relevant to it ([memory].auto_recall).
	Recall Recaller
	// Extraction, when set, runs the memory extractor after a turn that
	// wrote no memory ([memory].extract; extract.go).
	Extraction *Extraction

	// RefreshInstructions, when set, re-reads the `## Project
	// instructions` section (Prompt.Instructions holds it at start) after
	// a compaction and at /clear.
	RefreshInstructions func(ctx context.Context) string
	// NestedInstructions, when set, finds the instruction files of the
	// subfolders a file a tool read or wrote lies in; each is attached
	// once, after that call's result (instructions.go).
	NestedInstructions NestedInstructions
	// NestedSkills, when set, finds the skill folders below the workspace
	// on the way to a path a tool read, wrote, edited or searched; the new
	// skills are announced after that call's result and join the index at
	// the next compaction (nestedskills.go).
	NestedSkills NestedSkills

	// Reload, when set, is asked before each model request whether the
	// skill catalog must be rebuilt (hot reload, §4.13).
	Reload Reloader

	// ForkModel resolves a fork skill's `model` (an entry name, a model id
	// or a Claude Code alias, §4.10); current is the session's model at
	// that moment (a name that only changes the model id keeps the rest of
	// it). nil runs every fork on the session's model.
	ForkModel func(name string, current ModelChoice) (ModelChoice, error)
	// ForkMaxIterations bounds a fork's sub-agent (default 15).
	ForkMaxIterations int
	// Subagents are the subagent definitions the Agent tool runs, fixed for
	// the session (the tool's description lists them); nil or empty: no
	// Agent tool. A fork skill's `agent` names one of them.
	Subagents *subagents.Catalog
	// MaxParallelSubagents is how many Agent calls of one response run at
	// once (default 4).
	MaxParallelSubagents int
	// Worktree makes the git worktree of a subagent run with isolation
	// "worktree" (worktree.go), label naming it; nil: such a call fails,
	// saying isolation is not available.
	Worktree func(ctx context.Context, label string) (*Worktree, error)
	// SubagentMemory gives a subagent whose definition has a `memory`
	// scope its own memory (issue 24), asked once per run; nil (memory
	// off) runs such a subagent as any other. Its error stops the run.
	SubagentMemory func(def *subagents.Definition) (*SubagentMemory, error)
	// UntrustedWorkspace is set when the workspace is not trusted (§9.1):
	// `shell:` and `context: fork` skills from project roots then need an
	// approval prompt whatever the autonomy level.
	UntrustedWorkspace bool
	// SkillShell runs a `shell:` skill's command in its directory (§4.11);
	// nil means shell skills cannot run here.
	SkillShell func(ctx context.Context, s *skills.Skill, args, sessionID string) providers.ToolResult
	// SystemExtra are system-prompt blocks after the fixed sections: a
	// fork's skill, for its sub-agent.
	SystemExtra []string
	// PreApproved are `allowed-tools` entries that pre-approve calls for
	// the whole session: a fork's skill, for its sub-agent.
	PreApproved []string
	// Hooks runs the session's hooks (runtime/hooks); nil runs none. A
	// fork's sub-agent shares its parent's.
	Hooks *hooks.Runner
	// HookAgent is set on a sub-agent: what its hooks are told of it.
	HookAgent *HookAgent

	// Rules are the session's permission rules (Claude Code's
	// permissions.allow, deny and ask, and [permissions] of config.toml),
	// the ones that count: see rules.go. A sub-agent gets its parent's.
	Rules []permissions.Rule
	// RuleBases are what path patterns of allowed-tools entries are
	// relative to; the zero value means the workspace of Prompt.
	RuleBases permissions.RuleBases
	// PathForms turns a path a tool names (absolute, or relative to the
	// workspace) into every absolute form that names it — as named, and
	// with symbolic links resolved — for permission rules; nil joins it
	// to the workspace.
	PathForms func(path string) []string
	// ShellLine reads a command line run in dir ("" for the workspace) as
	// the shell will, for permission rules: a `shell:` skill's command.
	// nil reads only lines without shell syntax
	// ([permissions.SimpleShellLine]).
	ShellLine func(line, dir string) *permissions.ShellLine
	// ControlPath reports whether writing a file (absolute, or relative to
	// the workspace) writes a control path, and which one
	// (tools.ControlPaths.Match): such writes of the tools that say what
	// they write are always asked about. nil: no path is one.
	ControlPath func(path string) (string, bool)

	MaxIterations      int           // default 25
	ParallelTools      int           // default 4
	ToolTimeout        time.Duration // default 120s
	MaxToolOutputChars int           // default 30000
	MaxActionsPerHour  int           // 0 = unlimited
	// Actions counts tool calls against the limit; share one between the
	// agents of a process so the limit holds for the process. nil: New
	// makes one from MaxActionsPerHour and Now.
	Actions *ActionLimiter

	// ContextWindow is the model's context window in tokens (default
	// 128000).
	ContextWindow int
	// CompactAtPercent compacts the history before a request whose
	// estimated size exceeds this share of the window (default 80).
	CompactAtPercent int
	// KeepRecentTokens is how much recent history compaction keeps verbatim
	// (default 20000; never more than half of what the window leaves for
	// history).
	KeepRecentTokens int
	// Usage, when set, is the sink the tools were given for their own model
	// requests (llm_task): New connects it to this agent's usage.
	Usage *UsageSink
	// Summarizer answers compaction summary requests; nil means Model.
	Summarizer Model
	// SummaryModelName is the model of summary requests; "" means ModelName.
	SummaryModelName string
	// SummaryEveryTokens turns session memory on (sessionmemory.go): when
	// the Recorder keeps a summary file ([SummaryFile]), an update of it
	// starts through Background after a turn once the conversation has
	// grown by this many estimated tokens since the summary's mark, and
	// compaction uses a current summary instead of a request. 0: off.
	SummaryEveryTokens int
	// Background runs work that must not hold up a turn (session summary
	// updates) and gives it the context that cancels it; the caller waits
	// for it before closing the Recorder. nil: such work does not run.
	Background func(job func(ctx context.Context))
	// Recorder persists the session; nil keeps it in memory only.
	Recorder Recorder
	// SessionID is sent as the requests' cache key
	// ([providers.Request.CacheKey]); see also [Agent.SetSessionID].
	SessionID string

	// Now stamps user messages; default time.Now.
	Now  func() time.Time
	Sink Sink
}
