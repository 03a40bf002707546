package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/subagents"
)

// The Agent tool (Claude Code's, also known there as Task) runs a subagent
// ([subagents.Definition]) on a task: a sub-agent (child.go) with the
// definition's system prompt, preloaded skills, tools and model, whose
// final text is the call's result. Like Skill, the call never reaches a
// tool implementation: the agent handles it, after the checks and hooks
// of every call (agentCallTool). Subagents never get the Agent
// tool (they are made without definitions), so they do not nest.

const agentToolName = "Agent"

// defaultParallelSubagents is how many Agent calls of one response run at
// once when [Options.MaxParallelSubagents] is not set.
const defaultParallelSubagents = 4

// The Agent tool's description lists at most maxListedSubagents subagents,
// each description cut to maxSubagentDescription runes, in at most
// maxSubagentList bytes: it travels with every request.
const (
	maxListedSubagents     = 50
	maxSubagentDescription = 250
	maxSubagentList        = 8000
)

// agentToolIntro and agentToolSchema are interface facts: models and cached
// prompts depend on these bytes. The list of subagents follows the intro.
const agentToolIntro = `Run a subagent on a self-contained task: it works in a fresh context with its own instructions and tools, and only its final answer comes back as this tool's result. Use it for searches and research that would fill your context. Agent calls in one response run at the same time. The subagent does not see this conversation: the prompt must say all it needs, and what to report.

Available subagents (subagent_type: description):`

const agentToolSchema = `{"type":"object","properties":{"description":{"type":"string","description":"A short (3-5 word) description of the task"},"prompt":{"type":"string","description":"The task for the subagent to perform"},"subagent_type":{"type":"string","description":"The name of the subagent to use, from the list in this tool's description"},"isolation":{"type":"string","enum":["worktree"],"description":"worktree: run it in a new git worktree and branch"}},"required":["description","prompt","subagent_type"]}`

// agentToolSpec renders the Agent tool for the definitions of cat: sorted
// by name (the catalog's order), so the same definitions give the same
// bytes.
func agentToolSpec(cat *subagents.Catalog) providers.ToolSpec {
	var b strings.Builder
	b.WriteString(agentToolIntro)
	listed := 0
	for _, d := range cat.Agents {
		line := "\n- " + d.Name + ": " + oneLine(d.Description, maxSubagentDescription)
		if listed == maxListedSubagents || b.Len()+len(line) > maxSubagentList {
			break
		}
		b.WriteString(line)
		listed++
	}
	if rest := len(cat.Agents) - listed; rest > 0 {
		fmt.Fprintf(&b, "\n(%d more not listed.)", rest)
	}
	return providers.ToolSpec{Name: agentToolName, Description: b.String(), Schema: json.RawMessage(agentToolSchema)}
}

// isAgentCall reports whether c calls the Agent tool this agent offers.
func (a *Agent) isAgentCall(c providers.ToolCall) bool {
	return c.Name == agentToolName && a.agentTool
}

// agentCallTool is the Agent tool as the pre-call path (prepare) sees
// it, so that its calls pass the checks of every call: the rate limit,
// PreToolUse hooks, permission rules (`Agent(explorer)` names the
// subagent), the autonomy policy and the approval prompt. It is of the
// read class: what a subagent does is approved call by call. Its calls
// never reach Run: runAgentCalls runs them.
type agentCallTool struct{ spec providers.ToolSpec }

func (t agentCallTool) Spec() providers.ToolSpec { return t.spec }

func (agentCallTool) Class() permissions.Class { return permissions.ClassRead }

func (agentCallTool) Run(context.Context, json.RawMessage) providers.ToolResult {
	return errorResult("the Agent tool runs through the agent, not as a tool")
}

// agentCallArgs are an Agent call's arguments.
type agentCallArgs struct {
	Description  string `json:"description"`
	Prompt       string `json:"prompt"`
	SubagentType string `json:"subagent_type"`
	Isolation    string `json:"isolation"`
}

