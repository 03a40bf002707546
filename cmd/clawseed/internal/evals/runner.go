package evals

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
)

// RunOptions are what one run of a case changes of the session.
type RunOptions struct {
	// Without are skills removed from the catalog for this run (the
	// baseline arm).
	Without []string
	// Descriptions replace skills' descriptions (skill name →
	// description), to measure a proposed description (--suggest).
	Descriptions map[string]string
	// MaxTurns bounds the model requests of the run; 0 takes the case's
	// MaxTurns, then [agent].max_tool_iterations. A run of 1 stops after
	// the first response, before any of its tool calls runs: what a
	// trigger-only case needs (its first tool call decides), and what
	// makes a catalog-wide eval cheap. Skill searches do not decide: up
	// to 2 responses that only search are let through first (a skill
	// the index leaves out is found by searching).
	MaxTurns int
}

// A Runner runs cases, each in a fresh headless session built as `run`
// builds one ([app.Build]) and made an eval run's ([app.EvalRun]: no
// session file, no memory, no hooks, every tool that acts refused unless
// the case allows it). It is made once per command and is safe for
// concurrent use: each Run builds its own session.
type Runner struct {
	cfg     *config.Config
	proc    *app.Process
	log     *slog.Logger
	notices io.Writer
}

// RunnerOptions are what the command gives the runner.
type RunnerOptions struct {
	// Process is the program's (cmd/clawseed's run makes it).
	Process *app.Process
	Log     *slog.Logger
	// Notices receives what the sessions say at start and the provider's
	// retry and fallback lines, each distinct line once; nil discards
	// them.
	Notices io.Writer
}

// NewRunner returns a runner of sessions built from cfg.
func NewRunner(cfg *config.Config, o RunnerOptions) *Runner {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var notices io.Writer = io.Discard
	if o.Notices != nil {
		notices = &onceWriter{w: o.Notices, seen: map[string]bool{}}
	}
	return &Runner{cfg: cfg, proc: o.Process, log: log, notices: notices}
}

// onceWriter passes each distinct line on once: every run builds a
// session, and what a session says at start (a settings file's problem, a
// plugin's warning) would otherwise be said once per run.
type onceWriter struct {
	mu   sync.Mutex
	w    io.Writer
	seen map[string]bool
	part []byte // a line not yet ended
}

func (o *onceWriter) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.part = append(o.part, p...)
	for {
		i := bytes.IndexByte(o.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(o.part[:i+1])
		o.part = o.part[i+1:]
		if !o.seen[line] {
			o.seen[line] = true
			if _, err := io.WriteString(o.w, line); err != nil {
				return len(p), err
			}
		}
	}
}

// errStopped is the cause of a trigger-only run's end: its first response
// decided.
var errStopped = errors.New("evals: the first response decided")

