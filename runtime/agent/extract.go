package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// Background memory extraction (issue 24): at the end of a turn in which
// nothing wrote memory, a sub-agent — the one machinery of child.go — reads
// the turn and may store, update or forget memories. It runs with:
//
//   - the memory rules as its system prompt (extract.md), and as its
//     message the memory folders with their MEMORY.md indexes as they are
//     now and the turn, cut to a bounded size (renderTurn);
//   - exactly the tools the app gives in [Extraction.Tools] — reading
//     confined to the memory folders, memory_recall, memory_store and
//     memory_forget — of which it keeps those the session's policy lets
//     run unasked once its memory writes are pre-approved: nobody can be
//     asked in the background. Without memory_store left (read_only
//     autonomy, a denied or always-asked memory_store) it does not run;
//   - no approver, no skills, no subagents, no MCP tools, its own usage
//     (detached: see childSpec).
//
// Its writes are pre-approved because they can only go where the memory
// package writes: memory_store and memory_forget take a name, never a
// path, and the store validates the memory and picks the file inside the
// memory folders itself. The memory folders are not a control path: no
// file there decides what clawseed runs or allows; what the extractor
// stores reaches later prompts only, as the model's own memory_store does.
//
// It runs in the background, after the turn's end was shown (after
// [EventTurnEnd]): the next turn never waits for it. It is a goroutine of
// its own with a child agent made before it starts, touching nothing of
// the session: its usage, its transcript and what it changed are carried
// into the session by the session's goroutine when it is collected — at
// the start of the next turn, when the app asks ([Agent.CollectExtraction],
// chat before each prompt) and when the session ends
// ([Agent.FinishExtraction], which waits, bounded). A turn that ends while
// an extraction runs queues one extraction after it, which reads every
// turn ended meanwhile; the memory store's lock orders its writes with the
// session's. Memory writes of the turn itself, of its sub-agents, or a
// file written into a memory folder skip it (no double writes), and so do
// turns that did not end well (errors, cancellation, limits, hooks).

//go:embed extract.md
var extractRules string

// ExtractPurpose is the purpose of the extractor's requests: /cost's line,
// the usage records of the session file, `run --output json`.
const ExtractPurpose = "memory extraction"

// extractAgent is the extractor's name for hooks (agent_id and
// agent_type of SubagentStart, PreToolUse, PostToolUse, SubagentStop) and
// its cache key.
const extractAgent = "memory-extraction"

// The extractor's bounds: model requests, time per extraction, and the
// size of the turn it reads (≈ 6,000 tokens).
const (
	extractIterations  = 5
	extractTimeout     = 2 * time.Minute
	extractTextRunes   = 4000 // each user or assistant text
	extractArgsRunes   = 200  // each tool call's arguments
	extractResultRunes = 300  // each tool result
	extractTurnRunes   = 24000
)

// memoryWriteTools are the tools whose successful call writes memory; a turn
// with one is not extracted. memory_store and memory_forget are the
// extractor's own writes.
var memoryWriteTools = []string{"memory_forget", "memory_purge", "memory_store"}

const (
	memoryStoreTool  = "memory_store"
	memoryForgetTool = "memory_forget"
)

// Extraction configures background memory extraction ([Options.Extraction]).
type Extraction struct {
	// Tools are all the extractor may have: reading tools confined to the
	// memory folders, memory_recall, memory_store and memory_forget. The
	// app builds them for it; none may reach the workspace or run a
	// command.
	Tools []Tool
	// Folder is where its relative paths resolve (its reading tools'
	// root), shown as its working directory.
	Folder string
	// Memory renders the memory as it is when an extraction starts: each
	// folder and its MEMORY.md index.
	Memory func() string
	// InMemory reports whether a file (absolute, or relative to the
	// workspace) lies in a memory folder: a turn that wrote one with a
	// file tool is not extracted. nil: none does.
	InMemory func(path string) bool
}

// memoryWrites tells the tool calls that write memory.
type memoryWrites struct {
	inMemory func(path string) bool
}

// An extractor is the session's extraction state: the spec its sub-agents
// are made from, and the extractions started and not yet collected,
// oldest first. It belongs to the session's goroutine.
type extractor struct {
	cfg    *Extraction
	tools  []Tool
	policy permissions.Policy
	jobs   []*extractJob
}

// newExtractor returns the extraction state of opts, nil when extraction
// is off or could not write anything; and the memory-write check, nil
// without extraction (no turn needs telling apart).
func newExtractor(opts Options) (*extractor, *memoryWrites) {
	ex := opts.Extraction
	if ex == nil {
		return nil, nil
	}
	writes := &memoryWrites{inMemory: ex.InMemory}
	policy := opts.Policy
	policy.AutoApprove = append(slices.Clone(policy.AutoApprove), memoryStoreTool, memoryForgetTool)
	var kept []Tool
	canStore := false
	for _, t := range ex.Tools {
		name, class := t.Spec().Name, t.Class()
		if class != permissions.ClassRead && name != memoryStoreTool && name != memoryForgetTool {
			continue // only its memory writes are pre-approved
		}
		if !policy.Visible(name, class) || policy.DecideCall(permissions.Call{Tool: name, Class: class}) != permissions.Allow {
			continue // a call that would be asked: nobody can answer
		}
		kept = append(kept, t)
		canStore = canStore || name == memoryStoreTool
	}
	if !canStore {
		return nil, writes
	}
	return &extractor{cfg: ex, tools: kept, policy: policy}, writes
}