// name is the subagent the call runs: subagent_type trimmed, and
// general-purpose when it is left out or blank. It is the one answer for
// everything that looks at the call — the rules, the hooks, the approval
// and the run —, so a rule on Agent(general-purpose) holds for a call that
// leaves the name out.
func (v agentCallArgs) name() string {
	return cmp.Or(strings.TrimSpace(v.SubagentType), subagents.GeneralPurpose)
}

// Normalize spells out in an Agent call's arguments the subagent it runs
// (agentCallArgs.name), before the hooks and the rules see them. Arguments
// that do not decode are left as they are: the call fails on them.
func (agentCallTool) Normalize(args json.RawMessage) json.RawMessage {
	var v agentCallArgs
	if json.Unmarshal(args, &v) != nil || v.SubagentType == v.name() {
		return args
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(args, &fields) != nil || fields == nil {
		return args
	}
	fields["subagent_type"], _ = json.Marshal(v.name())
	out, err := json.Marshal(fields) // sorted keys: the same call, the same text
	if err != nil {
		return args
	}
	return out
}

// Summary describes an Agent call in an approval prompt.
func (agentCallTool) Summary(args json.RawMessage) string {
	var v agentCallArgs
	_ = json.Unmarshal(args, &v)
	return "subagent " + v.name() + ": " + oneLine(v.Description, maxSubagentDescription)
}

// PermissionSubject names the subagent a call runs, for `Agent(name)`
// rules (Claude Code's Agent tool: subagent_type).
func (agentCallTool) PermissionSubject(args json.RawMessage) permissions.Subject {
	var v agentCallArgs
	_ = json.Unmarshal(args, &v)
	return permissions.Subject{Name: v.name()}
}

// callTool resolves the tool a call names: one of the session's, or the
// Agent tool, which the agent runs itself but whose calls pass the same
// checks (agentCallTool).
func (a *Agent) callTool(c providers.ToolCall) (Tool, bool) {
	if a.isAgentCall(c) {
		return agentCallTool{spec: a.agentSpec}, true
	}
	t, ok := a.tools[c.Name]
	return t, ok
}

// An agentCall is one Agent call ready to run: its checks passed (and the
// user approved it, where that was asked).
type agentCall struct {
	index  int
	def    *subagents.Definition
	prompt string
	spec   childSpec
	run    childRun
	// context is what PreToolUse hooks told the model of the call, for
	// the end of its result.
	context string
}

// runAgentCalls runs consecutive Agent calls of one response, answering
// results (one per call). Each call first passes the pre-call path of
// every tool call (prepare: PreToolUse hooks, permission rules, approval)
// and the Agent tool's own checks, one call at a time in call order; then
// the subagents run, at most MaxParallelSubagents at once, sharing a sink
// and an approver that take one at a time; then their transcripts are
// recorded and the calls completed (afterCall: PostToolUse hooks) in call
// order, on the turn's goroutine.
func (a *Agent) runAgentCalls(ctx context.Context, calls []providers.ToolCall, results []providers.ToolResult) {
	sink, approver := a.opts.Sink, newSerialApprover(a.out, a.opts.Approver)
	var ready []*agentCall
	ran := make([]bool, len(calls)) // the calls that passed prepare (PostToolUse)
	for i, c := range calls {
		if ctx.Err() != nil {
			break
		}
		p, res, ok := a.prepare(ctx, i, c)
		if !ok {
			results[i] = a.withID(c, res)
			continue
		}
		ran[i] = true
		calls[i].Args, c.Args = string(p.args), string(p.args) // a hook's updatedInput, as run
		ac, res := a.prepareAgentCall(ctx, c)
		if ac == nil {
			results[i] = a.withID(c, withContext(res, p.context))
			continue
		}
		ac.index, ac.context = i, p.context
		ac.spec.sink, ac.spec.approver = sink, approver
		ready = append(ready, ac)
	}
	limit := a.opts.MaxParallelSubagents
	if limit <= 0 {
		limit = defaultParallelSubagents
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for _, ac := range ready {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			ac.run = a.runChild(ctx, ac.spec, ac.prompt)
		})
	}
	wg.Wait()
	for _, ac := range ready {
		c := calls[ac.index]
		results[ac.index] = a.withID(c, withContext(a.finishAgentCall(ctx, c, ac), ac.context))
	}
	for i, c := range calls {
		a.afterCall(ctx, c, results, i, ran[i])
	}
}