// Run runs c once and returns what the run did. Errors (the configuration,
// the provider, ctx's end) are the Run's Err, never a panic or a partial
// report: the caller counts them per run.
func (r *Runner) Run(ctx context.Context, c Case, opts RunOptions) Run {
	maxTurns := opts.MaxTurns
	if maxTurns <= 0 {
		maxTurns = c.MaxTurns
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rec := &recorder{trigger: maxTurns == 1, stop: func() { cancel(errStopped) }}
	iterations := maxTurns
	if rec.trigger {
		iterations += maxSearches
	}
	s, err := app.Build(ctx, r.cfg, app.Options{
		Sink: rec.handle, MaxIterations: iterations, Log: r.log, Notices: r.notices, Process: r.proc,
		Eval: &app.EvalRun{Without: opts.Without, Descriptions: opts.Descriptions, AllowedTools: c.AllowedTools},
	})
	if err != nil {
		return Run{Err: err}
	}
	defer s.Shutdown()
	ag := s.Agent()
	before := ag.UsageByModel()
	var res agent.TurnResult
	text, err := s.Prompt(ctx, c.Prompt, r.notices)
	if err == nil {
		rec.begin(c.Prompt)
		res, err = ag.Turn(ctx, text)
	}
	usage := providers.UsageSince(ag.UsageByModel(), before)
	run := rec.run()
	run.Status = res.Status
	run.Reply = res.Final
	run.Usage = providers.TotalUsage(usage)
	bill := providers.Charge(usage, s.Prices())
	run.CostUSD, run.Unpriced = bill.USD, bill.Unpriced
	switch {
	case errors.Is(context.Cause(ctx), errStopped):
		// Stopped on purpose: the status says cancelled, the run is whole.
		run.Status = agent.StatusOK
	case errors.Is(err, agent.ErrMaxIterations):
		// The case's turn limit: an outcome, not a failure.
	case err != nil:
		run.Err = err
	}
	return run
}

// maxSearches is how many responses of Skill searches a trigger-only run
// lets through before the response that decides: a catalog larger than
// the index's budget lists some skills only through the Skill tool's
// search, which reads the catalog and acts on nothing.
const maxSearches = 2

// maxResultChars bounds a tool result in a run's transcript.
const maxResultChars = 2000

// recorder turns a run's agent events into its Run. The agent may call it
// from its tool goroutines, hence the lock.
type recorder struct {
	// trigger: stop at the first response that decides (one with no
	// call, or a call other than a Skill search), before its calls run.
	trigger bool
	stop    func()

	mu         sync.Mutex
	started    bool
	responses  int
	calls      []ToolCall
	activated  []string
	requested  []string // skills the Skill calls asked for
	transcript strings.Builder
}

// begin marks the start of the case's turn: what came before (always-on
// skills, a /NAME prompt's activation) is the session's set-up.
func (r *recorder) begin(prompt string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = true
	r.transcript.WriteString("user: " + prompt + "\n")
}

func (r *recorder) handle(ev agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started || ev.Parent != "" {
		// A fork skill's or sub-agent's events are theirs, not the run's.
		return
	}
	switch ev.Type {
	case agent.EventResponse:
		r.responses++
		calls, searches := 0, 0
		for _, p := range ev.Response.Message.Parts {
			switch {
			case p.Type == providers.PartText && strings.TrimSpace(p.Text) != "":
				r.transcript.WriteString("assistant: " + p.Text + "\n")
			case p.Type == providers.PartToolCall && p.ToolCall != nil:
				call := ToolCall{Name: p.ToolCall.Name, Input: rawArgs(p.ToolCall.Args)}
				r.calls = append(r.calls, call)
				r.transcript.WriteString("call " + call.Name + " " + string(call.Input) + "\n")
				if name, ok := skillActivation(call); ok {
					r.requested = append(r.requested, name)
				}
				calls++
				if isSkillSearch(call) {
					searches++
				}
			}
		}
		decided := calls == 0 || searches < calls
		if r.trigger && (decided || r.responses > maxSearches) {
			r.stop()
		}
	case agent.EventToolResult:
		res := ev.Result
		if n := len(res); n > maxResultChars {
			res = res[:maxResultChars] + "…"
		}
		r.transcript.WriteString("result " + ev.Name + ": " + res + "\n")
	case agent.EventSkillActivated:
		r.activated = append(r.activated, ev.Name)
	}
}

// run is the Run of what was recorded.
func (r *recorder) run() Run {
	r.mu.Lock()
	defer r.mu.Unlock()
	run := Run{ToolCalls: r.calls, Activated: r.activated, Transcript: r.transcript.String()}
	if r.trigger && run.Activated == nil {
		// Stopped before any call ran: the skills its Skill calls asked for.
		run.Activated = r.requested
	}
	for _, c := range r.calls {
		if !isSkillSearch(c) {
			run.FirstTool = c.Name
			run.FirstSkill, _ = skillActivation(c)
			break
		}
	}
	return run
}

// skillActivation returns the skill a Skill call activates; false for
// another tool, or a Skill call that searches or deactivates.
func skillActivation(c ToolCall) (string, bool) {
	if c.Name != "Skill" {
		return "", false
	}
	var args struct {
		Skill  string `json:"skill"`
		Action string `json:"action"`
	}
	if json.Unmarshal(c.Input, &args) != nil || args.Skill == "" || args.Action != "" && args.Action != "activate" {
		return "", false
	}
	return args.Skill, true
}

// isSkillSearch reports whether c is a Skill call that searches the
// catalog: it decides nothing (see maxSearches).
func isSkillSearch(c ToolCall) bool {
	if c.Name != "Skill" {
		return false
	}
	var args struct {
		Action string `json:"action"`
	}
	return json.Unmarshal(c.Input, &args) == nil && args.Action == "search"
}

// rawArgs is a call's argument text as JSON: as written when it is valid
// JSON, else a JSON string of it.
func rawArgs(args string) json.RawMessage {
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args)
	return b
}
