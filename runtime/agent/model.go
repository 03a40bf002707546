package agent

// A ModelChoice is what changes when /model switches the session to another
// provider entry: the client, the model id and the settings that belong to
// that model.
type ModelChoice struct {
	Model           Model
	Name            string
	MaxTokens       int
	Temperature     *float64
	ReasoningEffort string
	// TextTools selects the text tool-call protocol (§5.5).
	TextTools bool
	// ContextWindow is the model's window in tokens; 0 keeps the current.
	ContextWindow int
	// Vision is whether the model accepts images ([Options].Vision).
	Vision bool
}

// SwitchModel makes later requests go to c's model (/model NAME, where NAME
// is another [providers.models] entry). The history is carried over as it
// is: each wire sends what it understands of it (reasoning blocks of another
// vendor are left out by the adapters). The skill index is not re-rendered
// for the new window, so the system prompt changes only when the tool
// protocol does. Compaction summaries follow the new model unless
// [context].summary_model names an entry of its own.
func (a *Agent) SwitchModel(c ModelChoice) {
	if c.Model == nil {
		return
	}
	if a.opts.Summarizer == nil {
		// Summaries went to the session's provider, maybe under another
		// model id that the new provider does not know: they now follow
		// the new model.
		a.opts.SummaryModelName = ""
	}
	a.opts.Model = c.Model
	a.opts.ModelName = c.Name
	a.opts.MaxTokens = c.MaxTokens
	a.opts.Temperature = c.Temperature
	a.opts.ReasoningEffort = c.ReasoningEffort
	a.opts.Vision = c.Vision
	if c.ContextWindow > 0 {
		a.opts.ContextWindow = c.ContextWindow
	}
	// The provider's token count of the last request says nothing about
	// the new model's tokenizer.
	a.reported, a.reportedAt = 0, 0
	if c.TextTools != a.opts.TextTools {
		a.opts.TextTools = c.TextTools
		a.buildBase()
	}
}

// Model returns the client requests go to (a fork of the session's model
// shares it).
func (a *Agent) Model() Model { return a.opts.Model }

// SetSessionID changes the id sent as the requests' cache key (/clear
// starts a new session).
func (a *Agent) SetSessionID(id string) { a.opts.SessionID = id }
