package agent

import (
	"slices"

	"github.com/clawseed/clawseed/providers"
)

// UsageByModel returns the tokens used by the session per model id (the
// model each request was sent under), sorted by model. [Agent.Usage] is
// their sum.
//
// A fallback provider that answers in the primary's place bills under its
// own model, but its usage is counted under the request's model id: the
// stream does not say which provider answered.
func (a *Agent) UsageByModel() []providers.ModelUsage {
	a.usageMu.Lock()
	defer a.usageMu.Unlock()
	return slices.Clone(a.byModel)
}

// AddUsage counts the usage of a model request a tool made for the session
// (llm_task). Tools run concurrently, so it may be called from any
// goroutine.
func (a *Agent) AddUsage(model string, u providers.Usage) { a.addModelUsage(model, u) }

// addUsage counts a response to a request of the session's model.
func (a *Agent) addUsage(u providers.Usage) { a.addModelUsage(a.opts.ModelName, u) }

// addModelUsage counts a response's usage under the model its request was
// sent to, in the session and in the session file.
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
