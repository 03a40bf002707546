package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/clawseed/clawseed/providers"
)

// This file encodes scripted responses on the OpenAI Responses wire
// (POST …/responses).

type rsRequest struct {
	Model   string   `json:"model"`
	Stream  bool     `json:"stream"`
	Store   *bool    `json:"store"`
	Include []string `json:"include"`
	// ParallelToolCalls defaults to true on the real API.
	ParallelToolCalls *bool `json:"parallel_tool_calls"`
}

// encrypted reports whether the client asked for reasoning items with
// their encrypted_content (include: ["reasoning.encrypted_content"]).
func (r rsRequest) encrypted() bool {
	return slices.Contains(r.Include, "reasoning.encrypted_content")
}

// stored reports whether the response is stored server-side (store
// defaults to true on the real API).
func (r rsRequest) stored() bool { return r.Store == nil || *r.Store }

// An rsResponse is the response object of response.created,
// response.in_progress, response.completed, response.incomplete and
// response.failed, and the body of a non-streamed answer.
type rsResponse struct {
	ID                string        `json:"id"`
	Object            string        `json:"object"`
	CreatedAt         int64         `json:"created_at"`
	Status            string        `json:"status"`
	Error             *rsError      `json:"error"`
	IncompleteDetails *rsIncomplete `json:"incomplete_details"`
	Model             string        `json:"model"`
	Output            []any         `json:"output"`
	ParallelToolCalls bool          `json:"parallel_tool_calls"`
	Usage             *rsUsage      `json:"usage"`
}

type rsError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type rsIncomplete struct {
	Reason string `json:"reason"`
}

type rsUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

// rsReasoning is a reasoning output item; EncryptedContent is null unless
// the request included reasoning.encrypted_content.
type rsReasoning struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	Summary          []rsSummaryText `json:"summary"`
	EncryptedContent *string         `json:"encrypted_content"`
}

type rsSummaryText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type rsMessage struct {
	ID      string         `json:"id"`
	Type    string         `json:"type"`
	Status  string         `json:"status"`
	Role    string         `json:"role"`
	Content []rsOutputText `json:"content"`
}

type rsOutputText struct {
	Type        string `json:"type"`
	Annotations []any  `json:"annotations"`
	Text        string `json:"text"`
}

type rsFunctionCall struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Status    string `json:"status"`
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
}

// An rsEvent is one SSE event of a streamed Responses answer; chunk marks
// the content chunks that hang_after_chunks and fail_after_chunks count.
// data holds every field but type and sequence_number, added when sent.
type rsEvent struct {
	name  string
	data  map[string]any
	chunk bool
}

