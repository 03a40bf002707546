package openai

import (
	"cmp"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/internal/httppost"
)

// contextLengthHints are lower-case phrases servers use when the prompt does
// not fit (OpenAI, vLLM, DeepSeek, Groq, Mistral, llama.cpp, Anthropic-style
// proxies).
var contextLengthHints = []string{
	"maximum context length",
	"context length",
	"context_length",
	"context window",
	"too many tokens",
	"prompt is too long",
	"input is too long",
	"reduce the length",
}

// httpError builds the classified error for a non-2xx response.
//
// Kinds follow the status ([providers.ClassifyStatus]); a 400/413/422 whose
// code is context_length_exceeded, or whose message names the context
// length, becomes [providers.KindContextLength] so the agent can compact.
// insufficient_quota (OpenAI's 429 for an exhausted balance) stays
// rate_limited on purpose: retrying the same entry is wasted, but it must
// reach the fallback providers, which the non-retryable kinds never do.
func (p *Provider) httpError(status int, header http.Header, body []byte) *providers.Error {
	code, msg := errorDetails(body)
	if msg == "" {
		msg = http.StatusText(status)
	}
	e := &providers.Error{
		Kind:       providers.ClassifyStatus(status),
		Provider:   p.cfg.Name,
		StatusCode: status,
		RetryAfter: httppost.RetryAfter(header, time.Now()),
		Message:    httppost.Message(msg),
	}
	if e.Kind == providers.KindBadRequest || e.Kind == providers.KindContextLength {
		if code == "context_length_exceeded" || mentionsContextLength(msg) {
			e.Kind = providers.KindContextLength
		}
	}
	return e
}

func mentionsContextLength(msg string) bool {
	msg = strings.ToLower(msg)
	for _, h := range contextLengthHints {
		if strings.Contains(msg, h) {
			return true
		}
	}
	return false
}

// errorDetails extracts the code and message of an error body in the shapes
// seen in the wild: OpenAI's {"error":{"message","code"}}, {"error":"text"}
// (Ollama, llama.cpp), {"message":"text"} and {"detail":"text"}; anything
// else (a proxy's HTML page) gives its first line ([httppost.BodyMessage]).
func errorDetails(body []byte) (code, msg string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		return "", httppost.BodyMessage(body)
	}
	var obj struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
		Type    string `json:"type"`
	}
	var s string
	switch {
	case json.Unmarshal(v.Error, &obj) == nil && (obj.Message != "" || obj.Code != nil):
		code = codeString(obj.Code)
		return cmp.Or(code, obj.Type), obj.Message
	case json.Unmarshal(v.Error, &s) == nil && s != "":
		return "", s
	case v.Message != "":
		return "", v.Message
	case v.Detail != nil:
		if s, ok := v.Detail.(string); ok {
			return "", s
		}
		b, _ := json.Marshal(v.Detail)
		return "", httppost.Message(string(b))
	}
	return "", httppost.BodyMessage(body)
}

// codeString renders an error code that may be a string or a number.
func codeString(c any) string {
	switch c := c.(type) {
	case string:
		return c
	case float64:
		return strconv.FormatFloat(c, 'f', -1, 64)
	}
	return ""
}

// streamError classifies an error object sent inside a 200 stream
// (OpenRouter and some proxies report upstream failures that way). A numeric
// code is treated as an HTTP status; otherwise the failure is transient unless
// it names the context length.
func (p *Provider) streamError(raw json.RawMessage) *providers.Error {
	code, msg := errorDetails([]byte(`{"error":` + string(raw) + `}`))
	kind := providers.KindTransient
	status := 0
	if n, err := strconv.Atoi(code); err == nil && n >= 400 && n <= 599 {
		status = n
		kind = providers.ClassifyStatus(n)
	}
	if code == "context_length_exceeded" || mentionsContextLength(msg) {
		kind = providers.KindContextLength
	}
	if msg == "" {
		msg = "error event in stream"
	}
	return &providers.Error{Kind: kind, Provider: p.cfg.Name, StatusCode: status, Message: msg}
}
