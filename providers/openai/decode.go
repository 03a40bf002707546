package openai

import (
	"crypto/rand"
	"encoding/json"
	"sort"
	"strings"

	"github.com/clawseed/clawseed/providers"
)

// chunk is one streamed chat.completion.chunk, or a whole chat.completion
// when a server ignores stream:true (then Message is set instead of Delta).
//
// The adapter decodes chunks itself rather than through the SDK's typed
// ChatCompletionChunk: the fields that matter here — reasoning_content,
// reasoning, DeepSeek's prompt_cache_hit_tokens, tool-call deltas without an
// index — are vendor extensions the SDK only exposes as raw extra fields.
type chunk struct {
	Choices []struct {
		Index        int     `json:"index"`
		Delta        delta   `json:"delta"`
		Message      *delta  `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage          `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type delta struct {
	Content string `json:"content"`
	// ReasoningContent is DeepSeek's, Moonshot's and Qwen's field; Reasoning
	// is OpenRouter's and newer vLLM's. Raw so a non-string value (some
	// servers send an object) is skipped instead of failing the chunk.
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	Reasoning        json.RawMessage `json:"reasoning"`
	ToolCalls        []toolCallDelta `json:"tool_calls"`
}

type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type usage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	// PromptCacheHitTokens is DeepSeek's name for cached input.
	PromptCacheHitTokens int `json:"prompt_cache_hit_tokens"`
}

// accumulator collects one response's tool calls, finish reason and usage
// while text and reasoning deltas flow straight through.
//
// Tool calls are keyed by their delta's index, not by chunk or call id: the
// SDK's accumulator gives up when a chunk id changes (several compatible
// servers do that) and mixes up interleaved parallel calls.
type accumulator struct {
	calls  map[int]*providers.ToolCall
	order  []int // indexes in first-seen order, for deltas without an index
	finish string
	usage  *providers.Usage
}

// add folds one chunk in and returns the events it produces right away.
func (a *accumulator) add(c *chunk) []providers.Event {
	if c.Usage != nil {
		a.usage = c.Usage.neutral()
	}
	var events []providers.Event
	for _, choice := range c.Choices {
		if choice.Index != 0 {
			continue // n is never set, so only choice 0 exists
		}
		d := &choice.Delta
		if choice.Message != nil {
			d = choice.Message
		}
		if r := reasoningText(d); r != "" {
			events = append(events, providers.Event{Type: providers.EventReasoningDelta, Text: r})
		}
		if d.Content != "" {
			events = append(events, providers.Event{Type: providers.EventTextDelta, Text: d.Content})
		}
		for _, tc := range d.ToolCalls {
			a.addToolCall(tc)
		}
		if choice.FinishReason != nil && *choice.FinishReason != "" {
			a.finish = *choice.FinishReason
		}
	}
	return events
}

// reasoningText prefers reasoning_content over reasoning: servers that send
// both send the same text twice.
func reasoningText(d *delta) string {
	for _, raw := range []json.RawMessage{d.ReasoningContent, d.Reasoning} {
		var s string
		if len(raw) > 0 && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

func (a *accumulator) addToolCall(tc toolCallDelta) {
	if a.calls == nil {
		a.calls = make(map[int]*providers.ToolCall)
	}
	idx := a.indexFor(tc)
	call, ok := a.calls[idx]
	if !ok {
		call = &providers.ToolCall{}
		a.calls[idx] = call
		a.order = append(a.order, idx)
	}
	// The first non-empty id and name win: some servers repeat them in every
	// delta, and a name must never be concatenated.
	if call.ID == "" {
		call.ID = tc.ID
	}
	if call.Name == "" {
		call.Name = tc.Function.Name
	}
	call.Args += tc.Function.Arguments
}

// indexFor places a delta that lacks an index (or carries Bedrock's -1): a
// new id starts a new call, anything else continues the latest call.
func (a *accumulator) indexFor(tc toolCallDelta) int {
	if tc.Index != nil && *tc.Index >= 0 {
		return *tc.Index
	}
	if len(a.order) == 0 {
		return a.nextIndex()
	}
	last := a.order[len(a.order)-1]
	if tc.ID != "" && a.calls[last].ID != "" && a.calls[last].ID != tc.ID {
		for idx, c := range a.calls {
			if c.ID == tc.ID {
				return idx
			}
		}
		return a.nextIndex()
	}
	return last
}

func (a *accumulator) nextIndex() int {
	next := 0
	for idx := range a.calls {
		next = max(next, idx+1)
	}
	return next
}

// finishEvents returns the tool calls in index order, the usage and the stop
// event that end a complete response.
func (a *accumulator) finishEvents() []providers.Event {
	idxs := make([]int, 0, len(a.calls))
	for idx := range a.calls {
		idxs = append(idxs, idx)
	}
	sort.Ints(idxs)
	var events []providers.Event
	for _, idx := range idxs {
		c := *a.calls[idx]
		if c.Name == "" && c.ID == "" && strings.TrimSpace(c.Args) == "" {
			continue // an empty delta, not a call
		}
		if c.ID == "" {
			c.ID = newCallID()
		}
		events = append(events, providers.Event{Type: providers.EventToolCall, ToolCall: &c})
	}
	if a.usage != nil {
		events = append(events, providers.Event{Type: providers.EventUsage, Usage: a.usage})
	}
	// The calls decide, not finish_reason: servers say "stop" with calls, and
	// "tool_calls" with none left once empty deltas are dropped.
	stop := stopReason(a.finish)
	hasCalls := len(events) > 0 && events[0].Type == providers.EventToolCall
	switch {
	case hasCalls:
		stop = providers.StopToolUse
	case stop == providers.StopToolUse:
		stop = providers.StopEndTurn
	}
	return append(events, providers.Event{Type: providers.EventStop, StopReason: stop})
}

func stopReason(finish string) providers.StopReason {
	switch finish {
	case "tool_calls", "function_call":
		return providers.StopToolUse
	case "length":
		return providers.StopMaxTokens
	}
	return providers.StopEndTurn
}

func (u *usage) neutral() *providers.Usage {
	cached := u.PromptCacheHitTokens
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens > 0 {
		cached = u.PromptTokensDetails.CachedTokens
	}
	return &providers.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, CachedInputTokens: cached}
}

// newCallID names a call the server left unnamed. It is random because ids
// must stay unique across a resumed session's history.
func newCallID() string {
	return "call_" + rand.Text()[:16]
}
