package providertest

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/clawseed/clawseed/providers"
)

// This file encodes scripted responses on the Anthropic Messages wire.

type anRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
}

type anUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

type anMessage struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []any   `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        anUsage `json:"usage"`
}

type anMessageStart struct {
	Type    string    `json:"type"`
	Message anMessage `json:"message"`
}

type anText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type anThinking struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type anRedacted struct {
	Type string `json:"type"`
	Data string `json:"data"`
}

type anToolUse struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type anBlockStart struct {
	Type         string `json:"type"`
	Index        int    `json:"index"`
	ContentBlock any    `json:"content_block"`
}

type anBlockDelta struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Delta any    `json:"delta"`
}

type anBlockStop struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
}

type anTextDelta struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type anThinkingDelta struct {
	Type     string `json:"type"`
	Thinking string `json:"thinking"`
}

type anSignatureDelta struct {
	Type      string `json:"type"`
	Signature string `json:"signature"`
}

type anInputDelta struct {
	Type        string `json:"type"`
	PartialJSON string `json:"partial_json"`
}

type anMessageDelta struct {
	Type  string `json:"type"`
	Delta struct {
		StopReason   string  `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
	} `json:"delta"`
	Usage anUsage `json:"usage"`
}

// An anEvent is one SSE event of a streamed Anthropic answer; chunk marks
// the content chunks that hang_after_chunks and fail_after_chunks count.
type anEvent struct {
	name  string
	data  any
	chunk bool
}

// signaturePrefix starts every signature the fake server makes, so a
// check can tell them from signatures it did not make.
const signaturePrefix = "fakesig-"

// ThinkingSignature returns the signature the Server gives a thinking
// block with this text: deterministic, so a test can tell whether a
// client echoed the block unchanged.
func ThinkingSignature(thinking string) string {
	sum := sha256.Sum256([]byte("providertest thinking\x00" + thinking))
	return signaturePrefix + base64.RawURLEncoding.EncodeToString(sum[:])
}

func (s *Server) serveAnthropic(w http.ResponseWriter, r *http.Request) {
	body := readBody(r)
	var req anRequest
	reqErr := json.Unmarshal(body, &req)
	resp, usage, n, ok := s.answer(WireAnthropic, w, r, body, reqErr, writeAnthropicError, func(n int) {
		w.Header().Set("Request-Id", "req_providertest_"+strconv.Itoa(n))
	})
	if !ok {
		return
	}
	msg := anMessage{
		ID: "msg_providertest_" + strconv.Itoa(n), Type: "message", Role: "assistant",
		Model: req.Model, Content: []any{}, Usage: anthropicUsage(usage),
	}
	if msg.Model == "" {
		msg.Model = "providertest"
	}
	if !req.Stream {
		s.whole(w, r, resp, 529, func() {
			stop := string(resp.stopReason())
			msg.Content, msg.StopReason = anthropicContent(resp), &stop
			writeJSON(w, http.StatusOK, msg)
		}, writeAnthropicError)
		return
	}
	s.streamAnthropic(w, r, msg, resp)
}

// streamAnthropic writes the response as Anthropic does: message_start
// with the input usage, one content block after the other (thinking with
// its deltas and a closing signature_delta, redacted_thinking, text,
// tool_use blocks whose input arrives as input_json_delta pieces), ping
// events, message_delta with the stop reason and the cumulative usage,
// message_stop. A stream_error is an `error` event, after which the stream
// ends.
func (s *Server) streamAnthropic(w http.ResponseWriter, r *http.Request, msg anMessage, resp Response) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	events := anthropicEvents(msg, resp)
	for _, ev := range stoppedEvents(events, resp) {
		writeSSE(w, ev.name, ev.data)
	}
	if resp.stopsEarly() {
		s.stopStream(w, r, resp, func() {
			writeSSE(w, "error", anthropicErrorBody(cmp.Or(resp.StreamErrorStatus, 529), resp.StreamError))
		})
	}
}

// stoppedEvents returns the events to send: all of them, or for a
// response that stops early those up to its last content chunk (all
// content, without message_delta and message_stop, when it stops after
// every chunk; only message_start when it stops before the first).
func stoppedEvents(events []anEvent, resp Response) []anEvent {
	return stopped(events, func(ev anEvent) bool { return ev.chunk }, resp, 1, 2)
}

// stopped is what a wire sends of events for resp: all of them, or for a
// response that stops early those up to its last content chunk — without
// the closing events (closing of them) when it stops after every chunk,
// only the opening ones when it stops before the first.
func stopped[E any](events []E, chunk func(E) bool, resp Response, opening, closing int) []E {
	var chunks []int
	for i, ev := range events {
		if chunk(ev) {
			chunks = append(chunks, i)
		}
	}
	n, stops := resp.limit(len(chunks))
	switch {
	case !stops:
		return events
	case n == len(chunks):
		return events[:len(events)-closing]
	case n == 0:
		return events[:opening]
	}
	return events[:chunks[n-1]+1]
}

func writeSSE(w http.ResponseWriter, name string, data any) {
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, marshal(data))
	flush(w)
}

