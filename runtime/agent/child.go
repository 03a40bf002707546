package agent

import (
	"context"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// A sub-agent — a fork skill's (fork.go) or a subagent's (subagent.go) — is
// the same loop with a history of its own: one machinery for both, here.
// Its events reach the session's sink with Parent set to the call it
// answers, its usage counts toward the session (and is recorded there),
// what the user approves in it for a skill's content counts for the
// session, and its transcript is returned for a fork record.

// A childSpec is what a sub-agent runs with.
type childSpec struct {
	// parent is the id of the call it answers, or "/NAME" for a user's
	// /NAME; its events carry it.
	parent string
	// key tells its cache key from the session's: "fork/NAME" or
	// "agent/NAME".
	key    string
	choice ModelChoice
	tools  []Tool
	prompt PromptConfig
	// extra are the system blocks after its base sections: preloaded
	// skills, a fork's skill.
	extra []string
	// pre are allowed-tools entries that pre-approve its calls.
	pre        []string
	iterations int
	approver   Approver
	sink       Sink
	// hookAgent describes it to the session's hooks (SubagentStop,
	// agent_id); hookContext is what SubagentStart hooks gave it, added to
	// its first message.
	hookAgent   *HookAgent
	hookContext string
	// policy, when set, replaces the session's tool policy: the memory
	// extractor's pre-approves its memory writes (extract.go).
	policy *permissions.Policy
	// deferred are the tools among tools it defers ([Options.Deferred]).
	deferred []string
	// worktree, when set, is the git worktree it works in: its control
	// paths, path forms and shell lines are the worktree's.
	worktree *Worktree
	// detached: its usage stays its own and nothing of it is recorded, its
	// approvals do not count for the session; the caller carries into the
	// session what it must, on the session's goroutine. The memory
	// extractor, which runs while the session goes on, is.
	detached bool
}

// A childRun is what a sub-agent's turn left.
type childRun struct {
	res TurnResult
	// err is the turn's error; setupErr is set instead when the sub-agent
	// could not be made.
	err, setupErr error
	history       []providers.Message
	// wrote: a write or exec call of the sub-agent succeeded;
	// wroteMemory: one of them wrote memory (extract.go).
	wrote, wroteMemory bool
}

// childModel is the model a sub-agent asks: the session's, or the one
// model names (an entry, a preset, a model id or a Claude Code alias,
// through [Options.ForkModel]; "" and "inherit" keep the session's), with
// effort as its reasoning effort when set.
func (a *Agent) childModel(model, effort string) (ModelChoice, error) {
	choice := ModelChoice{
		Model: a.opts.Model, Name: a.opts.ModelName, MaxTokens: a.opts.MaxTokens,
		Temperature: a.opts.Temperature, ReasoningEffort: a.opts.ReasoningEffort,
		TextTools: a.opts.TextTools, ContextWindow: a.opts.ContextWindow, Vision: a.opts.Vision,
	}
	if model != "" && model != "inherit" && a.opts.ForkModel != nil {
		c, err := a.opts.ForkModel(model, choice)
		if err != nil {
			return ModelChoice{}, modelError{model, err}
		}
		choice = c
		if choice.ContextWindow <= 0 {
			choice.ContextWindow = a.opts.ContextWindow
		}
	}
	if effort != "" {
		choice.ReasoningEffort = effort
	}
	return choice, nil
}

// A modelError is a sub-agent's model that does not resolve.
type modelError struct {
	name string
	err  error
}

func (e modelError) Error() string { return "model \"" + e.name + "\": " + e.err.Error() }

// runChild runs one turn of a sub-agent on msg. It may run on its own
// goroutine, beside other sub-agents: it changes nothing of a but its
// usage (locked) and what its sink and approver do, which the caller
// makes safe for that.
func (a *Agent) runChild(ctx context.Context, spec childSpec, msg string) childRun {
	child, err := a.newChild(spec)
	if err != nil {
		return childRun{setupErr: err}
	}
	res, err := child.Turn(ctx, msg)
	return childRun{res: res, err: err, history: child.History(), wrote: child.wrote, wroteMemory: child.memoryWrote}
}

// newChild makes the sub-agent spec describes. It reads a's options, so it
// runs on the session's goroutine (or while that goroutine waits for the
// sub-agents of its turn); the sub-agent it returns shares with a only
// what is safe to use from another goroutine (the hooks, the action
// limiter, the sink, and unless detached the usage and the approvals).
func (a *Agent) newChild(spec childSpec) (*Agent, error) {
	var rec Recorder = &childRecorder{parent: a}
	if spec.detached {
		rec = nil
	}
	policy := a.policy() // plan mode included
	if spec.policy != nil {
		policy = *spec.policy
	}
	sink := spec.sink
	controlPath, pathForms, shellLine := a.opts.ControlPath, a.opts.PathForms, a.opts.ShellLine
	if w := spec.worktree; w != nil {
		controlPath, pathForms, shellLine = w.ControlPath, w.PathForms, w.ShellLine
	}
	child, err := New(Options{
		Model:              spec.choice.Model,
		ModelName:          spec.choice.Name,
		MaxTokens:          spec.choice.MaxTokens,
		Temperature:        spec.choice.Temperature,
		ReasoningEffort:    spec.choice.ReasoningEffort,
		TextTools:          spec.choice.TextTools,
		Vision:             spec.choice.Vision,
		Tools:              spec.tools,
		Deferred:           spec.deferred,
		Policy:             policy,
		Approver:           spec.approver,
		Prompt:             spec.prompt,
		SystemExtra:        spec.extra,
		PreApproved:        spec.pre,
		ControlPath:        controlPath,
		Rules:              a.opts.Rules,
		RuleBases:          a.opts.RuleBases,
		PathForms:          pathForms,
		ShellLine:          shellLine,
		Hooks:              a.opts.Hooks,
		UntrustedWorkspace: a.opts.UntrustedWorkspace,
		HookAgent:          spec.hookAgent,
		MaxIterations:      spec.iterations,
		ParallelTools:      a.opts.ParallelTools,
		ToolTimeout:        a.opts.ToolTimeout,
		MaxToolOutputChars: a.opts.MaxToolOutputChars,
		Actions:            a.opts.Actions,
		ContextWindow:      spec.choice.ContextWindow,
		CompactAtPercent:   a.opts.CompactAtPercent,
		KeepRecentTokens:   a.opts.KeepRecentTokens,
		Recorder:           rec,
		// A cache key of its own: its prompt shares no prefix with the
		// session's beyond the base sections.
		SessionID: childCacheKey(a.opts.SessionID, spec.key),
		Now:       a.opts.Now,
		Sink: func(ev Event) {
			if ev.Type == EventTurnStart || ev.Type == EventTurnEnd {
				return
			}
			ev.Parent = spec.parent
			sink(ev)
		},
	})
	if err != nil {
		return nil, err
	}
	if !spec.detached {
		child.grants = a.grants // what the user approves in it counts for the session
		child.always = a.always
	}
	// Its memory writes are told apart as the session's are: a turn whose
	// sub-agent wrote memory is not extracted again.
	child.memWrites = a.memWrites
	if spec.hookContext != "" {
		child.pendingContext = append(child.pendingContext, spec.hookContext)
	}
	return child, nil
}

// finishChild carries into the session what a sub-agent's run changes
// there: a write of the sub-agent may make a `paths` skill match. It runs
// on the turn's goroutine.
func (a *Agent) finishChild(run childRun) {
	if run.wrote {
		a.wrote = true
	}
	if run.wroteMemory {
		a.memoryWrote = true
	}
}

func childCacheKey(session, key string) string {
	if session == "" {
		return ""
	}
	return session + "/" + key
}

// childRecorder keeps a sub-agent's messages for its fork record and sends
// its usage to the session: counted in the parent's totals and recorded
// there.
type childRecorder struct{ parent *Agent }

func (r *childRecorder) RecordMessage(providers.Message) error     { return nil }
func (r *childRecorder) RecordSkill(session.SkillChange) error     { return nil }
func (r *childRecorder) RecordCompaction(session.Compaction) error { return nil }
func (r *childRecorder) RecordFork(session.Fork) error             { return nil }
func (r *childRecorder) RecordRecall([]string) error               { return nil }
func (r *childRecorder) RecordTodos([]session.Todo) error          { return nil }
func (r *childRecorder) RecordUsage(model string, u providers.Usage) error {
	r.parent.addModelUsage(model, u)
	return nil
}

// An outputLock orders what reaches the user from sub-agents that run at
// once: their events, and their approval prompts, one at a time. A prompt
// holds it until answered, so no other sub-agent's output lands in the
// middle of the question (and the chat renderer, which the prompt also
// uses, is never used by two goroutines).
type outputLock chan struct{}

func newOutputLock() outputLock { return make(chan struct{}, 1) }

func (l outputLock) lock()   { l <- struct{}{} }
func (l outputLock) unlock() { <-l }

// lockContext takes the lock, or gives up when ctx ends.
func (l outputLock) lockContext(ctx context.Context) error {
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// lockedSink makes a sink safe to call from several goroutines, one event
// at a time under l: sub-agents running at once share their session's
// sink, whose consumers (the chat renderer, stream-json) write one event
// at a time.
func lockedSink(l outputLock, sink Sink) Sink {
	return func(ev Event) {
		l.lock()
		defer l.unlock()
		sink(ev)
	}
}

// A serialApprover lets the sub-agents of one response that run at once
// ask the user one at a time, holding their session's output lock while
// asking. Waiting for the turn to ask ends with the context.
type serialApprover struct {
	out   outputLock
	inner Approver
}

func newSerialApprover(out outputLock, inner Approver) Approver {
	if inner == nil {
		return nil // nobody can ask: every call that needs asking is refused
	}
	return &serialApprover{out: out, inner: inner}
}

func (s *serialApprover) Approve(ctx context.Context, req ApprovalRequest) (ApprovalAnswer, error) {
	if err := s.out.lockContext(ctx); err != nil {
		return ApprovalAnswer{Decision: Deny}, err
	}
	defer s.out.unlock()
	return s.inner.Approve(ctx, req)
}

// AnswersAtOnce passes on whether the inner approver asks nobody (the
// sub-agent then fires no Notification hooks, [Unattended]).
func (s *serialApprover) AnswersAtOnce() bool {
	u, ok := s.inner.(Unattended)
	return ok && u.AnswersAtOnce()
}
