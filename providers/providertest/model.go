package providertest

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/clawseed/clawseed/providers"
)

// A Model is a scripted in-process [providers.Streamer]: the n-th request
// is answered with the n-th [Response] (responses with When aside). It is
// safe for concurrent use.
//
// Responses are not validated; build them as [ParseScript] would accept
// them.
type Model struct {
	mu       sync.Mutex
	queue    queue
	requests []providers.Request
	callSeq  int
}

// NewModel returns a model that answers with responses in order.
func NewModel(responses ...Response) *Model {
	q := newQueue(slices.Clone(responses))
	q.positional = true
	return &Model{queue: q}
}

// Append adds responses to the end of the script.
func (m *Model) Append(responses ...Response) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queue.add(responses...)
}

// Requests returns the requests received so far, in order.
func (m *Model) Requests() []providers.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.requests)
}

// Stream records req and yields the next scripted response: reasoning and
// text deltas, one event per tool call, usage (when scripted) and stop. An
// error response yields a [*providers.Error]; a hanging one yields its
// content and then ctx.Err() once ctx ends; a StreamError or Cut yields the
// content before it and then the [*providers.Error] an adapter would
// report. Past the end of the script it yields the error "providertest: no
// scripted response for request N".
func (m *Model) Stream(ctx context.Context, req providers.Request) iter.Seq2[providers.Event, error] {
	return func(yield func(providers.Event, error) bool) {
		resp, n, ok := m.take(req)
		if !ok {
			yield(providers.Event{}, fmt.Errorf("providertest: no scripted response for request %d", n))
			return
		}
		if err := sleep(ctx, resp.delay()); err != nil {
			yield(providers.Event{}, err)
			return
		}
		if resp.isError() {
			yield(providers.Event{}, resp.neutralError())
			return
		}
		content, tail := modelEvents(resp)
		n, stops := resp.limit(len(content))
		for _, ev := range content[:n] {
			if !yield(ev, nil) {
				return
			}
		}
		switch {
		case resp.fails():
			yield(providers.Event{}, resp.streamFailure())
			return
		case stops:
			<-ctx.Done()
			yield(providers.Event{}, ctx.Err())
			return
		}
		for _, ev := range tail {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// take records req and returns the next response with its call ids filled
// in, and the 1-based request number.
func (m *Model) take(req providers.Request) (Response, int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	req.Messages = slices.Clone(req.Messages)
	req.Tools = slices.Clone(req.Tools)
	m.requests = append(m.requests, req)
	n := len(m.requests)
	text := ""
	if m.queue.hasWhen() {
		text = requestText(req)
	}
	resp, ok := m.queue.take(text)
	if !ok {
		return Response{}, n, false
	}
	return withCallIDs(resp, &m.callSeq), n, true
}

// withCallIDs returns r with generated ids (call_1, call_2, …) for calls
// that have none. seq counts across the whole script.
func withCallIDs(r Response, seq *int) Response {
	r.ToolCalls = slices.Clone(r.ToolCalls)
	for i := range r.ToolCalls {
		if r.ToolCalls[i].ID == "" {
			*seq++
			r.ToolCalls[i].ID = "call_" + strconv.Itoa(*seq)
		}
	}
	return r
}

// modelEvents returns a response's content events (what a hang may cut
// short) and the closing usage and stop events.
func modelEvents(r Response) (content, tail []providers.Event) {
	for _, p := range pieces(r.Reasoning, textPieces) {
		content = append(content, providers.Event{Type: providers.EventReasoningDelta, Text: p})
	}
	if r.RedactedThinking != "" {
		content = append(content, providers.Event{Type: providers.EventReasoningDelta, Redacted: r.RedactedThinking})
	}
	for _, p := range pieces(r.Text, textPieces) {
		content = append(content, providers.Event{Type: providers.EventTextDelta, Text: p})
	}
	for _, c := range r.ToolCalls {
		call := providers.ToolCall{ID: c.ID, Name: c.Name, Args: c.Args}
		content = append(content, providers.Event{Type: providers.EventToolCall, ToolCall: &call})
	}
	if r.Usage != nil {
		u := *r.Usage
		tail = append(tail, providers.Event{Type: providers.EventUsage, Usage: &u})
	}
	tail = append(tail, providers.Event{Type: providers.EventStop, StopReason: r.stopReason()})
	return content, tail
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
