package agent

import (
	"encoding/json"

	"github.com/clawseed/clawseed/providers"
)

// ContextStats estimates how the context window is used, in tokens (about four
// characters per token), for /context.
type ContextStats struct {
	// Base is the system prompt before the skills index.
	Base int
	// Index is the <available_skills> section.
	Index int
	// Active is the <active_skill> blocks.
	Active int
	// Tools is the tool schemas sent with each request.
	Tools int
	// History is the conversation so far.
	History int
}

// Total is the estimated size of the next request.
func (s ContextStats) Total() int { return s.Base + s.Index + s.Active + s.Tools + s.History }

// EstimateTokens approximates the token count of s (~4 characters a token).
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// Context returns the current context usage estimate.
func (a *Agent) Context() ContextStats {
	st := ContextStats{Base: EstimateTokens(a.base), Index: EstimateTokens(a.index.Text)}
	if a.opts.SkillsEnabled {
		st.Active = EstimateTokens(a.opts.Skills.Render())
	}
	if !a.opts.TextTools {
		b, _ := json.Marshal(a.specs)
		st.Tools = EstimateTokens(string(b))
	}
	for _, m := range a.history {
		st.History += messageTokens(m)
	}
	return st
}

func messageTokens(m providers.Message) int {
	n := 4 // per-message overhead
	for _, p := range m.Parts {
		n += EstimateTokens(p.Text)
		if p.ToolCall != nil {
			n += EstimateTokens(p.ToolCall.Name + p.ToolCall.Args)
		}
		if p.ToolResult != nil {
			n += EstimateTokens(p.ToolResult.Content)
		}
	}
	return n
}
