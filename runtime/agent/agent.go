// Package agent owns the agent loop: it builds the system prompt (§5.1), runs
// turns against a model (§5.2), executes tool calls with validation, approval,
// concurrency limits, timeouts and truncation (§5.3), intercepts the Skill tool
// so activation changes the system prompt before the next request (§4.5),
// repairs history on cancellation (§5.4) and reports everything as [Event]s
// (§5.6).
//
// The interfaces it needs — [Model], [Tool], [Approver] — are declared here, by
// the consumer; cmd/clawseed wires the concrete providers and tools in.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/hooks"
	"github.com/clawseed/clawseed/skills"
)

// A Model streams one response for a request (see [providers.Streamer]).
type Model interface {
	Stream(ctx context.Context, req providers.Request) iter.Seq2[providers.Event, error]
}

// A Tool is a built-in tool the model may call. Run reports failures as a
// result with IsError set; it never returns a Go error.
type Tool interface {
	Spec() providers.ToolSpec
	Class() permissions.Class
	Run(ctx context.Context, args json.RawMessage) providers.ToolResult
}

// timeouter is implemented by tools whose calls can ask for more time than the
// agent's per-call limit (shell's timeout_secs).
type timeouter interface {
	Timeout(args json.RawMessage) time.Duration
}

// summarizer is implemented by tools that can describe a call in one line for
// an approval prompt (the shell command, the path written).
type summarizer interface {
	Summary(args json.RawMessage) string
}

// A sandboxedTool's calls may run inside the OS sandbox (issue 21).
// SandboxMode reports, for one call, how it will run once approved
// (sandboxed without network, then auto_approve_sandboxed may run it
// unasked; sandboxed with the network; not sandboxed), and what it asks
// beyond what the sandbox gives: "" for nothing, else a short phrase such
// as "network access" or "no sandbox". A call that asks for more is always
// asked, like a control-path write, whatever the autonomy level,
// auto_approve or an earlier "always" say; an approver that cannot show a
// person the question (run without --yes) refuses it, run --yes approves it.
type sandboxedTool interface {
	SandboxMode(args json.RawMessage) (state permissions.SandboxState, escalation string)
}

