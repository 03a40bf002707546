package agent

import (
	"slices"
	"strings"
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
// [Agent.UsageByPurpose].
func (s *UsageSink) AddFor(purpose, model string, u providers.Usage) {
	if a := s.agent.Load(); a != nil {
		a.addModelUsage(model, u)
		a.addPurposeUsage(purpose, u)
	}
}

// A PurposeUsage is the usage of one kind of side request, which
// [Agent.UsageByModel] counts too.
type PurposeUsage struct {
	Purpose string
	providers.Usage
}

// UsageByPurpose returns the usage of the session's side requests by
// purpose, sorted by purpose (/cost shows a line for each). It is kept
// for the process only: a resumed session's model totals include what
// side requests used before, but start these lines again from zero.
func (a *Agent) UsageByPurpose() []PurposeUsage {
	a.usageMu.Lock()
	defer a.usageMu.Unlock()
	return slices.Clone(a.byPurpose)
}

func (a *Agent) addPurposeUsage(purpose string, u providers.Usage) {
	if u == (providers.Usage{}) {
		return
	}
	a.usageMu.Lock()
	defer a.usageMu.Unlock()
	i, found := slices.BinarySearchFunc(a.byPurpose, purpose, func(p PurposeUsage, name string) int { return strings.Compare(p.Purpose, name) })
	if !found {
		a.byPurpose = slices.Insert(a.byPurpose, i, PurposeUsage{Purpose: purpose})
	}
	a.byPurpose[i].Add(u)
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