// ExtractionTools returns the names of the extractor's tools, sorted; nil
// when extraction is off.
func (a *Agent) ExtractionTools() []string {
	if a.ext == nil {
		return nil
	}
	var names []string
	for _, t := range a.ext.tools {
		names = append(names, t.Spec().Name)
	}
	slices.Sort(names)
	return names
}

// extractPrompt is the extractor's prompt configuration: the rules as its
// identity, the memory folder as its working directory.
func extractPrompt(folder string, level permissions.Level) PromptConfig {
	return PromptConfig{SystemPrompt: extractRules, Workspace: folder, Autonomy: level}
}

// noteMemoryWrites sets memoryWrote when a call of the batch wrote memory:
// a memory tool that succeeded, or a file tool that wrote into a memory
// folder.
func (a *Agent) noteMemoryWrites(calls []providers.ToolCall, results []providers.ToolResult) {
	if a.memWrites == nil || a.memoryWrote {
		return
	}
	for i, c := range calls {
		if results[i].IsError {
			continue
		}
		if slices.Contains(memoryWriteTools, c.Name) {
			a.memoryWrote = true
			return
		}
		fw, ok := a.tools[c.Name].(fileWriter)
		if !ok || a.memWrites.inMemory == nil {
			continue
		}
		for _, w := range fw.Writes(json.RawMessage(c.Args)) {
			if a.memWrites.inMemory(w.Path) {
				a.memoryWrote = true
				return
			}
		}
	}
}

// beginTurnLog starts recording the turn the extractor would read.
func (a *Agent) beginTurnLog(text string) {
	a.memoryWrote = false
	a.turnText, a.turnMsgs = "", nil
	if a.ext != nil {
		a.turnText = text
	}
}

// logTurn keeps the messages a turn adds, for the extractor.
func (a *Agent) logTurn(msgs []providers.Message) {
	if a.ext != nil {
		a.turnMsgs = append(a.turnMsgs, msgs...)
	}
}

// maybeExtract starts an extraction of the turn that just ended, unless it
// did not end well or wrote memory itself.
func (a *Agent) maybeExtract(res TurnResult) {
	text, msgs := a.turnText, a.turnMsgs
	a.turnText, a.turnMsgs = "", nil
	if a.ext == nil || res.Status != StatusOK || res.Iterations == 0 || a.memoryWrote {
		return
	}
	a.startExtraction(renderTurn(text, msgs, a.opts.TextTools, !a.opts.UntrustedWorkspace))
}

// An extractJob is one extraction: its sub-agent, made on the session's
// goroutine, and what its goroutine leaves when done closes.
type extractJob struct {
	mu      sync.Mutex
	turns   []string // the turns it reads; more join until it starts
	started bool

	child  *Agent
	cancel context.CancelFunc
	done   chan struct{}

	// Set by its goroutine before done closes.
	res     TurnResult
	err     error
	history []providers.Message
	stored  []string
	forgot  []string
	calls   map[string]string // memory call id → the name it names
}

// startExtraction queues an extraction of turn: it joins the one waiting
// to start, if any, else a new one starts when the last one ends.
func (a *Agent) startExtraction(turn string) {
	var prev *extractJob
	if n := len(a.ext.jobs); n > 0 {
		prev = a.ext.jobs[n-1]
		prev.mu.Lock()
		waiting := !prev.started
		if waiting {
			prev.turns = append(prev.turns, turn)
		}
		prev.mu.Unlock()
		if waiting {
			return
		}
	}
	job := &extractJob{turns: []string{turn}, done: make(chan struct{})}
	choice, err := a.childModel("", "")
	if err != nil {
		return // the session's own model always resolves
	}
	policy := a.ext.policy
	child, err := a.newChild(childSpec{
		parent:     extractAgent,
		key:        extractAgent,
		choice:     choice,
		tools:      a.ext.tools,
		prompt:     extractPrompt(a.ext.cfg.Folder, a.opts.Policy.Level),
		iterations: extractIterations,
		sink:       job.observe,
		hookAgent:  &HookAgent{ID: extractAgent, Type: extractAgent},
		policy:     &policy,
		detached:   true,
	})
	if err != nil {
		return
	}
	job.child = child
	ctx, cancel := context.WithCancel(context.Background())
	job.cancel = cancel
	var wait <-chan struct{}
	if prev != nil {
		wait = prev.done
	}
	a.ext.jobs = append(a.ext.jobs, job)
	go job.run(ctx, wait, a.ext.cfg.Memory)
}