// An Agent holds one conversation. It is not safe for concurrent turns.
type Agent struct {
	opts  Options
	tools map[string]Tool
	// specs is the tools array: the sorted list (registered tools, Skill,
	// the source's listed tools), then the source's appended tools.
	specs []providers.ToolSpec
	// own and ownSpecs are the tools registered at New, Skill excluded.
	own      map[string]Tool
	ownSpecs []providers.ToolSpec
	// deferred are the tools whose schemas wait for tool_search, the
	// registered ones and the source's, found or not (toolsearch.go);
	// found lists those that joined the tools array, in order.
	deferred map[string]Tool
	found    foundTools
	// extra is the tool source's set as last installed.
	extra       ToolSet
	extraSynced bool
	// skillSearchable says the Skill tool takes a search query (§4.5).
	skillSearchable bool
	base            string // sections 1–5, fixed for the session
	// fixed is base and the skill index joined: the first system block,
	// built when either changes rather than per request.
	fixed string
	// skillTool is true when the Skill tool is offered (skills on, not denied).
	skillTool bool
	// agentTool is true when the Agent tool is offered, as agentSpec.
	agentTool bool
	// todoTool and planTool are true when todo_write and exit_plan_mode
	// are offered (a session's agent, not a sub-agent; not denied).
	todoTool, planTool bool
	// todos is the model's todo list, plan the plan mode (todo.go, plan.go).
	todos     todoState
	plan      planState
	agentSpec providers.ToolSpec
	// out orders the sink's events and sub-agents' approval prompts.
	out   outputLock
	index skills.Index

	history []providers.Message
	// anchors places the system blocks after the fixed one among the
	// history (blockAnchors): block text → messages before it. nil after
	// the history was replaced.
	anchors map[string]int
	// sessionMsgs counts the session's messages (message records) so far,
	// and lead the history messages at the front that are not the last of
	// them in order: history[lead:] are the last len(history)-lead
	// (sessionmemory.go).
	sessionMsgs, lead int
	// summaryBusy is set while a session summary update runs;
	// summaryFailedAt is sessionMsgs when the last one failed.
	summaryBusy     atomic.Bool
	summaryFailedAt atomic.Int64
	// usageMu guards usage and byModel, which tools (llm_task) add to from
	// their own goroutines.
	usageMu sync.Mutex
	usage   providers.Usage
	byModel []providers.ModelUsage // usage per model id, sorted (usage.go)
	// always holds the allow rules the user's "always" answers added,
	// shared with sub-agents: they count for the session (rules.go).
	always *sessionRules

	// toolTokens is the estimated size of the tool schemas, counted when
	// first asked for after the tools changed (toolTokensSet false): the
	// tools are set twice before the first request (New, then the first
	// sync with the tool source), and counting means encoding them.
	toolTokens    int
	toolTokensSet bool
	// reported is the input tokens the provider reported for the last
	// request, and reportedAt our estimate of that same request; the next
	// request is estimated as reported plus what our estimate grew since.
	// 0 when unknown (start, after compaction, providers without usage).
	reported, reportedAt int

	recordedSkills []skills.SnapshotEntry
	// recordFailed is set by the first recording failure; usage is
	// recorded from tools' and background goroutines too.
	recordFailed atomic.Bool
	// recalled lists the memory files recalled this session, each given
	// once.
	recalled []string
	// nested holds the nested instruction files the history has a block
	// of; nil when unknown (the history was replaced), found again from
	// the history on first use (instructions.go).
	nested map[string]bool
	// unindexed are the skills announced by a nested skill notice since
	// the index was last rebuilt whole: they stay out of the index, so the
	// cached prefix stays as it was, until the next compaction or /clear.
	unindexed map[string]bool
	// wrote is set when a write or exec call succeeded since the last
	// reload check (paths gating may now match).
	wrote bool
	// grants decides, with the trust of the workspace, whether a skill's
	// allowed-tools count (preapproval.go).
	grants *grantLedger
	// pendingContext is what hooks gave the model (SessionStart) for the
	// next user message.
	pendingContext []string
	// stopRequested is set when a hook said `continue: false`: the turn
	// ends at its next step, with stopReason shown to the user.
	stopRequested bool
	stopReason    string

	// Background memory extraction (extract.go): ext is nil when it is
	// off; memWrites tells the calls that write memory, memoryWrote says
	// one did this turn, turnText and turnMsgs are the turn as it goes.
	ext         *extractor
	memWrites   *memoryWrites
	memoryWrote bool
	turnText    string
	turnMsgs    []providers.Message
	// byPurpose is the part of usage spent on clawseed's own requests
	// (usage.go), guarded by usageMu.
	byPurpose []providers.PurposeUsage
}

// ErrMaxIterations matches (errors.Is) the error of a turn that hit the
// iteration limit.
var ErrMaxIterations = errors.New("agent exceeded maximum tool iterations")

// maxIterationsError is the error of a turn that hit the limit: one
// sentence (§5.2), matching [ErrMaxIterations] with errors.Is.
type maxIterationsError int

func (n maxIterationsError) Error() string {
	return fmt.Sprintf("Agent exceeded maximum tool iterations (%d)", int(n))
}

func (maxIterationsError) Is(target error) bool { return target == ErrMaxIterations }

