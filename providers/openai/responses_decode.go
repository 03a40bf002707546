package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/internal/httppost"
)

// respEvent is one server-sent event of a Responses stream: the fields of
// every event type the adapter reads, by their wire names (openai-go's
// responses package is the reference; it is not imported, see the
// package comment).
type respEvent struct {
	Type         string `json:"type"`
	Delta        string `json:"delta"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	SummaryIndex int    `json:"summary_index"`
	// Arguments ends a function call's argument deltas.
	Arguments *string `json:"arguments"`
	// Item is the item of response.output_item.added and .done.
	Item *respItem `json:"item"`
	// Response is the whole response of response.completed, .failed and
	// .incomplete.
	Response *respResponse `json:"response"`
	// Code and Message are an "error" event's; some servers nest them in
	// Error instead.
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
	Error   json.RawMessage `json:"error"`
}

// respItem is an output item.
type respItem struct {
	Type             string  `json:"type"`
	ID               string  `json:"id"`
	CallID           string  `json:"call_id"`
	Name             string  `json:"name"`
	Arguments        string  `json:"arguments"`
	EncryptedContent *string `json:"encrypted_content"`
	Summary          []struct {
		Text string `json:"text"`
	} `json:"summary"`
	// Content is a message's (output_text, refusal) or a reasoning item's
	// (reasoning_text) parts.
	Content []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
}

// respResponse is the response object.
type respResponse struct {
	Status            string          `json:"status"`
	Error             json.RawMessage `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Usage  *respUsage `json:"usage"`
	Output []respItem `json:"output"`
}

type respUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	InputTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// neutral returns the usage in the neutral convention, the details being
// parts of their totals (a server's nonsense is clamped, never passed on
// to /cost).
func (u *respUsage) neutral() *providers.Usage {
	n := &providers.Usage{InputTokens: max(0, u.InputTokens), OutputTokens: max(0, u.OutputTokens)}
	if u.InputTokensDetails != nil {
		n.CachedInputTokens = min(max(0, u.InputTokensDetails.CachedTokens), n.InputTokens)
	}
	if u.OutputTokensDetails != nil {
		n.ReasoningTokens = min(max(0, u.OutputTokensDetails.ReasoningTokens), n.OutputTokens)
	}
	return n
}

// respCall is a function call being streamed.
type respCall struct {
	index int
	call  providers.ToolCall
	done  bool
}

// respAccumulator turns the events of one response into neutral events:
// text and reasoning deltas at once, a reasoning item when it is done,
// and at the end the function calls in output order, the usage and the
// stop.
type respAccumulator struct {
	origin string
	calls  map[string]*respCall // by item id
	// summary is the reasoning item whose summary is streaming and the
	// index of its current part: a new part starts after a blank line.
	summaryItem  string
	summaryIndex int
	// finished is set by response.completed or .incomplete.
	finished bool
	status   string
	reason   string
	usage    *providers.Usage
}

// add folds one event in and returns the events it produces now, or the
// error the response ended with.
func (a *respAccumulator) add(ev *respEvent) ([]providers.Event, error) {
	switch ev.Type {
	case "response.output_text.delta", "response.refusal.delta":
		if ev.Delta == "" {
			return nil, nil
		}
		return []providers.Event{{Type: providers.EventTextDelta, Text: ev.Delta}}, nil
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return a.reasoningDelta(ev), nil
	case "response.output_item.added":
		if it := ev.Item; it != nil && it.Type == "function_call" {
			c := a.call(ev.Item.ID, ev.OutputIndex)
			c.call.ID, c.call.Name = cmp.Or(c.call.ID, it.CallID), cmp.Or(c.call.Name, it.Name)
			c.call.Args += it.Arguments
		}
	case "response.function_call_arguments.delta":
		c := a.call(ev.ItemID, ev.OutputIndex)
		c.call.Args += ev.Delta
	case "response.function_call_arguments.done":
		if ev.Arguments != nil {
			a.call(ev.ItemID, ev.OutputIndex).call.Args = *ev.Arguments
		}
	case "response.output_item.done":
		return a.itemDone(ev.Item, ev.OutputIndex), nil
	case "response.completed", "response.incomplete":
		a.finished = true
		if r := ev.Response; r != nil {
			a.status = r.Status
			if r.IncompleteDetails != nil {
				a.reason = r.IncompleteDetails.Reason
			}
			if r.Usage != nil {
				a.usage = r.Usage.neutral()
			}
		}
		if ev.Type == "response.incomplete" && a.status == "" {
			a.status = "incomplete"
		}
	}
	return nil, nil
}

func (a *respAccumulator) reasoningDelta(ev *respEvent) []providers.Event {
	if ev.Delta == "" {
		return nil
	}
	text := ev.Delta
	if ev.Type == "response.reasoning_summary_text.delta" {
		if ev.ItemID == a.summaryItem && ev.SummaryIndex != a.summaryIndex {
			text = "\n\n" + text
		}
		a.summaryItem, a.summaryIndex = ev.ItemID, ev.SummaryIndex
	}
	return []providers.Event{{Type: providers.EventReasoningDelta, Text: text}}
}