// run waits for the extraction before it, then runs the sub-agent's turn,
// bounded by extractTimeout. It touches nothing but the job.
func (j *extractJob) run(ctx context.Context, after <-chan struct{}, memory func() string) {
	defer close(j.done)
	defer j.cancel()
	if after != nil {
		select {
		case <-after:
		case <-ctx.Done():
			j.err = ctx.Err()
			return
		}
	}
	j.mu.Lock()
	j.started = true
	turns := j.turns
	j.mu.Unlock()
	index := ""
	if memory != nil {
		index = memory()
	}
	ctx, cancel := context.WithTimeout(ctx, extractTimeout)
	defer cancel()
	// Like every sub-agent it fires SubagentStart (its own hooks' check:
	// it has no skills), then PreToolUse, PostToolUse and SubagentStop as
	// it goes: the user's hooks see, and may refuse, what it does.
	if extra := j.child.startSubagentHooks(ctx, extractAgent, extractAgent, nil); extra != "" {
		j.child.pendingContext = append(j.child.pendingContext, extra)
	}
	j.res, j.err = j.child.Turn(ctx, extractMessage(index, turns))
	j.history = j.child.History()
}

// observe is the sub-agent's sink: it keeps the names of the memories its
// successful memory_store and memory_forget calls changed, whatever the
// tool-call protocol. Its events arrive one at a time, in order.
func (j *extractJob) observe(ev Event) {
	switch {
	case ev.Type == EventToolCall && (ev.Name == memoryStoreTool || ev.Name == memoryForgetTool):
		var args struct {
			Name string `json:"name"`
		}
		if json.Unmarshal([]byte(ev.Args), &args) == nil {
			if j.calls == nil {
				j.calls = map[string]string{}
			}
			j.calls[ev.ID] = strings.TrimSpace(args.Name)
		}
	case ev.Type == EventToolResult && !ev.IsError:
		name, ok := j.calls[ev.ID]
		if !ok {
			return
		}
		if ev.Name == memoryStoreTool {
			j.stored = appendNew(j.stored, name)
		} else {
			j.forgot = appendNew(j.forgot, name)
		}
	}
}

func appendNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// CollectExtraction carries into the session the extractions that ended:
// their usage, and for one that changed memory its transcript (a fork
// record) and a [EventMemoryExtracted] event. It never waits: chat calls
// it before each prompt, [Agent.Turn] as it starts.
func (a *Agent) CollectExtraction() {
	if a.ext == nil {
		return
	}
	for len(a.ext.jobs) > 0 {
		j := a.ext.jobs[0]
		select {
		case <-j.done:
		default:
			return
		}
		a.ext.jobs = a.ext.jobs[1:]
		a.publishExtraction(j)
	}
}

// FinishExtraction waits for the extractions still running, then collects
// them; when ctx ends first they are cancelled (what they wrote stays).
// The session calls it before it ends, bounded, so `run` and chat's exit
// keep the last turn's memories.
func (a *Agent) FinishExtraction(ctx context.Context) {
	if a.ext == nil {
		return
	}
	for _, j := range a.ext.jobs {
		select {
		case <-j.done:
		case <-ctx.Done():
			a.stopExtractions()
			return
		}
	}
	a.CollectExtraction()
}

// Extracting reports whether an extraction has not been collected yet;
// right after [Agent.CollectExtraction], whether one is still running
// (they end in the order they started).
func (a *Agent) Extracting() bool { return a.ext != nil && len(a.ext.jobs) > 0 }

// stopExtractions cancels the extractions, waits for them to return and
// collects them.
func (a *Agent) stopExtractions() {
	if a.ext == nil {
		return
	}
	for _, j := range a.ext.jobs {
		j.cancel()
	}
	for _, j := range a.ext.jobs {
		<-j.done
	}
	a.CollectExtraction()
}

// publishExtraction counts an ended extraction's usage under its purpose
// and, when it changed memory, records its transcript and tells the user.
func (a *Agent) publishExtraction(j *extractJob) {
	var total providers.Usage
	for _, m := range j.child.UsageByModel() {
		a.addPurposeUsage(ExtractPurpose, m.Model, m.Usage)
		total.Add(m.Usage)
	}
	if len(j.stored) == 0 && len(j.forgot) == 0 {
		return
	}
	model := j.res.Model
	if model == "" {
		model = j.child.ModelName()
	}
	if a.opts.Recorder != nil {
		status := j.res.Status
		if status == "" {
			status = StatusError
		}
		a.recorded(a.opts.Recorder.RecordFork(session.Fork{
			Model: model, Status: status, Messages: j.history, Purpose: ExtractPurpose,
		}))
	}
	a.opts.Sink(Event{Type: EventMemoryExtracted, Extraction: &ExtractionInfo{
		Stored: j.stored, Forgotten: j.forgot, Model: model, Usage: total,
	}})
}
