package anthropic

import (
	"crypto/rand"
	"encoding/json"
	"slices"

	"github.com/clawseed/clawseed/providers"
)

// streamEvent is one Messages API stream event, or (Type "message") a whole
// message from a server that ignored stream:true. Only the fields the
// adapter uses are declared.
type streamEvent struct {
	Type         string          `json:"type"`
	Index        int             `json:"index"`
	Message      *wireResponse   `json:"message"`
	ContentBlock *contentBlock   `json:"content_block"`
	Delta        *eventDelta     `json:"delta"`
	Usage        *wireUsage      `json:"usage"`
	Error        json.RawMessage `json:"error"`
	// A non-streamed message has these at the top level.
	Content    []contentBlock `json:"content"`
	StopReason string         `json:"stop_reason"`
}

type wireResponse struct {
	Usage *wireUsage `json:"usage"`
}

type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
}

type eventDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	PartialJSON string `json:"partial_json"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	StopReason  string `json:"stop_reason"`
}

// wireUsage has pointers because message_delta repeats only some counts,
// and those it repeats are cumulative: a count that is present replaces the
// earlier one, an absent one keeps it.
type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

// A decoder turns the events of one response into neutral events. Text and
// thinking deltas go out as they arrive; a thinking block's signature when
// the block ends; tool calls, usage and the stop reason when the message
// ends, so that a response cut short never yields a partial set of calls.
type decoder struct {
	blocks    []*blockState // in the order they started
	byIdx     map[int]*blockState
	usage     struct{ input, output, cacheWrite, cacheRead int }
	seenUsage bool
	stop      string
	done      bool // message_stop seen
	out       []providers.Event
}

type blockState struct {
	kind      string
	index     int
	id, name  string
	input     []byte // the input_json_delta pieces, concatenated
	start     json.RawMessage
	signature string
	closed    bool // content_block_stop seen
}

// handle folds one event in, appending what it produces to d.out. It
// returns a non-nil *apiError for an error event.
func (d *decoder) handle(ev *streamEvent) *apiError {
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			d.addUsage(ev.Message.Usage)
		}
	case "content_block_start":
		if ev.ContentBlock != nil {
			d.startBlock(ev.Index, ev.ContentBlock)
		}
	case "content_block_delta":
		if ev.Delta != nil {
			d.delta(ev.Index, ev.Delta)
		}
	case "content_block_stop":
		d.stopBlock(ev.Index)
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			d.stop = ev.Delta.StopReason
		}
		d.addUsage(ev.Usage)
	case "message_stop":
		d.finish()
	case "message":
		d.whole(ev)
	case "error":
		return parseAPIError(ev.Error)
	}
	// ping and event types added to the API later are ignored.
	return nil
}

func (d *decoder) startBlock(index int, cb *contentBlock) {
	if d.byIdx == nil {
		d.byIdx = make(map[int]*blockState)
	}
	if _, dup := d.byIdx[index]; dup {
		return // a repeated start must not reset what was accumulated
	}
	b := &blockState{kind: cb.Type, index: index, id: cb.ID, name: cb.Name, start: cb.Input, signature: cb.Signature}
	d.byIdx[index] = b
	d.blocks = append(d.blocks, b)
	switch cb.Type {
	case "text":
		d.text(cb.Text)
	case "thinking":
		d.thinking(cb.Thinking)
	case "redacted_thinking":
		if cb.Data != "" {
			d.out = append(d.out, providers.Event{Type: providers.EventReasoningDelta, Redacted: cb.Data})
		}
	}
}

func (d *decoder) delta(index int, dl *eventDelta) {
	b := d.byIdx[index]
	switch dl.Type {
	case "text_delta":
		if b == nil || b.kind == "text" {
			d.text(dl.Text)
		}
	case "thinking_delta":
		if b == nil || b.kind == "thinking" {
			d.thinking(dl.Thinking)
		}
	case "signature_delta":
		if b != nil && b.kind == "thinking" {
			b.signature += dl.Signature
		}
	case "input_json_delta":
		if b != nil && b.kind == "tool_use" {
			b.input = append(b.input, dl.PartialJSON...)
		}
	}
}

func (d *decoder) text(s string) {
	if s != "" {
		d.out = append(d.out, providers.Event{Type: providers.EventTextDelta, Text: s})
	}
}

func (d *decoder) thinking(s string) {
	if s != "" {
		d.out = append(d.out, providers.Event{Type: providers.EventReasoningDelta, Text: s})
	}
}

// stopBlock ends a block: a signed thinking block's signature goes out,
// closing the reasoning part the agent is building.
func (d *decoder) stopBlock(index int) {
	b := d.byIdx[index]
	if b == nil || b.closed {
		return
	}
	b.closed = true
	if b.kind == "thinking" && b.signature != "" {
		d.out = append(d.out, providers.Event{Type: providers.EventReasoningDelta, Signature: b.signature})
	}
}

func (d *decoder) addUsage(u *wireUsage) {
	if u == nil {
		return
	}
	d.seenUsage = true
	set := func(dst *int, src *int) {
		if src != nil {
			*dst = max(*src, 0)
		}
	}
	set(&d.usage.input, u.InputTokens)
	set(&d.usage.output, u.OutputTokens)
	set(&d.usage.cacheWrite, u.CacheCreationInputTokens)
	set(&d.usage.cacheRead, u.CacheReadInputTokens)
}

// whole decodes a non-streamed message like the stream it stands for.
func (d *decoder) whole(ev *streamEvent) {
	for i := range ev.Content {
		d.startBlock(i, &ev.Content[i])
		d.stopBlock(i)
	}
	d.stop = ev.StopReason
	d.addUsage(ev.Usage)
	d.finish()
}

// finish emits the tool calls in block order, the usage and the stop.
func (d *decoder) finish() {
	if d.done {
		return
	}
	d.done = true
	for _, b := range d.blocks {
		// A block the server never closed still gets its signature out:
		// without it the thinking could not be echoed.
		d.stopBlock(b.index)
	}
	refused := d.stop == "refusal"
	calls := 0
	blocks := slices.SortedFunc(slices.Values(d.blocks), func(a, b *blockState) int { return a.index - b.index })
	for _, b := range blocks {
		if b.kind != "tool_use" || refused {
			// A refused response's calls are not run: the model was
			// stopped, possibly in the middle of one.
			continue
		}
		call := providers.ToolCall{ID: b.id, Name: b.name, Args: b.args()}
		if call.ID == "" {
			call.ID = newCallID()
		}
		d.out = append(d.out, providers.Event{Type: providers.EventToolCall, ToolCall: &call})
		calls++
	}
	if d.seenUsage {
		u := d.usage
		d.out = append(d.out, providers.Event{Type: providers.EventUsage, Usage: &providers.Usage{
			// The API counts uncached, cache-read and cache-written input
			// apart; the neutral InputTokens is the whole prompt.
			InputTokens:       u.input + u.cacheRead + u.cacheWrite,
			OutputTokens:      u.output,
			CachedInputTokens: u.cacheRead,
			CacheWriteTokens:  u.cacheWrite,
		}})
	}
	d.out = append(d.out, providers.Event{Type: providers.EventStop, StopReason: stopReason(d.stop, calls > 0)})
}

// args returns the call's arguments: the streamed JSON as it came (the
// agent validates it and answers a malformed one with an error the model
// can read), else the input of a non-streamed block, else {}.
func (b *blockState) args() string {
	if len(b.input) > 0 {
		return string(b.input)
	}
	if s := string(b.start); s != "" && s != "null" {
		return s
	}
	return "{}"
}

// stopReason maps stop_reason to the neutral reasons. The calls decide tool
// use, as on the OpenAI wire. A refusal or a paused turn ends the turn with
// what was said; a response cut by the context window is cut like one cut
// by max_tokens.
func stopReason(reason string, calls bool) providers.StopReason {
	switch {
	case calls:
		return providers.StopToolUse
	case reason == "max_tokens", reason == "model_context_window_exceeded":
		return providers.StopMaxTokens
	}
	return providers.StopEndTurn
}

// newCallID names a call the server left without an id. It is random
// because ids must stay unique across a resumed session's history.
func newCallID() string {
	return "toolu_" + rand.Text()[:16]
}