// anthropicEvents returns the whole stream of a successful answer, ending
// with ping, message_delta and message_stop.
func anthropicEvents(msg anMessage, resp Response) []anEvent {
	final := msg.Usage
	msg.Usage.OutputTokens = min(1, final.OutputTokens)
	events := []anEvent{{name: "message_start", data: anMessageStart{Type: "message_start", Message: msg}}}
	index := 0
	open := func(block any, chunk bool) {
		events = append(events, anEvent{name: "content_block_start",
			data: anBlockStart{Type: "content_block_start", Index: index, ContentBlock: block}, chunk: chunk})
		if index == 0 {
			events = append(events, anEvent{name: "ping", data: map[string]string{"type": "ping"}})
		}
	}
	delta := func(d any, chunk bool) {
		events = append(events, anEvent{name: "content_block_delta",
			data: anBlockDelta{Type: "content_block_delta", Index: index, Delta: d}, chunk: chunk})
	}
	closeBlock := func() {
		events = append(events, anEvent{name: "content_block_stop", data: anBlockStop{Type: "content_block_stop", Index: index}})
		index++
	}
	if resp.Reasoning != "" {
		open(anThinking{Type: "thinking"}, false)
		for _, p := range pieces(resp.Reasoning, textPieces) {
			delta(anThinkingDelta{Type: "thinking_delta", Thinking: p}, true)
		}
		delta(anSignatureDelta{Type: "signature_delta", Signature: ThinkingSignature(resp.Reasoning)}, false)
		closeBlock()
	}
	if resp.RedactedThinking != "" {
		open(anRedacted{Type: "redacted_thinking", Data: resp.RedactedThinking}, true)
		closeBlock()
	}
	if resp.Text != "" {
		open(anText{Type: "text"}, false)
		for _, p := range pieces(resp.Text, textPieces) {
			delta(anTextDelta{Type: "text_delta", Text: p}, true)
		}
		closeBlock()
	}
	for _, c := range resp.ToolCalls {
		open(anToolUse{Type: "tool_use", ID: c.ID, Name: c.Name, Input: json.RawMessage("{}")}, true)
		for _, p := range pieces(c.Args, textPieces) {
			delta(anInputDelta{Type: "input_json_delta", PartialJSON: p}, true)
		}
		closeBlock()
	}
	md := anMessageDelta{Type: "message_delta", Usage: final}
	md.Delta.StopReason = string(resp.stopReason())
	return append(events,
		anEvent{name: "ping", data: map[string]string{"type": "ping"}},
		anEvent{name: "message_delta", data: md},
		anEvent{name: "message_stop", data: map[string]string{"type": "message_stop"}})
}

// anthropicContent returns the content blocks of a non-streamed answer.
func anthropicContent(resp Response) []any {
	content := []any{}
	if resp.Reasoning != "" {
		content = append(content, anThinking{Type: "thinking", Thinking: resp.Reasoning, Signature: ThinkingSignature(resp.Reasoning)})
	}
	if resp.RedactedThinking != "" {
		content = append(content, anRedacted{Type: "redacted_thinking", Data: resp.RedactedThinking})
	}
	if resp.Text != "" {
		content = append(content, anText{Type: "text", Text: resp.Text})
	}
	for _, c := range resp.ToolCalls {
		content = append(content, anToolUse{Type: "tool_use", ID: c.ID, Name: c.Name, Input: toolInput(c.Args)})
	}
	return content
}

// toolInput is a call's arguments as a tool_use input: the JSON as
// scripted, {} for none, and a JSON string for arguments that are not JSON
// (a faulty model the client must cope with).
func toolInput(args string) json.RawMessage {
	switch {
	case strings.TrimSpace(args) == "":
		return json.RawMessage("{}")
	case json.Valid([]byte(args)):
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args)
	return b
}

// anthropicUsage splits neutral usage (InputTokens is the whole prompt)
// into Anthropic's three disjoint input counts.
func anthropicUsage(u providers.Usage) anUsage {
	return anUsage{
		InputTokens:              max(0, u.InputTokens-u.CachedInputTokens-u.CacheWriteTokens),
		CacheCreationInputTokens: u.CacheWriteTokens,
		CacheReadInputTokens:     u.CachedInputTokens,
		OutputTokens:             u.OutputTokens,
	}
}

// anthropicErrorType is the error type Anthropic sends with a status.
func anthropicErrorType(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusPaymentRequired:
		return "billing_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusGatewayTimeout:
		return "timeout_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

type anError struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func anthropicErrorBody(status int, msg string) anError {
	e := anError{Type: "error"}
	e.Error.Type, e.Error.Message = anthropicErrorType(status), msg
	return e
}

// writeAnthropicError writes {"type":"error","error":{"type","message"}}
// with the type Anthropic uses for the status, and retry-after.
func writeAnthropicError(w http.ResponseWriter, status int, retryAfter, msg string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", strings.TrimSpace(retryAfter))
	}
	writeJSON(w, status, anthropicErrorBody(status, msg))
}
