// Package providertest offers scripted stand-ins for LLM providers, for tests
// of the agent loop and of the clawseed binary:
//
//   - [Model], an in-process [providers.Streamer] that replays scripted
//     responses and records every request;
//   - [Server], an HTTP server on 127.0.0.1 that speaks the OpenAI Chat
//     Completions wire, the OpenAI Responses wire and the Anthropic Messages
//     wire (streamed SSE with tool-call deltas, and non-streamed), replays
//     the same scripts, records
//     the raw requests with their wire, and reports prompt-cache usage from
//     a [CacheEmulator] when a script gives none;
//   - [ReadRequest], a wire-neutral reading of a recorded request (system
//     prompt, transcript, tools) and the checks a real API would make.
//
// A script is a list of [Response]s, one per model request, written in Go or
// as JSON Lines ([ParseScript]) so testscript files can carry them.
package providertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clawseed/clawseed/providers"
)

// A Response scripts the answer to one model request.
//
// Exactly one of two shapes: a successful answer (Text, Reasoning,
// RedactedThinking, ToolCalls, Usage, StopReason) or an HTTP error (Status
// and/or Error or ErrorBody, RetryAfter). Hang, HangAfterChunks, StreamError, Cut,
// FailAfterChunks and DelayMs shape the delivery.
//
// A streamed answer is a sequence of content chunks, counted the same way
// on every wire: the pieces of Reasoning, the redacted block, the pieces of
// Text, and per tool call its opening (the OpenAI delta with id and name,
// the Anthropic tool_use block start, the Responses output_item.added of
// the function call) followed by the pieces of its arguments; the Model
// yields each whole tool call as one chunk. Framing (Anthropic block starts
// and stops, the signature that closes a thinking block, the Responses
// part and item events around the deltas) is not counted.
type Response struct {
	// Text is the visible answer, streamed in a few pieces.
	Text string `json:"text,omitempty"`
	// Reasoning is streamed before Text as reasoning deltas
	// (reasoning_content on the OpenAI wire; a thinking block closed by a
	// signature_delta carrying [ThinkingSignature] on the Anthropic wire; a
	// reasoning item with summary text deltas on the Responses wire, whose
	// output_item.done carries [EncryptedReasoning] when the request
	// includes reasoning.encrypted_content).
	Reasoning string `json:"reasoning,omitempty"`
	// RedactedThinking is sent after Reasoning as a redacted_thinking block
	// whose data the client must echo verbatim (Anthropic wire), or as a
	// reasoning event with Redacted set (Model), or as a reasoning item
	// without summary whose encrypted content hides it (Responses). The
	// OpenAI wire has no such thing and leaves it out.
	RedactedThinking string `json:"redacted_thinking,omitempty"`
	// ToolCalls are the calls the model makes, in order.
	ToolCalls []Call `json:"tool_calls,omitempty"`
	// Usage is reported after the answer. When it is nil the Server reports
	// what its [CacheEmulator] computed for the request, and the Model
	// reports none.
	Usage *providers.Usage `json:"usage,omitempty"`
	// Status is the HTTP status of an error answer (400–599); 500 when only
	// Error is set.
	Status int `json:"status,omitempty"`
	// Error is the error message; http.StatusText(Status) when only Status
	// is set.
	Error string `json:"error,omitempty"`
	// ErrorBody is sent as the whole body of an error answer instead of the
	// wire's JSON error object, as text/html when it starts with "<" (a
	// proxy's or web server's error page) and as text/plain otherwise. The
	// Model reports Error or the status text.
	ErrorBody string `json:"error_body,omitempty"`
	// RetryAfter is sent as the Retry-After header (seconds) of an error.
	RetryAfter string `json:"retry_after,omitempty"`
	// StopReason overrides the stop reason ("end_turn", "tool_use",
	// "max_tokens"); by default tool_use when there are tool calls, else
	// end_turn.
	StopReason string `json:"stop_reason,omitempty"`
	// Hang streams the content (all of it, or the first HangAfterChunks
	// chunks) and then blocks, never finishing, until the client goes away.
	Hang bool `json:"hang,omitempty"`
	// HangAfterChunks is the number of content chunks sent before
	// hanging. Setting it implies Hang.
	HangAfterChunks int `json:"hang_after_chunks,omitempty"`
	// StreamError ends a streamed answer with an error event carrying this
	// message after FailAfterChunks content chunks (Anthropic: an `error`
	// event; OpenAI: a chunk holding an error object; Responses: a
	// response.failed event, or an `error` event for a client error
	// status). A non-streamed request gets it as an HTTP error instead.
	StreamError string `json:"stream_error,omitempty"`
	// StreamErrorStatus is the HTTP status the error event stands for
	// (400–599): it picks the Anthropic error type (529 overloaded_error,
	// 429 rate_limit_error, …) and is the OpenAI error code. On the
	// Responses wire 429 is a response.failed with rate_limit_exceeded, and
	// another 4xx an `error` event. Unset: an overloaded_error on the
	// Anthropic wire, a server_error without code on the OpenAI wire, a
	// response.failed with server_error on the Responses wire.
	StreamErrorStatus int `json:"stream_error_status,omitempty"`
	// Cut drops the connection after FailAfterChunks content chunks, so the
	// client sees the stream end before the response is complete.
	Cut bool `json:"cut,omitempty"`
	// FailAfterChunks is the number of content chunks sent before
	// StreamError or Cut: 0 (the default) fails right after the stream's
	// opening event, a number larger than the answer has fails after all of
	// its content, before the closing events.
	FailAfterChunks int `json:"fail_after_chunks,omitempty"`
	// DelayMs waits this long before answering.
	DelayMs int `json:"delay_ms,omitempty"`
	// When makes the response conditional: it answers the first request
	// whose text (system prompt and message contents) contains When, out of
	// script order, and no other. Unconditional responses answer the other
	// requests in order.
	When string `json:"when,omitempty"`
}

