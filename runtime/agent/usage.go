package agent

import (
	"slices"
	"sync/atomic"

	"github.com/clawseed/clawseed/providers"
)

// UsageByModel returns the tokens used by the session per model id, sorted
// by model. [Agent.Usage] is their sum. Each response counts under the
// model that answered it: the request's, or the fallback's own model when
// a fallback answered in the primary's place ([providers.Event.Model]).
// Fork skills' requests count here too.
func (a *Agent) UsageByModel() []providers.ModelUsage {
	a.usageMu.Lock()
	defer a.usageMu.Unlock()
	return slices.Clone(a.byModel)
}

// A UsageSink counts the model requests that tools make themselves
// (llm_task) in the session of the agent it is given to
// ([Options.Usage]), and so in its session file. It exists so that the
// tools can be built before the agent, in dependency order: make the sink
// first, give [UsageSink.Add] to the tools and the sink to [New], which
// connects it. Tools run concurrently, so Add may be called from any
// goroutine; usage added while no agent is connected is dropped.
type UsageSink struct {
	agent atomic.Pointer[Agent]
}

// Add counts the usage of one request a tool made, under the model that
// answered it.
func (s *UsageSink) Add(model string, u providers.Usage) {
	if a := s.agent.Load(); a != nil {
		a.addModelUsage(model, u)
	}
}

// AddFor counts the usage of a side request the session made for purpose
// (automatic recall's "memory recall"): in the session's usage under the
// model that answered, like [UsageSink.Add], and in that purpose's line of
// [Agent.UsageByPurpose], recorded with its purpose.
func (s *UsageSink) AddFor(purpose, model string, u providers.Usage) {
	if a := s.agent.Load(); a != nil {
		a.addPurposeUsage(purpose, model, u)
	}
}

// addUsage counts a response to a request of the session's model, under
// the model that answered it.
func (a *Agent) addUsage(r *response) { a.addModelUsage(r.answeredBy(a.opts.ModelName), r.usage) }

// addModelUsage counts a response's usage under the model that answered it,
// in the session and in the session file.
func (a *Agent) addModelUsage(model string, u providers.Usage) {
	if u == (providers.Usage{}) {
		return
	}
	a.usageMu.Lock()
	defer a.usageMu.Unlock()
	a.usage.Add(u)
	a.byModel = providers.AddModelUsage(a.byModel, model, u)
	if a.opts.Recorder != nil {
		a.recorded(a.opts.Recorder.RecordUsage(model, u))
	}
}

// summaryModelName is the model id of compaction summary requests.
func (a *Agent) summaryModelName() string {
	if a.opts.SummaryModelName != "" {
		return a.opts.SummaryModelName
	}
	return a.opts.ModelName
}

// restoreUsage puts a saved session's per-model usage back (Resume).
func (a *Agent) restoreUsage(byModel []providers.ModelUsage) {
	a.byModel = nil
	for _, m := range byModel {
		a.byModel = providers.AddModelUsage(a.byModel, m.Model, m.Usage)
	}
	a.usage = providers.TotalUsage(a.byModel)
}

// UsageByPurpose returns the part of the session's usage spent on requests
// clawseed made on its own ("memory extraction"), per purpose and model,
// sorted. It is counted in [Agent.UsageByModel] too.
func (a *Agent) UsageByPurpose() []providers.PurposeUsage {
	a.usageMu.Lock()
	defer a.usageMu.Unlock()
	return slices.Clone(a.byPurpose)
}

// A purposeRecorder records usage with its purpose (runtime/session's
// Writer); a [Recorder] without it records the usage under its model only.
type purposeRecorder interface {
	RecordPurposeUsage(purpose, model string, u providers.Usage) error
}

// addPurposeUsage counts usage of a request clawseed made on its own for
// purpose: in the session's totals and per model as any request, apart
// per purpose, and in the session file with its purpose.
func (a *Agent) addPurposeUsage(purpose, model string, u providers.Usage) {
	if u == (providers.Usage{}) {
		return
	}
	a.usageMu.Lock()
	defer a.usageMu.Unlock()
	a.usage.Add(u)
	a.byModel = providers.AddModelUsage(a.byModel, model, u)
	a.byPurpose = providers.AddPurposeUsage(a.byPurpose, purpose, model, u)
	switch r := a.opts.Recorder.(type) {
	case nil:
	case purposeRecorder:
		a.recorded(r.RecordPurposeUsage(purpose, model, u))
	default:
		a.recorded(r.RecordUsage(model, u))
	}
}

// RestorePurposeUsage puts a saved session's usage per purpose back
// (session.Session.UsageByPurpose); call it with [Agent.Resume], whose
// totals include it.
func (a *Agent) RestorePurposeUsage(list []providers.PurposeUsage) {
	a.usageMu.Lock()
	defer a.usageMu.Unlock()
	a.byPurpose = nil
	for _, p := range list {
		a.byPurpose = providers.AddPurposeUsage(a.byPurpose, p.Purpose, p.Model, p.Usage)
	}
}