// prepareAgentCall checks one Agent call that passed prepare and readies
// its sub-agent: the arguments, the subagent, the user's approval for a
// definition of an untrusted workspace, its model and preloaded skills. It
// returns nil and the call's error result when the call may not run.
func (a *Agent) prepareAgentCall(ctx context.Context, c providers.ToolCall) (*agentCall, providers.ToolResult) {
	var args agentCallArgs
	if err := json.Unmarshal(callArgs(c.Args), &args); err != nil {
		return nil, errorResult("Invalid arguments for Agent: %v", err)
	}
	if strings.TrimSpace(args.Prompt) == "" {
		return nil, errorResult("Invalid arguments for Agent: \"prompt\" is required (the task for the subagent).")
	}
	name := args.name()
	def := a.opts.Subagents.Lookup(name)
	if def == nil {
		return nil, errorResult("Unknown subagent_type '%s'. Available: %s.", name, strings.Join(a.opts.Subagents.Names(), ", "))
	}
	mem, err := a.subagentMemory(def)
	if err != nil {
		return nil, errorResult("Subagent '%s' cannot run: %v", def.Name, err)
	}
	tools := a.subagentTools(def, mem)
	if a.untrustedSubagent(def) {
		question := "subagent " + def.Name + " (from the untrusted workspace, " + def.Path + ") runs with " + describeTools(tools) + describeMemory(mem)
		if why, _ := a.askUntrusted(ctx, agentToolName, question, untrustedSubagentCannotAsk(def.Name), permissions.Subject{Tool: agentToolName, Class: permissions.ClassRead, Name: def.Name}); why != "" {
			return nil, errorResult("%s", why)
		}
	}
	choice, err := a.childModel(def.Model, def.Effort)
	if err != nil {
		return nil, errorResult("Subagent '%s' cannot run: %v", def.Name, err)
	}
	blocks, bad := a.preloadSkills(ctx, def)
	if bad != "" {
		return nil, errorResult("Subagent '%s' cannot run: %s", def.Name, bad)
	}
	prompt := a.subagentPrompt(def, tools, mem)
	// The worktree comes last: every check before it may refuse the call
	// without leaving a worktree behind.
	wt, bad := a.subagentWorktree(ctx, c.ID, def.Name, cmp.Or(strings.TrimSpace(args.Isolation), def.Isolation), cmp.Or(args.Description, def.Name))
	if bad != "" {
		return nil, errorResult("Subagent '%s' cannot run: %s", def.Name, bad)
	}
	if wt != nil {
		tools = worktreeTools(tools, wt)
		prompt.Workspace = wt.Path
		blocks = append(blocks, worktreeBlock(wt))
	}
	spec := childSpec{
		parent: c.ID, key: "agent/" + def.Name, choice: choice,
		tools: tools, prompt: prompt, extra: blocks,
		iterations: a.subagentTurns(def, a.opts.MaxIterations),
		hookAgent:  &HookAgent{ID: c.ID, Type: def.Name},
		deferred:   a.childDeferred(def.Tools, tools),
		worktree:   wt,
	}
	// SubagentStart fires here, on the turn's goroutine, before the
	// sub-agents of the response run at once.
	spec.hookContext = a.startSubagentHooks(ctx, c.ID, def.Name, nil)
	return &agentCall{def: def, prompt: args.Prompt, spec: spec}, providers.ToolResult{}
}