// A Call is one scripted tool call.
type Call struct {
	// ID is generated (call_1, call_2, … in order of use) when empty.
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Args is the argument text. In a script file it may be written as a
	// JSON string or directly as a JSON value ({"path": "a.txt"}), which is
	// then used compacted.
	Args string `json:"args"`
	// Nameless is set by a script that writes `"name": ""` on purpose: the
	// call is sent without a name, as a faulty model does. A call with no
	// name key at all is a mistake in the script.
	Nameless bool `json:"-"`
}

// UnmarshalJSON accepts args as a string or as any JSON value, and rejects
// unknown fields.
func (c *Call) UnmarshalJSON(data []byte) error {
	var raw struct {
		ID   string          `json:"id"`
		Name *string         `json:"name"`
		Args json.RawMessage `json:"args"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return fmt.Errorf("tool call: %w", err)
	}
	c.ID, c.Args = raw.ID, ""
	if raw.Name != nil {
		c.Name, c.Nameless = *raw.Name, *raw.Name == ""
	}
	switch {
	case len(raw.Args) == 0 || string(raw.Args) == "null":
	case raw.Args[0] == '"':
		return json.Unmarshal(raw.Args, &c.Args)
	default:
		var b bytes.Buffer
		if err := json.Compact(&b, raw.Args); err != nil {
			return fmt.Errorf("tool call args: %w", err)
		}
		c.Args = b.String()
	}
	return nil
}

// ParseScript reads a JSON Lines script: one [Response] object per
// non-blank line; lines starting with "#" are comments. Unknown fields,
// trailing data and inconsistent responses are errors naming the line.
func ParseScript(data []byte) ([]Response, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []Response
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func parseLine(line string) (Response, error) {
	var r Response
	if !utf8.ValidString(line) {
		return r, errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return r, errors.New("trailing data after the JSON object")
	}
	if err := exactKeys(line); err != nil {
		return r, err
	}
	if len(r.ToolCalls) == 0 {
		r.ToolCalls = nil
	}
	return r, r.validate()
}

// scriptKeys returns the field names of a script line ("") and of its
// nested objects. encoding/json matches names case-insensitively; a script
// must spell them exactly, so "Text" or "tool_Calls" are reported like typos.
func scriptKeys(object string) []string {
	switch object {
	case "usage":
		return []string{"input_tokens", "output_tokens", "cached_tokens", "cache_write_tokens", "reasoning_tokens"}
	case "tool_calls":
		return []string{"id", "name", "args"}
	}
	return []string{"text", "reasoning", "redacted_thinking", "tool_calls", "usage", "status", "error", "error_body", "retry_after",
		"stop_reason", "hang", "hang_after_chunks", "stream_error", "stream_error_status", "cut",
		"fail_after_chunks", "delay_ms", "when"}
}

// exactKeys checks the spelling of the keys of a line that already decoded.
func exactKeys(line string) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &top); err != nil {
		return err
	}
	if err := checkKeys("", top); err != nil {
		return err
	}
	if raw, ok := top["usage"]; ok && string(raw) != "null" {
		var usage map[string]json.RawMessage
		if err := json.Unmarshal(raw, &usage); err != nil {
			return err
		}
		if err := checkKeys("usage", usage); err != nil {
			return err
		}
	}
	if raw, ok := top["tool_calls"]; ok && string(raw) != "null" {
		var calls []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &calls); err != nil {
			return err
		}
		for _, c := range calls {
			if err := checkKeys("tool_calls", c); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkKeys(object string, m map[string]json.RawMessage) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(scriptKeys(object), k) {
			where := ""
			if object != "" {
				where = " in " + object
			}
			return fmt.Errorf("unknown field %q%s (field names are case-sensitive)", k, where)
		}
	}
	return nil
}

// validate rejects responses that mix an error with an answer or carry
// out-of-range values.
func (r Response) validate() error {
	var problems []error
	isErr := r.isError()
	if r.Error != "" && r.ErrorBody != "" {
		problems = append(problems, errors.New("error and error_body exclude each other"))
	}
	if r.Status != 0 && (r.Status < 400 || r.Status > 599) {
		problems = append(problems, fmt.Errorf("status %d: want 400–599 (success needs no status)", r.Status))
	}
	if isErr && (r.Text != "" || r.Reasoning != "" || r.RedactedThinking != "" || len(r.ToolCalls) > 0 || r.Usage != nil || r.StopReason != "") {
		problems = append(problems, errors.New("an error response cannot also carry text, reasoning, tool calls, usage or a stop reason"))
	}
	if isErr && (r.hangs() || r.fails()) {
		problems = append(problems, errors.New("an error response cannot hang, cut or fail mid-stream (use stream_error)"))
	}
	problems = append(problems, r.validateFailure()...)
	if r.RetryAfter != "" {
		if !isErr {
			problems = append(problems, errors.New("retry_after needs an error status"))
		} else if s, err := strconv.ParseFloat(r.RetryAfter, 64); err != nil || s < 0 {
			problems = append(problems, fmt.Errorf("retry_after %q: want a number of seconds", r.RetryAfter))
		}
	}
	switch providers.StopReason(r.StopReason) {
	case "", providers.StopEndTurn, providers.StopToolUse, providers.StopMaxTokens:
	default:
		problems = append(problems, fmt.Errorf("stop_reason %q: want end_turn, tool_use or max_tokens", r.StopReason))
	}
	if r.HangAfterChunks < 0 || r.DelayMs < 0 || r.FailAfterChunks < 0 {
		problems = append(problems, errors.New("hang_after_chunks, fail_after_chunks and delay_ms cannot be negative"))
	}
	for i, c := range r.ToolCalls {
		if c.Name == "" && !c.Nameless {
			problems = append(problems, fmt.Errorf("tool_calls[%d]: name is required (write \"name\": \"\" for a nameless call)", i))
		}
	}
	return errors.Join(problems...)
}

// validateFailure checks the mid-stream failure fields.
func (r Response) validateFailure() []error {
	var problems []error
	if r.StreamError != "" && r.Cut {
		problems = append(problems, errors.New("stream_error and cut exclude each other"))
	}
	if r.fails() && r.hangs() {
		problems = append(problems, errors.New("a response that hangs cannot also fail with stream_error or cut"))
	}
	if r.FailAfterChunks != 0 && !r.fails() {
		problems = append(problems, errors.New("fail_after_chunks needs stream_error or cut"))
	}
	if r.StreamErrorStatus != 0 {
		if r.StreamError == "" {
			problems = append(problems, errors.New("stream_error_status needs stream_error"))
		} else if r.StreamErrorStatus < 400 || r.StreamErrorStatus > 599 {
			problems = append(problems, fmt.Errorf("stream_error_status %d: want 400–599", r.StreamErrorStatus))
		}
	}
	return problems
}

func (r Response) isError() bool { return r.Status != 0 || r.Error != "" || r.ErrorBody != "" }

func (r Response) hangs() bool { return r.Hang || r.HangAfterChunks > 0 }

// stopsEarly reports whether the stream stops before its closing events.
func (r Response) stopsEarly() bool { return r.hangs() || r.fails() }

// fails reports whether the stream ends early with an error event or a cut.
func (r Response) fails() bool { return r.StreamError != "" || r.Cut }

// limit returns how many of n content chunks to send before hanging or
// failing, and whether the stream stops there.
func (r Response) limit(n int) (int, bool) {
	switch {
	case r.fails():
		return min(r.FailAfterChunks, n), true
	case r.HangAfterChunks > 0:
		return min(r.HangAfterChunks, n), true
	case r.Hang:
		return n, true
	}
	return n, false
}

// streamFailure is the error an adapter reports for a StreamError or a
// Cut; the Model yields it.
func (r Response) streamFailure() *providers.Error {
	if r.Cut {
		return &providers.Error{Kind: providers.KindTransient, Provider: "providertest",
			Message: "stream ended before the response was complete"}
	}
	kind := providers.KindTransient
	if r.StreamErrorStatus != 0 {
		kind = providers.ClassifyStatus(r.StreamErrorStatus)
	}
	if mentionsContextLength(r.StreamError) {
		kind = providers.KindContextLength
	}
	return &providers.Error{Kind: kind, Provider: "providertest", StatusCode: r.StreamErrorStatus, Message: r.StreamError}
}

// outputTokens estimates the tokens of the scripted answer, for usage the
// Server emulates.
func (r Response) outputTokens() int {
	n := len(r.Reasoning) + len(r.RedactedThinking) + len(r.Text)
	for _, c := range r.ToolCalls {
		n += len(c.Name) + len(c.Args)
	}
	return tokensOf(n)
}

func (r Response) status() int {
	if r.Status != 0 {
		return r.Status
	}
	return http.StatusInternalServerError
}

func (r Response) errorMessage() string {
	switch {
	case r.Error != "":
		return r.Error
	case r.status() == 529: // Anthropic's; net/http has no text for it
		return "Overloaded"
	}
	return http.StatusText(r.status())
}

func (r Response) delay() time.Duration { return time.Duration(r.DelayMs) * time.Millisecond }

func (r Response) retryAfter() time.Duration {
	s, err := strconv.ParseFloat(r.RetryAfter, 64)
	if err != nil || s <= 0 {
		return 0
	}
	return time.Duration(s * float64(time.Second))
}

func (r Response) stopReason() providers.StopReason {
	switch {
	case r.StopReason != "":
		return providers.StopReason(r.StopReason)
	case len(r.ToolCalls) > 0:
		return providers.StopToolUse
	}
	return providers.StopEndTurn
}

// neutralError is the error a [Model] returns for an error response: the
// kind an adapter would derive from the status, with context-length
// messages recognised as such.
func (r Response) neutralError() *providers.Error {
	msg := r.errorMessage()
	kind := providers.ClassifyStatus(r.status())
	if kind == providers.KindBadRequest && mentionsContextLength(msg) {
		kind = providers.KindContextLength
	}
	return &providers.Error{Kind: kind, Provider: "providertest", StatusCode: r.status(),
		RetryAfter: r.retryAfter(), Message: msg}
}

func mentionsContextLength(msg string) bool {
	msg = strings.ToLower(msg)
	return strings.Contains(msg, "context length") || strings.Contains(msg, "context_length") ||
		strings.Contains(msg, "context window") || strings.Contains(msg, "prompt is too long")
}

// pieces splits s into up to n pieces of about equal rune counts, so every
// wire streams text the same way. An empty s has no pieces.
func pieces(s string, n int) []string {
	runes := []rune(s)
	if len(runes) == 0 {
		return nil
	}
	n = min(n, len(runes))
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, string(runes[i*len(runes)/n:(i+1)*len(runes)/n]))
	}
	return out
}

// textPieces is how many pieces Text and Reasoning are streamed in.
const textPieces = 3
