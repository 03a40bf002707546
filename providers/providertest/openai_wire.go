package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/clawseed/clawseed/providers"
)

// This file encodes scripted responses on the OpenAI Chat Completions wire.

// created is the fixed timestamp of every completion, for byte-stable
// output.
const created = 1700000000

type oaRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type oaChunk struct {
	ID      string     `json:"id"`
	Object  string     `json:"object"`
	Created int64      `json:"created"`
	Model   string     `json:"model"`
	Choices []oaChoice `json:"choices"`
	Usage   *oaUsage   `json:"usage,omitempty"`
}

type oaChoice struct {
	Index        int     `json:"index"`
	Delta        oaDelta `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type oaDelta struct {
	Role             string            `json:"role,omitempty"`
	Content          *string           `json:"content,omitempty"`
	ReasoningContent string            `json:"reasoning_content,omitempty"`
	ToolCalls        []oaToolCallDelta `json:"tool_calls,omitempty"`
}

type oaToolCallDelta struct {
	Index    int        `json:"index"`
	ID       string     `json:"id,omitempty"`
	Type     string     `json:"type,omitempty"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type oaUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

type oaCompletion struct {
	ID      string    `json:"id"`
	Object  string    `json:"object"`
	Created int64     `json:"created"`
	Model   string    `json:"model"`
	Choices []oaFinal `json:"choices"`
	Usage   oaUsage   `json:"usage"`
}

type oaFinal struct {
	Index        int       `json:"index"`
	Message      oaMessage `json:"message"`
	FinishReason string    `json:"finish_reason"`
}

type oaMessage struct {
	Role             string       `json:"role"`
	Content          *string      `json:"content"`
	ReasoningContent string       `json:"reasoning_content,omitempty"`
	ToolCalls        []oaToolCall `json:"tool_calls,omitempty"`
}

type oaToolCall struct {
	ID       string     `json:"id"`
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

func (s *Server) serveOpenAI(w http.ResponseWriter, r *http.Request) {
	body := readBody(r)
	var req oaRequest
	reqErr := json.Unmarshal(body, &req)
	resp, usage, n, ok := s.answer(WireOpenAI, w, r, body, reqErr, writeOpenAIError, nil)
	if !ok {
		return
	}
	model := req.Model
	if model == "" {
		model = "providertest"
	}
	id := "chatcmpl-providertest-" + strconv.Itoa(n)
	if !req.Stream {
		s.whole(w, r, resp, http.StatusInternalServerError, func() {
			writeJSON(w, http.StatusOK, openAICompletion(id, model, resp, usage))
		}, writeOpenAIError)
		return
	}
	s.streamOpenAI(w, r, id, model, resp, usage, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
}

// streamOpenAI writes the response as OpenAI does: a role chunk, reasoning
// and text pieces, tool calls (each first delta with index, id, type and
// name; arguments in at least two pieces; calls interleaved), a finish
// chunk, a usage chunk when asked, then [DONE]. Each chunk is flushed. A
// stream_error is a chunk holding an error object (as OpenAI and
// OpenRouter send one mid-stream), after which the stream ends.
func (s *Server) streamOpenAI(w http.ResponseWriter, r *http.Request, id, model string, resp Response, usage providers.Usage, includeUsage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(c oaChunk) {
		c.ID, c.Object, c.Created, c.Model = id, "chat.completion.chunk", created, model
		fmt.Fprintf(w, "data: %s\n\n", marshal(c))
		flush(w)
	}
	empty := ""
	send(oaChunk{Choices: []oaChoice{{Delta: oaDelta{Role: "assistant", Content: &empty}}}})

	content := openAIDeltas(resp)
	limit, _ := resp.limit(len(content))
	for _, d := range content[:limit] {
		send(oaChunk{Choices: []oaChoice{{Delta: d}}})
	}
	if resp.stopsEarly() {
		s.stopStream(w, r, resp, func() {
			fmt.Fprintf(w, "data: %s\n\n", marshal(map[string]any{"error": openAIErrorObject(resp.StreamErrorStatus, resp.StreamError)}))
		})
		return
	}
	finish := openAIFinish(resp.stopReason())
	send(oaChunk{Choices: []oaChoice{{Delta: oaDelta{}, FinishReason: &finish}}})
	if includeUsage {
		send(oaChunk{Choices: []oaChoice{}, Usage: openAIUsage(usage)})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	flush(w)
}

// openAIDeltas returns the content deltas of a streamed response.
func openAIDeltas(resp Response) []oaDelta {
	var out []oaDelta
	for _, p := range pieces(resp.Reasoning, textPieces) {
		out = append(out, oaDelta{ReasoningContent: p})
	}
	for _, p := range pieces(resp.Text, textPieces) {
		out = append(out, oaDelta{Content: &p})
	}
	args := make([][]string, len(resp.ToolCalls))
	rounds := 0
	for i, c := range resp.ToolCalls {
		out = append(out, oaDelta{ToolCalls: []oaToolCallDelta{{
			Index: i, ID: c.ID, Type: "function", Function: oaFunction{Name: c.Name},
		}}})
		args[i] = pieces(c.Args, textPieces)
		rounds = max(rounds, len(args[i]))
	}
	for round := range rounds {
		for i := range resp.ToolCalls {
			if round < len(args[i]) {
				out = append(out, oaDelta{ToolCalls: []oaToolCallDelta{{
					Index: i, Function: oaFunction{Arguments: args[i][round]},
				}}})
			}
		}
	}
	return out
}

func openAICompletion(id, model string, resp Response, usage providers.Usage) oaCompletion {
	msg := oaMessage{Role: "assistant", ReasoningContent: resp.Reasoning}
	if resp.Text != "" || len(resp.ToolCalls) == 0 {
		msg.Content = &resp.Text
	}
	for _, c := range resp.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, oaToolCall{ID: c.ID, Type: "function",
			Function: oaFunction{Name: c.Name, Arguments: c.Args}})
	}
	return oaCompletion{
		ID: id, Object: "chat.completion", Created: created, Model: model,
		Choices: []oaFinal{{Message: msg, FinishReason: openAIFinish(resp.stopReason())}},
		Usage:   *openAIUsage(usage),
	}
}

func openAIFinish(stop providers.StopReason) string {
	switch stop {
	case providers.StopToolUse:
		return "tool_calls"
	case providers.StopMaxTokens:
		return "length"
	}
	return "stop"
}

func openAIUsage(u providers.Usage) *oaUsage {
	var out oaUsage
	out.PromptTokens, out.CompletionTokens = u.InputTokens, u.OutputTokens
	out.TotalTokens = u.InputTokens + u.OutputTokens
	out.PromptTokensDetails.CachedTokens = u.CachedInputTokens
	return &out
}

// writeOpenAIError writes an OpenAI-style error body
// {"error":{"message","type","param","code"}} with the type and code OpenAI
// uses for the status.
func writeOpenAIError(w http.ResponseWriter, status int, retryAfter, msg string) {
	typ, code := "invalid_request_error", any(nil)
	switch {
	case status == http.StatusUnauthorized:
		code = "invalid_api_key"
	case status == http.StatusNotFound:
		code = "model_not_found"
	case status == http.StatusTooManyRequests:
		typ, code = "requests", "rate_limit_exceeded"
	case status >= 500:
		typ = "server_error"
	case mentionsContextLength(msg):
		code = "context_length_exceeded"
	}
	if retryAfter != "" {
		w.Header().Set("Retry-After", strings.TrimSpace(retryAfter))
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": nil, "code": code,
	}})
}

// openAIErrorObject is the error object of a mid-stream error: a
// server_error without code unless a status is given, which becomes the
// numeric code (as OpenRouter reports upstream failures).
func openAIErrorObject(status int, msg string) map[string]any {
	typ, code := "server_error", any(nil)
	if status != 0 {
		code = status
		if status < 500 {
			typ = "invalid_request_error"
		}
	}
	if mentionsContextLength(msg) {
		typ, code = "invalid_request_error", "context_length_exceeded"
	}
	return map[string]any{"message": msg, "type": typ, "param": nil, "code": code}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(marshal(v), '\n'))
}

// marshal encodes v as the real APIs do, without escaping <, > and & (a
// system prompt full of <tags> stays readable in goldens).
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