// finishAgentCall records a subagent's transcript and turns its turn into
// the Agent call's result: its final text.
func (a *Agent) finishAgentCall(ctx context.Context, c providers.ToolCall, ac *agentCall) providers.ToolResult {
	res := a.agentCallResult(ctx, c, ac)
	if note := finishWorktree(ctx, ac.spec.worktree); note != "" {
		res.Content = strings.TrimSpace(res.Content + "\n\n" + note)
	}
	return res
}

// agentCallResult is [Agent.finishAgentCall] without the worktree.
func (a *Agent) agentCallResult(ctx context.Context, c providers.ToolCall, ac *agentCall) providers.ToolResult {
	name, run := ac.def.Name, ac.run
	if run.setupErr != nil {
		return errorResult("Subagent '%s' cannot run: %v", name, run.setupErr)
	}
	a.finishChild(run)
	if a.opts.Recorder != nil && (run.history != nil || run.err != nil) {
		a.recorded(a.opts.Recorder.RecordFork(session.Fork{
			Agent: name, CallID: c.ID, Model: ac.spec.choice.Name, Status: run.res.Status, Messages: run.history,
		}))
	}
	final := strings.TrimSpace(run.res.Final)
	switch {
	case run.err == nil && run.history == nil:
		// Never started: the turn was cancelled before its turn came.
		return errorResult("%s", cancelledText)
	case run.err == nil:
		if final == "" {
			final = "(the subagent gave no text)"
		}
		return providers.ToolResult{Content: final}
	case ctx.Err() != nil:
		return errorResult("%s", cancelledText)
	case run.res.Status == StatusMaxIterations:
		return errorResult("Subagent '%s' did not finish: it stopped after %d model requests without a final answer.", name, run.res.Iterations)
	default:
		return errorResult("Subagent '%s' failed: %v", name, run.err)
	}
}

// subagentMemory returns def's own memory (issue 24): nil when its
// definition has no `memory` scope or the session has no memory.
func (a *Agent) subagentMemory(def *subagents.Definition) (*SubagentMemory, error) {
	if def.Memory == "" || a.opts.SubagentMemory == nil {
		return nil, nil
	}
	return a.opts.SubagentMemory(def)
}

// subagentTools returns the tools of a subagent: the session's tools (as
// the model sees them now) that its definition allows, never Agent, Skill
// or skill_create: a subagent does not start subagents, activate skills in
// the session's set or write skills. With its own memory (mem), each
// memory tool of the session is replaced by its own, bound to its folder,
// whether or not its `tools` name it (`memory:` asks for them) unless its
// `disallowedTools` do, and the session's memory tools that have no
// replacement (knowledge) are left out: nothing of it reaches the main
// memory. Without, memory is the session's, as for forks (§8): the memory
// tools only when its `tools` name them.
func (a *Agent) subagentTools(def *subagents.Definition, mem *SubagentMemory) []Tool {
	var out []Tool
	for _, spec := range a.allSpecs() {
		t, ok := a.tools[spec.Name]
		if !ok || spec.Name == skillCreateToolName || spec.Name == agentToolName || spec.Name == skillToolName || spec.Name == toolSearchName {
			continue
		}
		if isMemoryTool(spec.Name) && mem != nil {
			if own := ownMemoryTool(mem, spec.Name); own != nil && def.AllowsOwnMemory(spec.Name, t.Class()) {
				out = append(out, own)
			}
			continue
		}
		if isMemoryTool(spec.Name) && !permissions.NamesTool(def.Tools, spec.Name, t.Class()) {
			continue
		}
		if def.Allows(spec.Name, t.Class()) {
			out = append(out, t)
		}
	}
	return out
}