// call returns the call of item id, made on first sight. A server that
// sends no item id is keyed by output index.
func (a *respAccumulator) call(id string, index int) *respCall {
	if a.calls == nil {
		a.calls = make(map[string]*respCall)
	}
	if id == "" {
		id = fmt.Sprintf("#%d", index)
	}
	c, ok := a.calls[id]
	if !ok {
		c = &respCall{index: index}
		a.calls[id] = c
	}
	return c
}

// itemDone takes a finished output item: a function call is complete (its
// item is authoritative), a reasoning item with encrypted content ends the
// reasoning part as an Item; a message was streamed already.
func (a *respAccumulator) itemDone(it *respItem, index int) []providers.Event {
	if it == nil {
		return nil
	}
	switch it.Type {
	case "function_call":
		c := a.call(it.ID, index)
		c.call.ID, c.call.Name = cmp.Or(it.CallID, c.call.ID), cmp.Or(it.Name, c.call.Name)
		if it.Arguments != "" || c.call.Args == "" {
			c.call.Args = it.Arguments
		}
		c.done = true
	case "reasoning":
		if it.EncryptedContent == nil || *it.EncryptedContent == "" {
			return nil
		}
		item := &providers.ReasoningItem{ID: it.ID, Encrypted: *it.EncryptedContent, Origin: a.origin}
		for _, s := range it.Summary {
			item.Summary = append(item.Summary, s.Text)
		}
		a.summaryItem = ""
		return []providers.Event{{Type: providers.EventReasoningDelta, Item: item}}
	}
	return nil
}

// finishEvents returns the calls in output order, the usage and the stop.
// A response cut short (incomplete) keeps only the calls that were done.
func (a *respAccumulator) finishEvents() []providers.Event {
	calls := make([]*respCall, 0, len(a.calls))
	for _, c := range a.calls {
		calls = append(calls, c)
	}
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].index < calls[j].index })
	var events []providers.Event
	incomplete := a.status == "incomplete"
	for _, c := range calls {
		if incomplete && !c.done {
			continue
		}
		call := c.call
		if call.Name == "" && call.ID == "" && strings.TrimSpace(call.Args) == "" {
			continue
		}
		if call.ID == "" {
			call.ID = newCallID()
		}
		events = append(events, providers.Event{Type: providers.EventToolCall, ToolCall: &call})
	}
	hasCalls := len(events) > 0
	if a.usage != nil {
		events = append(events, providers.Event{Type: providers.EventUsage, Usage: a.usage})
	}
	stop := providers.StopEndTurn
	switch {
	case hasCalls:
		stop = providers.StopToolUse
	case incomplete && a.reason == "max_output_tokens":
		stop = providers.StopMaxTokens
	}
	return append(events, providers.Event{Type: providers.EventStop, StopReason: stop})
}

// sseResponses decodes a Responses event stream.
func (p *Provider) sseResponses(parent, ctx context.Context, resp *http.Response, idle *httppost.Watchdog, yield func(providers.Event, error) bool) error {
	acc := respAccumulator{origin: p.origin}
	dec := ssestream.NewDecoder(resp)
	for !acc.finished && dec.Next() {
		idle.Reset()
		sse := dec.Event()
		data := bytes.TrimSpace(sse.Data)
		if len(data) == 0 || string(data) == "[DONE]" {
			continue
		}
		var ev respEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return &providers.Error{Kind: providers.KindTransient, Provider: p.cfg.Name,
				Message: fmt.Sprintf("malformed stream event: %v", err)}
		}
		if ev.Type == "" {
			ev.Type = sse.Type
		}
		if err := p.eventError(&ev); err != nil {
			return err
		}
		events, err := acc.add(&ev)
		if err != nil {
			return err
		}
		for _, e := range events {
			if !yield(e, nil) {
				return nil
			}
		}
	}
	if err := dec.Err(); err != nil {
		return p.failure(parent, ctx, err, "read stream")
	}
	if !acc.finished {
		return p.endedEarly(parent, ctx)
	}
	for _, e := range acc.finishEvents() {
		if !yield(e, nil) {
			return nil
		}
	}
	return nil
}

// wholeResponse handles a server that answered with one response object
// (stream ignored).
func (p *Provider) wholeResponse(parent, ctx context.Context, r io.Reader, yield func(providers.Event, error) bool) error {
	var resp respResponse
	if err := p.decodeWhole(parent, ctx, r, &resp); err != nil {
		return err
	}
	if err := p.eventError(&respEvent{Type: "response." + resp.Status, Response: &resp}); err != nil {
		return err
	}
	acc := respAccumulator{origin: p.origin}
	var events []providers.Event
	for i := range resp.Output {
		it := &resp.Output[i]
		switch it.Type {
		case "message":
			for _, c := range it.Content {
				if text := c.Text + c.Refusal; text != "" {
					events = append(events, providers.Event{Type: providers.EventTextDelta, Text: text})
				}
			}
		case "reasoning":
			var texts []string
			for _, s := range it.Summary {
				texts = append(texts, s.Text)
			}
			for _, c := range it.Content {
				texts = append(texts, c.Text)
			}
			if text := strings.Join(texts, "\n\n"); text != "" {
				events = append(events, providers.Event{Type: providers.EventReasoningDelta, Text: text})
			}
		}
		events = append(events, acc.itemDone(it, i)...)
	}
	acc.add(&respEvent{Type: "response.completed", Response: &resp})
	for _, e := range append(events, acc.finishEvents()...) {
		if !yield(e, nil) {
			return nil
		}
	}
	return nil
}
