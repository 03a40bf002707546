package anthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/internal/httppost"
)

// An apiError is the error object of the Messages API:
// {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}},
// in an error response or as a stream event.
type apiError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// parseAPIError reads the "error" member of an error body or event. A bare
// string (some gateways) is taken as the message.
func parseAPIError(raw json.RawMessage) *apiError {
	e := &apiError{}
	if json.Unmarshal(raw, e) == nil && (e.Type != "" || e.Message != "") {
		return e
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return &apiError{Message: s}
	}
	return &apiError{Message: httppost.BodyMessage(raw)}
}

// errorKinds classifies the API's error types. 529 overloaded_error is
// transient (Anthropic is short of capacity, not limiting this key); a
// billing_error stays rate_limited like OpenAI's insufficient_quota: retrying
// the same entry is wasted, but it must reach the fallback providers, which
// the non-retryable kinds never do.
var errorKinds = map[string]providers.ErrorKind{
	"invalid_request_error": providers.KindBadRequest,
	"authentication_error":  providers.KindAuth,
	"permission_error":      providers.KindAuth,
	"billing_error":         providers.KindRateLimited,
	"not_found_error":       providers.KindNotFound,
	"request_too_large":     providers.KindContextLength,
	"rate_limit_error":      providers.KindRateLimited,
	"api_error":             providers.KindTransient,
	"timeout_error":         providers.KindTransient,
	"overloaded_error":      providers.KindTransient,
}

// contextLengthHints are lower-case phrases of a 400 whose prompt does not
// fit: Anthropic's "prompt is too long: 208310 tokens > 200000 maximum" and
// "input length and `max_tokens` exceed context limit", and the wordings of
// Anthropic-compatible gateways.
var contextLengthHints = []string{
	"prompt is too long",
	"exceed context limit",
	"exceeds the context window",
	"context window",
	"context length",
	"context_length",
	"maximum context length",
	"too many tokens",
	"input is too long",
}

// quotaHints mark a 400 that is really about money ("Your credit balance is
// too low to access the Anthropic API"): treated as a billing_error.
var quotaHints = []string{"credit balance is too low"}

// httpError builds the classified error for a non-2xx response.
func (p *Provider) httpError(status int, header http.Header, body []byte, model string) *providers.Error {
	e := &providers.Error{
		Kind:       providers.ClassifyStatus(status),
		Provider:   p.cfg.Name,
		StatusCode: status,
		RetryAfter: httppost.RetryAfter(header, time.Now()),
	}
	ae := errorBody(body)
	if kind, ok := errorKinds[ae.Type]; ok && status < 500 && status != 429 {
		// The type is finer than the status for 4xx (a 400 can be
		// billing); 5xx and 429 are retryable whatever they say.
		e.Kind = kind
	}
	msg := ae.Message
	if msg == "" {
		msg = http.StatusText(status)
	}
	e.Kind = refine(e.Kind, msg)
	e.Message = httppost.WithModel(httppost.Message(msg), model)
	return e
}

// streamError classifies an error that arrived with a 200 status: an error
// event mid-stream, or (whole) an error object as the whole answer.
func (p *Provider) streamError(ae *apiError, model string, whole bool) *providers.Error {
	kind, ok := errorKinds[ae.Type]
	if !ok {
		kind = providers.KindTransient // the stream broke; trying again may work
	}
	msg := ae.Message
	if msg == "" {
		msg = "error event in the stream"
	}
	kind = refine(kind, msg)
	where := "mid-stream"
	if whole {
		where = "in a 200 response"
	}
	if ae.Type != "" {
		where = ae.Type + " " + where
	}
	return &providers.Error{Kind: kind, Provider: p.cfg.Name,
		Message: fmt.Sprintf("%s (%s, model %s)", msg, where, model)}
}

// refine turns a bad request whose message names the context window into
// a context-length error (the agent compacts and retries), and one about
// the credit balance into a billing error.
func refine(kind providers.ErrorKind, msg string) providers.ErrorKind {
	if kind != providers.KindBadRequest && kind != providers.KindContextLength {
		return kind
	}
	lower := strings.ToLower(msg)
	for _, h := range contextLengthHints {
		if strings.Contains(lower, h) {
			return providers.KindContextLength
		}
	}
	for _, h := range quotaHints {
		if strings.Contains(lower, h) {
			return providers.KindRateLimited
		}
	}
	return kind
}

// errorBody extracts the API error of a response body: Anthropic's
// {"type":"error","error":{...}}, an OpenAI-style {"error":{"message"}}
// from a gateway, {"message":"…"}, or else the first line of the text or
// HTML page ([httppost.BodyMessage]).
func errorBody(body []byte) *apiError {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) != nil {
		return &apiError{Message: httppost.BodyMessage(body)}
	}
	if len(v.Error) > 0 && string(v.Error) != "null" {
		return parseAPIError(v.Error)
	}
	if v.Message != "" {
		return &apiError{Message: v.Message}
	}
	return &apiError{Message: httppost.BodyMessage(body)}
}