// New builds an agent. It reads the workspace identity files once.
func New(opts Options) (*Agent, error) {
	if opts.Model == nil {
		return nil, errors.New("agent: no model")
	}
	if opts.MaxIterations <= 0 {
		opts.MaxIterations = 25
	}
	if opts.ParallelTools <= 0 {
		opts.ParallelTools = 4
	}
	if opts.ToolTimeout <= 0 {
		opts.ToolTimeout = 120 * time.Second
	}
	if opts.MaxToolOutputChars <= 0 {
		opts.MaxToolOutputChars = 30000
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sink == nil {
		opts.Sink = func(Event) {}
	}
	// Sub-agents running at once, and the usage they record, reach the
	// sink from their own goroutines.
	out := newOutputLock()
	opts.Sink = lockedSink(out, opts.Sink)
	if opts.Actions == nil {
		opts.Actions = NewActionLimiter(opts.MaxActionsPerHour, opts.Now)
	}
	if opts.Skills == nil {
		opts.SkillsEnabled = false
	}
	if opts.ContextWindow <= 0 {
		opts.ContextWindow = 128000
	}
	if opts.CompactAtPercent <= 0 || opts.CompactAtPercent > 100 {
		opts.CompactAtPercent = 80
	}
	if opts.KeepRecentTokens <= 0 {
		opts.KeepRecentTokens = 20000
	}
	a := &Agent{opts: opts, out: out, own: map[string]Tool{}, always: &sessionRules{}}
	for _, t := range opts.Tools {
		spec := t.Spec()
		if !opts.Policy.Visible(spec.Name, t.Class()) {
			continue
		}
		if _, dup := a.own[spec.Name]; dup {
			return nil, fmt.Errorf("agent: tool %q registered twice", spec.Name)
		}
		a.own[spec.Name] = t
		a.ownSpecs = append(a.ownSpecs, spec)
	}
	a.skillTool = a.opts.SkillsEnabled && opts.Policy.Visible(skillToolName, permissions.ClassRead)
	a.todoTool = opts.Planning && opts.Policy.Visible(todoToolName, permissions.ClassRead)
	a.planTool = opts.Planning && opts.Policy.Visible(exitPlanToolName, permissions.ClassRead)
	if a.agentTool = OffersAgentTool(opts.Subagents, opts.Policy); a.agentTool {
		a.agentSpec = agentToolSpec(opts.Subagents)
	}
	// The skills' files as the session starts: a skill that differs later
	// pre-approves nothing until the user approves its content.
	var cat *skills.Catalog
	if a.opts.SkillsEnabled {
		cat = opts.Skills.Catalog()
	}
	a.grants = newGrantLedger(cat)
	if opts.Memory != nil {
		a.opts.Prompt.Memory = memorySection(opts.Memory, opts.MemoryDailyLog)
	}
	a.refreshIndex()
	a.ext, a.memWrites = newExtractor(opts)
	// The sinks made before the agent (the tools', the active set's) are
	// connected last, to the agent as built.
	if opts.Usage != nil {
		opts.Usage.agent.Store(a)
	}
	if opts.SkillPermissions != nil {
		opts.SkillPermissions.agent.Store(a)
	}
	return a, nil
}

// buildBase renders the fixed sections, which hold the tools when the text
// tool-call protocol is on; with native tool calling the schemas' tokens
// are counted instead, when next asked for (toolSchemaTokens).
func (a *Agent) buildBase() {
	toolsSection := ""
	a.toolTokensSet = false
	if a.opts.TextTools {
		toolsSection = textToolsSection(a.specs)
	}
	a.base = buildBase(a.opts.Prompt, toolsSection)
	a.fixed = joinSections(a.base, a.index.Text)
}

// toolSchemaTokens returns the estimated size of the tool schemas sent
// with each request: none with the text tool-call protocol, whose tools are
// in the system prompt.
func (a *Agent) toolSchemaTokens() int {
	if !a.toolTokensSet {
		a.toolTokens = 0
		if !a.opts.TextTools {
			b, _ := json.Marshal(a.specs)
			a.toolTokens = EstimateTokensOf(len(b))
		}
		a.toolTokensSet = true
	}
	return a.toolTokens
}

// ToolNames returns the names of the tools the model can call, sorted.
func (a *Agent) ToolNames() []string {
	names := make([]string, len(a.specs))
	for i, s := range a.specs {
		names[i] = s.Name
	}
	return names
}

// ToolSpecs returns the tool specifications sent to the model, sorted by name.
func (a *Agent) ToolSpecs() []providers.ToolSpec { return slices.Clone(a.specs) }

// refreshIndex re-renders the skill index from the active set's catalog. It is
// called at start and after the catalog changed, never per request, so the
// index stays byte-identical between reloads.
func (a *Agent) refreshIndex() {
	a.index = skills.Index{}
	if a.opts.SkillsEnabled {
		a.index = skills.RenderIndex(a.indexed(a.opts.Skills.Catalog().Skills), a.opts.IndexBudget)
	}
	a.setSkillSpec(a.index.Listed < a.index.Total)
	a.buildBase()
}

// setSkillSpec puts the Skill tool among the specs, searchable when the
// index leaves skills out (§4.5). The tools array changes only when that
// does, at start or on a reload.
func (a *Agent) setSkillSpec(searchable bool) {
	a.skillSearchable = searchable
	a.rebuildTools()
}

// SetCatalog replaces the skill catalog (hot reload) and re-renders the index.
func (a *Agent) SetCatalog(cat *skills.Catalog) {
	if a.opts.Skills == nil {
		return
	}
	a.opts.Skills.SetCatalog(cat)
	a.refreshIndex()
}

// Index returns the rendered skill index and its budget level.
func (a *Agent) Index() skills.Index { return a.index }

// Skills returns the session's active set (nil when skills are off).
func (a *Agent) Skills() *skills.ActiveSet { return a.opts.Skills }

// SystemPrompt returns the system prompt the next request will carry.
func (a *Agent) SystemPrompt() string {
	return strings.Join(a.systemBlocks(), "\n\n")
}

// systemBlocks returns the system prompt as [providers.Request.SystemBlocks]:
// the fixed sections with the skill index, then each active skill's block,
// then the todo list's. An activation adds a block and changes none before
// it; a todo_write changes only the last.
func (a *Agent) systemBlocks() []string {
	blocks := append([]string{a.fixed}, a.opts.SystemExtra...)
	if a.opts.SkillsEnabled {
		blocks = append(blocks, a.opts.Skills.Blocks()...)
	}
	// The todo list comes last: a change of it rewrites no byte before.
	if t := a.todoBlock(); t != "" {
		blocks = append(blocks, t)
	}
	return blocks
}

// blockAnchors returns, for each of blocks (systemBlocks), the number of
// history messages that precede it on a wire that sends the blocks after
// the first as messages ([providers.Request].BlockAt, the Responses wire):
// a block is placed where the history stood when it first appeared — a
// skill right after the message that activated it — so that the request
// after an activation extends the one before, byte for byte, instead of
// changing its beginning (and the provider's prompt cache keeps the whole
// conversation). The blocks present when the history is new or was
// replaced (start, compaction, /clear) come first, before the history; a
// resumed session's are placed as the activating process placed them
// (resumedAnchors). They are rebuilt from the active set at every request,
// so a compaction never loses one.
func (a *Agent) blockAnchors(blocks []string) []int {
	at := make([]int, len(blocks))
	fresh := a.anchors == nil
	next := make(map[string]int, len(blocks))
	for i, b := range blocks {
		if i == 0 {
			continue
		}
		n, ok := a.anchors[b]
		switch {
		case fresh:
			n = 0
		case !ok:
			n = len(a.history)
		}
		n = min(n, len(a.history))
		next[b], at[i] = n, n
	}
	a.anchors = next
	return at
}

// History returns a copy of the conversation history.
func (a *Agent) History() []providers.Message { return slices.Clone(a.history) }

// SetHistory replaces the history; unanswered tool calls are repaired. It is
// not recorded (see [Agent.Resume] for sessions).
func (a *Agent) SetHistory(msgs []providers.Message) {
	a.history = repairHistory(slices.Clone(msgs))
	a.anchors = nil
	a.sessionMsgs, a.lead = len(a.history), 0
	a.reported = 0
	a.nested = nil
}

// Reset starts a new session in the same process (/clear): it clears the
// history, the usage and the "always" approvals, deactivates every skill and
// activates the always-on ones again, as at start. The recorder is dropped;
// give the new session's with SetRecorder.
func (a *Agent) Reset(ctx context.Context) {
	a.Clear(ctx, "clear")
	a.ActivateAlways(ctx)
}

// Clear ends the session in the process as [Agent.Reset] does, but
// activates no skill: chat's /resume goes on with a saved session, which
// [Agent.ResumeSession] restores next, as a fresh agent does for --resume.
// reason is the SkillDeactivated hooks' ("clear", "resume"). The recorder
// is dropped; give the next session's with SetRecorder.
func (a *Agent) Clear(ctx context.Context, reason string) {
	// An extraction of the old session ends first, counted there.
	a.stopExtractions()
	a.history, a.anchors = nil, nil
	a.sessionMsgs, a.lead = 0, 0
	a.summaryFailedAt.Store(0)
	a.usageMu.Lock()
	a.usage, a.byModel, a.byPurpose = providers.Usage{}, nil, nil
	a.usageMu.Unlock()
	a.reported, a.reportedAt = 0, 0
	a.always = &sessionRules{}
	a.recalled = nil
	a.nested = nil
	// A new session's tools array starts again without found tools.
	a.found.reset()
	a.refreshMemory()
	a.refreshInstructions(ctx)
	a.indexAll()
	a.opts.Recorder = nil
	a.recordedSkills = nil
	a.pendingContext = nil
	a.setTodos(nil, false)
	a.plan.mu.Lock()
	a.plan.stop, a.plan.note = "", ""
	if a.plan.on {
		a.plan.note = planOnNote // the new conversation must hear it too
	}
	a.plan.mu.Unlock()
	if a.opts.Skills != nil {
		for _, act := range a.opts.Skills.List() {
			if a.opts.Skills.Deactivate(act.Skill.Name).Changed {
				a.skillHooks(ctx, hooks.SkillDeactivated, act.Skill.Name, "", reason, act.Skill)
			}
		}
	}
}

// Usage returns the tokens used by the session so far.
func (a *Agent) Usage() providers.Usage {
	a.usageMu.Lock()
	defer a.usageMu.Unlock()
	return a.usage
}

// SetModel switches the model name used by later requests (/model with a
// model id of the same provider).
func (a *Agent) SetModel(name string) { a.opts.ModelName = name }

// ModelName returns the model name sent with requests.
func (a *Agent) ModelName() string { return a.opts.ModelName }

// ActivateSkill activates a skill on the user's behalf (/activate, /NAME). The
// system prompt of the next request includes it.
func (a *Agent) ActivateSkill(ctx context.Context, name, args string) skills.Outcome {
	return a.activateSkill(ctx, name, args, "user")
}

// activateSkill activates a skill for by (see skillHooks).
func (a *Agent) activateSkill(ctx context.Context, name, args, by string) skills.Outcome {
	if a.opts.Skills == nil {
		return skills.Outcome{Text: "Failed to activate skill '" + name + "': Skill system is disabled. Enable it in config to use skills.", IsError: true}
	}
	if s := a.opts.Skills.Catalog().Lookup(name); s.Runs() {
		return skills.Outcome{Text: runsInstead(s), IsError: true}
	}
	if a.changedActive(name, args) {
		// /activate NAME on a skill changed on disk reloads it (§4.13).
		out := a.opts.Skills.Refresh(a.skillContext(ctx), name)
		if out.Changed {
			a.reportAllowedTools(name)
			a.syncSkills()
		}
		return out
	}
	out := a.opts.Skills.Activate(a.skillContext(ctx), name, args, true)
	if out.Changed {
		a.skillActivated(ctx, name, args, by)
		a.syncSkills()
	}
	return out
}

// changedActive reports whether name is active with args and its text
// changed on disk since.
func (a *Agent) changedActive(name, args string) bool {
	for _, act := range a.opts.Skills.List() {
		if act.Skill.Name == name {
			return act.Args == args && a.opts.Skills.ChangedOnDisk(name)
		}
	}
	return false
}

// DeactivateSkill deactivates a skill on the user's behalf (/deactivate).
func (a *Agent) DeactivateSkill(name string) skills.Outcome {
	if a.opts.Skills == nil {
		return skills.Outcome{Text: "Failed to deactivate skill '" + name + "': Skill '" + name + "' is not active.", IsError: true}
	}
	gone := a.activeSkill(name)
	out := a.opts.Skills.Deactivate(name)
	if out.Changed {
		a.skillDeactivated(context.Background(), name, "user", gone)
		a.syncSkills()
	}
	return out
}

// ActivateAlways activates every `always: true` skill of the catalog (session
// start). It returns the outcomes that were errors.
func (a *Agent) ActivateAlways(ctx context.Context) []skills.Outcome {
	if !a.opts.SkillsEnabled {
		return nil
	}
	var failed []skills.Outcome
	for _, s := range a.opts.Skills.Catalog().Skills {
		if !s.Always || s.Status == skills.StatusHidden {
			continue
		}
		if out := a.activateSkill(ctx, s.Name, "", "always"); out.IsError {
			failed = append(failed, out)
		}
	}
	return failed
}