func (s *Server) serveResponses(w http.ResponseWriter, r *http.Request) {
	body := readBody(r)
	var req rsRequest
	reqErr := json.Unmarshal(body, &req)
	if reqErr == nil {
		// The API decrypts reasoning items before anything else: an item
		// it did not make, or one sent without its content when nothing
		// is stored, is refused without generating.
		if err := checkReasoningInput(body, req.stored()); err != nil {
			n := s.record(WireResponses, r, body)
			writeOpenAIError(w, http.StatusBadRequest, "", fmt.Sprintf("providertest: request %d: %v", n, err))
			return
		}
	}
	resp, usage, n, ok := s.answer(WireResponses, w, r, body, reqErr, writeOpenAIError, nil)
	if !ok {
		return
	}
	model := req.Model
	if model == "" {
		model = "providertest"
	}
	a := rsAnswer{id: "resp_providertest_" + strconv.Itoa(n), n: n, model: model,
		resp: resp, usage: usage, encrypted: req.encrypted(),
		parallel: req.ParallelToolCalls == nil || *req.ParallelToolCalls}
	if !req.Stream {
		s.whole(w, r, resp, http.StatusInternalServerError, func() {
			writeJSON(w, http.StatusOK, a.final())
		}, writeOpenAIError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	events := a.events()
	sent := stoppedResponsesEvents(events, resp)
	for i, ev := range sent {
		writeResponsesEvent(w, i, ev)
	}
	if resp.stopsEarly() {
		s.stopStream(w, r, resp, func() {
			writeResponsesEvent(w, len(sent), a.failure())
		})
	}
}

// writeResponsesEvent writes one event with its type and sequence number.
func writeResponsesEvent(w http.ResponseWriter, seq int, ev rsEvent) {
	data := make(map[string]any, len(ev.data)+2)
	for k, v := range ev.data {
		data[k] = v
	}
	data["type"], data["sequence_number"] = ev.name, seq
	writeSSE(w, ev.name, data)
}

// stoppedResponsesEvents returns the events to send: all of them, or for a
// response that stops early those up to its last content chunk (all
// content, without the closing response.completed, when it stops after
// every chunk; only response.created and response.in_progress when it
// stops before the first).
func stoppedResponsesEvents(events []rsEvent, resp Response) []rsEvent {
	return stopped(events, func(ev rsEvent) bool { return ev.chunk }, resp, 2, 1)
}

// An rsAnswer is one scripted answer on the Responses wire.
type rsAnswer struct {
	id, model string
	n         int
	resp      Response
	usage     providers.Usage
	encrypted bool // the request asked for encrypted reasoning
	parallel  bool // parallel_tool_calls, echoed in the response object
}

// object returns the response object with this status and output.
func (a rsAnswer) object(status string, output []any, usage *rsUsage) rsResponse {
	return rsResponse{ID: a.id, Object: "response", CreatedAt: created, Status: status,
		Model: a.model, Output: output, ParallelToolCalls: a.parallel, Usage: usage}
}

// itemID names output item i of this answer ("rs", "msg", "fc").
func (a rsAnswer) itemID(kind string, i int) string {
	return fmt.Sprintf("%s_providertest_%d_%d", kind, a.n, i)
}

// reasoning returns the reasoning output item whose summary is text (no
// summary for redacted reasoning); its encrypted_content is set when the
// request asked for it.
func (a rsAnswer) reasoning(id, text string, redacted bool) rsReasoning {
	item := rsReasoning{ID: id, Type: "reasoning", Summary: []rsSummaryText{}}
	if !redacted {
		item.Summary = []rsSummaryText{{Type: "summary_text", Text: text}}
	}
	if a.encrypted {
		enc := EncryptedReasoning(id, text, redacted)
		item.EncryptedContent = &enc
	}
	return item
}

// output returns the output items of the whole answer, in stream order:
// reasoning, redacted reasoning, the message, the function calls.
func (a rsAnswer) output() []any {
	out := []any{}
	if a.resp.Reasoning != "" {
		out = append(out, a.reasoning(a.itemID("rs", len(out)), a.resp.Reasoning, false))
	}
	if a.resp.RedactedThinking != "" {
		out = append(out, a.reasoning(a.itemID("rs", len(out)), a.resp.RedactedThinking, true))
	}
	if a.resp.Text != "" {
		out = append(out, rsMessage{ID: a.itemID("msg", len(out)), Type: "message", Status: "completed", Role: "assistant",
			Content: []rsOutputText{{Type: "output_text", Annotations: []any{}, Text: a.resp.Text}}})
	}
	for _, c := range a.resp.ToolCalls {
		out = append(out, rsFunctionCall{ID: a.itemID("fc", len(out)), Type: "function_call", Status: "completed",
			Arguments: c.Args, CallID: c.ID, Name: c.Name})
	}
	return out
}

// final returns the finished response object: completed, or incomplete
// (max_output_tokens) for a max_tokens stop.
func (a rsAnswer) final() rsResponse {
	o := a.object("completed", a.output(), responsesUsage(a.usage, a.resp))
	if a.resp.stopReason() == providers.StopMaxTokens {
		o.Status, o.IncompleteDetails = "incomplete", &rsIncomplete{Reason: "max_output_tokens"}
	}
	return o
}

// events returns the whole stream of a successful answer, as OpenAI
// sends it: response.created and response.in_progress; per output item
// response.output_item.added, its deltas framed by their part events
// (reasoning summary text, output text, function call arguments) and
// response.output_item.done; then response.completed, or
// response.incomplete for a max_tokens stop, with the usage.
func (a rsAnswer) events() []rsEvent {
	start := a.object("in_progress", []any{}, nil)
	events := []rsEvent{
		{name: "response.created", data: map[string]any{"response": start}},
		{name: "response.in_progress", data: map[string]any{"response": start}},
	}
	add := func(name string, chunk bool, kv ...any) {
		data := make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			data[kv[i].(string)] = kv[i+1]
		}
		events = append(events, rsEvent{name: name, data: data, chunk: chunk})
	}
	for i, item := range a.output() {
		switch it := item.(type) {
		case rsReasoning:
			opening := rsReasoning{ID: it.ID, Type: "reasoning", Summary: []rsSummaryText{}}
			redacted := len(it.Summary) == 0
			// Redacted reasoning has no text to stream: its opening is its
			// one chunk.
			add("response.output_item.added", redacted, "output_index", i, "item", opening)
			if !redacted {
				text := it.Summary[0].Text
				add("response.reasoning_summary_part.added", false, "item_id", it.ID, "output_index", i, "summary_index", 0,
					"part", rsSummaryText{Type: "summary_text", Text: ""})
				for _, p := range pieces(text, textPieces) {
					add("response.reasoning_summary_text.delta", true, "item_id", it.ID, "output_index", i, "summary_index", 0, "delta", p)
				}
				add("response.reasoning_summary_text.done", false, "item_id", it.ID, "output_index", i, "summary_index", 0, "text", text)
				add("response.reasoning_summary_part.done", false, "item_id", it.ID, "output_index", i, "summary_index", 0,
					"part", rsSummaryText{Type: "summary_text", Text: text})
			}
			add("response.output_item.done", false, "output_index", i, "item", it)
		case rsMessage:
			opening := rsMessage{ID: it.ID, Type: "message", Status: "in_progress", Role: "assistant", Content: []rsOutputText{}}
			add("response.output_item.added", false, "output_index", i, "item", opening)
			text := it.Content[0].Text
			add("response.content_part.added", false, "item_id", it.ID, "output_index", i, "content_index", 0,
				"part", rsOutputText{Type: "output_text", Annotations: []any{}, Text: ""})
			for _, p := range pieces(text, textPieces) {
				add("response.output_text.delta", true, "item_id", it.ID, "output_index", i, "content_index", 0, "delta", p, "logprobs", []any{})
			}
			add("response.output_text.done", false, "item_id", it.ID, "output_index", i, "content_index", 0, "text", text, "logprobs", []any{})
			add("response.content_part.done", false, "item_id", it.ID, "output_index", i, "content_index", 0, "part", it.Content[0])
			add("response.output_item.done", false, "output_index", i, "item", it)
		case rsFunctionCall:
			opening := it
			opening.Status, opening.Arguments = "in_progress", ""
			add("response.output_item.added", true, "output_index", i, "item", opening)
			for _, p := range pieces(it.Arguments, textPieces) {
				add("response.function_call_arguments.delta", true, "item_id", it.ID, "output_index", i, "delta", p)
			}
			add("response.function_call_arguments.done", false, "item_id", it.ID, "output_index", i, "arguments", it.Arguments)
			add("response.output_item.done", false, "output_index", i, "item", it)
		}
	}
	final := a.final()
	name := "response.completed"
	if final.Status == "incomplete" {
		name = "response.incomplete"
	}
	return append(events, rsEvent{name: name, data: map[string]any{"response": final}})
}

// failure returns the event that ends a stream_error stream: an `error`
// event for a client error (a stream_error_status of 400–499 but 429),
// else response.failed whose error code is server_error,
// rate_limit_exceeded (429) or context_length_exceeded (a message about
// the context length).
func (a rsAnswer) failure() rsEvent {
	status, msg := a.resp.StreamErrorStatus, a.resp.StreamError
	code := "server_error"
	switch {
	case mentionsContextLength(msg):
		code = "context_length_exceeded"
	case status == http.StatusTooManyRequests:
		code = "rate_limit_exceeded"
	case status >= 400 && status < 500:
		return rsEvent{name: "error", data: map[string]any{"code": responsesClientCode(status), "message": msg, "param": nil}}
	}
	o := a.object("failed", []any{}, nil)
	o.Error = &rsError{Code: code, Message: msg}
	return rsEvent{name: "response.failed", data: map[string]any{"response": o}}
}

// responsesClientCode is the error code of a client error event.
func responsesClientCode(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "invalid_api_key"
	case http.StatusNotFound:
		return "model_not_found"
	}
	return "invalid_request_error"
}

// responsesUsage is neutral usage on the Responses wire (input_tokens is
// the whole prompt, as neutral InputTokens); the reasoning tokens are the
// script's, else estimated from the scripted reasoning.
func responsesUsage(u providers.Usage, resp Response) *rsUsage {
	var out rsUsage
	out.InputTokens, out.OutputTokens = u.InputTokens, u.OutputTokens
	out.InputTokensDetails.CachedTokens = u.CachedInputTokens
	out.OutputTokensDetails.ReasoningTokens = u.ReasoningTokens
	if out.OutputTokensDetails.ReasoningTokens == 0 {
		out.OutputTokensDetails.ReasoningTokens = min(u.OutputTokens, tokensOf(len(resp.Reasoning)+len(resp.RedactedThinking)))
	}
	out.TotalTokens = u.InputTokens + u.OutputTokens
	return &out
}
