package agent

import (
	"github.com/clawseed/clawseed/providers"
)

// ContextStats estimates how the context window is used, in tokens (about four
// characters per token).
type ContextStats struct {
	// Base is the system prompt before the skills index, without the
	// project instructions.
	Base int
	// Instructions is the `## Project instructions` section.
	Instructions int
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
func (s ContextStats) Total() int {
	return s.Base + s.Instructions + s.Index + s.Active + s.Tools + s.History
}

// EstimateTokens approximates the token count of s (~4 characters a token).
func EstimateTokens(s string) int { return EstimateTokensOf(len(s)) }

// EstimateTokensOf is [EstimateTokens] of a text of n bytes.
func EstimateTokensOf(n int) int { return (n + 3) / 4 }

// Context returns the current context usage estimate, from characters only.
func (a *Agent) Context() ContextStats {
	instr := EstimateTokens(a.opts.Prompt.Instructions)
	st := ContextStats{Base: max(EstimateTokens(a.base)-instr, 0), Instructions: instr, Index: EstimateTokens(a.index.Text), Tools: a.toolSchemaTokens()}
	if a.opts.SkillsEnabled {
		st.Active = EstimateTokens(a.opts.Skills.Render())
	}
	for _, m := range a.history {
		st.History += messageTokens(m)
	}
	return st
}

// estimate returns the expected input tokens of the next request (§7): the
// provider's count for the previous request plus the estimate of what was
// added since, or the plain estimate when there is no count.
func (a *Agent) estimate(st ContextStats) int {
	if a.reported > 0 {
		return max(0, a.reported+st.Total()-a.reportedAt)
	}
	return st.Total()
}

// A ContextReport is the /context breakdown, also printed by
// `clawseed run --output json` as "context".
type ContextReport struct {
	// Window is the model's context window.
	Window int `json:"window"`
	// Base, Instructions, Index, Active, Tools and History estimate the
	// parts of the next request (see [ContextStats]).
	Base         int `json:"base"`
	Instructions int `json:"instructions"`
	Index        int `json:"index"`
	Active       int `json:"active_skills"`
	Tools        int `json:"tools"`
	History      int `json:"history"`
	// Total is the expected size of the next request, anchored on the
	// provider's last reported count when there is one.
	Total int `json:"total"`
	// Free is Window minus Total.
	Free int `json:"free"`
	// CompactAt is the size above which the history is compacted.
	CompactAt int `json:"compact_at"`
	// IndexLevel is the budget level the skill index was rendered at (§4.4).
	IndexLevel string `json:"index_level"`
	// SkillsListed of SkillsTotal skills are in the index.
	SkillsListed int `json:"skills_listed"`
	SkillsTotal  int `json:"skills_total"`
	// Messages is the number of history messages.
	Messages int `json:"messages"`
}

// ContextReport returns the context breakdown for /context.
func (a *Agent) ContextReport() ContextReport {
	st := a.Context()
	total := a.estimate(st)
	return ContextReport{
		Window:       a.opts.ContextWindow,
		Base:         st.Base,
		Instructions: st.Instructions,
		Index:        st.Index,
		Active:       st.Active,
		Tools:        st.Tools,
		History:      st.History,
		Total:        total,
		Free:         a.opts.ContextWindow - total,
		CompactAt:    a.threshold(),
		IndexLevel:   a.index.Level.String(),
		SkillsListed: a.index.Listed,
		SkillsTotal:  a.index.Total,
		Messages:     len(a.history),
	}
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
	// An image costs by its size, as the vendors count it, not by its
	// bytes.
	return n + imageTokens(m)
}
