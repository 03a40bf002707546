package streamjson

import (
	"encoding/json"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
)

// Result is the last message, {"type":"result",...}: Claude Code's
// SDKResultMessage. `run --output json` prints its fields too.
type Result struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	IsError bool   `json:"is_error"`
	// DurationMS is the run's wall time; DurationAPIMS the part spent
	// waiting for model responses (sub-agents' included).
	DurationMS    int64 `json:"duration_ms"`
	DurationAPIMS int64 `json:"duration_api_ms"`
	// NumTurns is the number of model requests of the turn.
	NumTurns  int    `json:"num_turns"`
	Result    string `json:"result"`
	SessionID string `json:"session_id"`
	// TotalCostUSD is 0 when a model used has no known price (Claude Code
	// always has one; `run --output json`'s cost_usd is null then).
	TotalCostUSD float64               `json:"total_cost_usd"`
	Usage        APIUsage              `json:"usage"`
	ModelUsage   map[string]ModelUsage `json:"modelUsage"`
	// PermissionDenials are the calls refused on permission grounds, in
	// order.
	PermissionDenials []Denial `json:"permission_denials"`
	// Errors says why a run that is an error ended.
	Errors []string `json:"errors,omitempty"`
	UUID   string   `json:"uuid"`
}

// A ModelUsage is the part of the usage one model answered, in Claude
// Code's modelUsage shape.
type ModelUsage struct {
	InputTokens              int      `json:"inputTokens"`
	OutputTokens             int      `json:"outputTokens"`
	CacheReadInputTokens     int      `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int      `json:"cacheCreationInputTokens"`
	WebSearchRequests        int      `json:"webSearchRequests"`
	CostUSD                  *float64 `json:"costUSD"`
}

// A Denial is a tool call refused on permission grounds.
type Denial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// An Outcome is how the run ended, as `run` knows it.
type Outcome struct {
	// Status is the turn's: ok, error, cancelled or max_iterations.
	Status     string
	Final      string
	Iterations int
	SessionID  string
	// Models is the run's usage per model with its cost (nil: no price).
	Models []ModelCost
	// CostUSD prices all of Models; nil when a model has no known price.
	CostUSD *float64
	// Err is the turn's error.
	Err error
}

// A ModelCost is one model's usage and its cost (nil: no known price).
type ModelCost struct {
	providers.ModelUsage
	CostUSD *float64
}

// Subtypes of the result message.
const (
	SubtypeSuccess    = "success"
	SubtypeMaxTurns   = "error_max_turns"
	SubtypeExecution  = "error_during_execution"
	resultMessageType = "result"
)

// Result returns the result message of a run that ended with o.
func (s *Stream) Result(o Outcome) Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := Result{
		Type:              resultMessageType,
		Subtype:           subtype(o.Status),
		IsError:           isError(o.Status),
		DurationMS:        s.opts.Now().Sub(s.start).Milliseconds(),
		DurationAPIMS:     s.api.Milliseconds(),
		NumTurns:          o.Iterations,
		Result:            o.Final,
		SessionID:         o.SessionID,
		ModelUsage:        map[string]ModelUsage{},
		PermissionDenials: append([]Denial{}, s.denials...),
		UUID:              s.opts.NewID(),
	}
	if o.CostUSD != nil {
		r.TotalCostUSD = *o.CostUSD
	}
	var total providers.Usage
	for _, m := range o.Models {
		total.Add(m.Usage)
		u := NewAPIUsage(m.Usage)
		r.ModelUsage[m.Model] = ModelUsage{
			InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CacheReadInputTokens: u.CacheReadInputTokens, CacheCreationInputTokens: u.CacheCreationInputTokens,
			CostUSD: m.CostUSD,
		}
	}
	r.Usage = NewAPIUsage(total)
	if r.IsError {
		msg := "the turn was " + o.Status
		if o.Err != nil {
			msg = o.Err.Error()
		}
		r.Errors = []string{msg}
	}
	return r
}

// WriteResult writes the result message, the stream's last line.
func (s *Stream) WriteResult(r Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.write(r)
}

// isError reports whether a turn that ended with status failed: a turn a
// hook stopped (`continue: false`) ended as the hook asked, so it did not.
func isError(status string) bool {
	return status != agent.StatusOK && status != agent.StatusStopped
}

// subtype maps a turn status to the result's subtype: a cancelled turn, and
// a prompt a UserPromptSubmit hook blocked, are errors during execution, as
// Claude Code reports them; a turn a hook stopped is a success.
func subtype(status string) string {
	switch status {
	case agent.StatusOK, agent.StatusStopped:
		return SubtypeSuccess
	case agent.StatusMaxIterations:
		return SubtypeMaxTurns
	}
	return SubtypeExecution
}