// ownMemoryTool is the tool of mem called name, nil for none.
func ownMemoryTool(mem *SubagentMemory, name string) Tool {
	for _, t := range mem.Tools {
		if t.Spec().Name == name {
			return t
		}
	}
	return nil
}

// describeTools names a subagent's tools for an approval question.
func describeTools(tools []Tool) string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Spec().Name)
	}
	if len(names) == 0 {
		return "no tools"
	}
	return strings.Join(names, ", ")
}

// describeMemory names a subagent's own memory for an approval question,
// "" for none.
func describeMemory(mem *SubagentMemory) string {
	if mem == nil {
		return ""
	}
	return "; its own " + mem.Scope + " memory is " + mem.Folder
}

// subagentPrompt is a subagent's system prompt: the session's sections with
// the definition's body in place of the identity section. Its `## Memory`
// section is its own memory's when it has one (mem); else the session's
// (the memory tools' rules) stays only when tools, the subagent's, hold a
// memory tool.
func (a *Agent) subagentPrompt(def *subagents.Definition, tools []Tool, mem *SubagentMemory) PromptConfig {
	p := a.opts.Prompt
	p.SystemPrompt = def.Prompt
	p.Identity = nil
	switch {
	case mem != nil:
		p.Memory = subagentMemorySection(def.Name, mem)
	case !slices.ContainsFunc(tools, func(t Tool) bool { return isMemoryTool(t.Spec().Name) }):
		p.Memory = ""
	}
	return p
}

// subagentTurns is a subagent's iteration limit: its maxTurns, which may
// not exceed the session's own limit, else fallback.
func (a *Agent) subagentTurns(def *subagents.Definition, fallback int) int {
	if def.MaxTurns > 0 {
		return min(def.MaxTurns, a.opts.MaxIterations)
	}
	return fallback
}

// preloadSkills returns the blocks of the skills a definition preloads,
// each as it would be activated now, or why one cannot be.
func (a *Agent) preloadSkills(ctx context.Context, def *subagents.Definition) ([]string, string) {
	var blocks []string
	for _, name := range def.Skills {
		if !a.opts.SkillsEnabled {
			return nil, fmt.Sprintf("it preloads the skill '%s', and skills are disabled.", name)
		}
		if a.opts.Skills.Runs(name) {
			return nil, fmt.Sprintf("it preloads the skill '%s', which runs instead of activating and cannot be preloaded.", name)
		}
		act, out := a.opts.Skills.Prepare(a.skillContext(ctx), name, "", true)
		if out.IsError {
			return nil, "it preloads a skill: " + out.Text
		}
		blocks = append(blocks, act.Block())
	}
	return blocks, ""
}

// untrustedSubagent reports whether def comes from the workspace and the
// workspace is not trusted (§9.1).
func (a *Agent) untrustedSubagent(def *subagents.Definition) bool {
	return a.opts.UntrustedWorkspace && def.Project()
}

// untrustedSubagentCannotAsk is the refusal of a project subagent when
// nobody can approve it.
func untrustedSubagentCannotAsk(name string) string {
	return fmt.Sprintf("Subagent '%s' comes from this workspace, which is not trusted, so running it needs the user's approval, and this session cannot ask (trust the workspace with `clawseed trust`, or run with --trust).", name)
}

// knownSubagents lists the subagents for a message.
func (a *Agent) knownSubagents() string {
	names := a.opts.Subagents.Names()
	if len(names) == 0 {
		return "no subagents are defined"
	}
	return "known: " + strings.Join(names, ", ")
}

// OffersAgentTool reports whether a session with the subagents cat and
// policy offers the Agent tool: definitions exist and the policy shows
// it. The app asks too, so that a permission rule on Agent names a tool.
func OffersAgentTool(cat *subagents.Catalog, policy permissions.Policy) bool {
	return cat != nil && len(cat.Agents) > 0 && policy.Visible(agentToolName, permissions.ClassRead)
}
