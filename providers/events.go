package providers

import (
	"context"
	"iter"
)

// An EventType names the kind of an [Event].
type EventType string

// The events a provider stream yields.
const (
	// EventTextDelta carries a piece of the assistant's visible text.
	EventTextDelta EventType = "text_delta"
	// EventReasoningDelta carries a piece of reasoning/thinking text, and at the
	// end of a signed thinking block its Signature (Anthropic), at the end
	// of a Responses reasoning item the Item (OpenAI).
	EventReasoningDelta EventType = "reasoning_delta"
	// EventToolCall carries one complete tool call (adapters accumulate deltas).
	EventToolCall EventType = "tool_call"
	// EventUsage carries the token usage of the response.
	EventUsage EventType = "usage"
	// EventStop ends the response and carries the stop reason.
	EventStop EventType = "stop"
)

// A StopReason says why the model stopped.
type StopReason string

// Stop reasons, normalised across providers.
const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
)

// An Event is one item of a streamed model response.
type Event struct {
	Type      EventType `json:"type"`
	Text      string    `json:"text,omitempty"`
	Signature string    `json:"signature,omitempty"`
	Redacted  string    `json:"redacted,omitempty"`
	// Item ends a reasoning part that is a Responses reasoning item.
	Item       *ReasoningItem `json:"item,omitempty"`
	ToolCall   *ToolCall      `json:"tool_call,omitempty"`
	Usage      *Usage         `json:"usage,omitempty"`
	StopReason StopReason     `json:"stop_reason,omitempty"`
	// Model is the model id that produced the event when it is not the
	// request's Model: [Reliable] sets it on every event of an entry that
	// answers with its own model (a fallback). Usage is billed under it.
	Model string `json:"model,omitempty"`
}

// AnsweredBy returns the model that produced ev: its Model, else
// requested (the request's model id).
func (ev Event) AnsweredBy(requested string) string {
	if ev.Model != "" {
		return ev.Model
	}
	return requested
}

// Usage counts the tokens of one or more responses.
//
// InputTokens is the whole prompt, cached or not, on every wire (Anthropic
// reports the three parts separately; its adapter adds them up), so it is
// also the size of the request. CachedInputTokens (read from the provider's
// prompt cache) and CacheWriteTokens (written to it, billed at a premium by
// Anthropic) are parts of InputTokens.
type Usage struct {
	InputTokens       int `json:"input_tokens"`
	OutputTokens      int `json:"output_tokens"`
	CachedInputTokens int `json:"cached_tokens"`
	CacheWriteTokens  int `json:"cache_write_tokens,omitempty"`
	// ReasoningTokens is the part of OutputTokens the model spent
	// reasoning, where the wire reports it (Responses).
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CachedInputTokens += o.CachedInputTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.ReasoningTokens += o.ReasoningTokens
}

// A Streamer sends a [Request] and yields the response as events. The sequence
// ends after an [EventStop] or with a non-nil error (then no further events
// follow). Breaking out of the loop, or cancelling ctx, aborts the HTTP stream.
type Streamer interface {
	Stream(ctx context.Context, req Request) iter.Seq2[Event, error]
}
