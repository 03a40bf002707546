package openai

import (
	"encoding/json"
	"testing"

	"github.com/clawseed/clawseed/providers"
)

// TestResponsesErrorKinds classifies the error objects of failed
// responses and error events: by code, an HTTP status sent as the code,
// a message naming the context length, else transient.
func TestResponsesErrorKinds(t *testing.T) {
	t.Parallel()
	p := New(Config{Wire: WireResponses})
	tests := []struct {
		ev     string
		kind   providers.ErrorKind
		status int
		msg    string
	}{
		{`{"type":"response.failed","response":{"status":"failed","error":{"code":"context_length_exceeded","message":"Your input exceeds the context window of this model."}}}`,
			providers.KindContextLength, 0, "Your input exceeds the context window of this model."},
		{`{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"}}}`, providers.KindTransient, 0, "boom"},
		{`{"type":"response.failed","response":{"status":"failed","error":{"code":"rate_limit_exceeded","message":"slow down"}}}`, providers.KindRateLimited, 0, "slow down"},
		{`{"type":"response.failed","response":{"status":"failed","error":{"code":"invalid_prompt","message":"flagged"}}}`, providers.KindBadRequest, 0, "flagged"},
		{`{"type":"response.failed","response":{"status":"failed","error":{"code":"image_too_large","message":"big"}}}`, providers.KindBadRequest, 0, "big"},
		{`{"type":"response.failed","response":{"status":"failed","error":{"code":"vector_store_timeout","message":"t"}}}`, providers.KindTransient, 0, "t"},
		{`{"type":"response.failed","response":{"status":"failed","error":{"code":"something_new","message":"prompt is too long"}}}`, providers.KindContextLength, 0, "prompt is too long"},
		{`{"type":"response.failed","response":{"status":"failed"}}`, providers.KindTransient, 0, "response failed"},
		{`{"type":"error","code":"insufficient_quota","message":"You exceeded your current quota"}`, providers.KindRateLimited, 0, "You exceeded your current quota"},
		{`{"type":"error","code":"context_length_exceeded","message":"too long"}`, providers.KindContextLength, 0, "too long"},
		{`{"type":"error","code":429,"message":"later"}`, providers.KindRateLimited, 429, "later"},
		{`{"type":"error","code":503,"message":"overloaded"}`, providers.KindTransient, 503, "overloaded"},
		{`{"type":"error","error":{"type":"invalid_request_error","code":null,"message":"bad tool"}}`, providers.KindBadRequest, 0, "bad tool"},
		{`{"type":"error","code":"server_error"}`, providers.KindTransient, 0, "error event in stream: server_error"},
		{`{"type":"response.output_text.delta","error":{"code":"server_error","message":"proxy"}}`, providers.KindTransient, 0, "proxy"},
	}
	for _, tt := range tests {
		var ev respEvent
		if err := json.Unmarshal([]byte(tt.ev), &ev); err != nil {
			t.Fatal(err)
		}
		e := p.eventError(&ev)
		if e == nil {
			t.Errorf("%s: no error", tt.ev)
			continue
		}
		if e.Kind != tt.kind || e.StatusCode != tt.status || e.Message != tt.msg || e.Provider != "openai" {
			t.Errorf("%s:\n got %v %d %q, want %v %d %q", tt.ev, e.Kind, e.StatusCode, e.Message, tt.kind, tt.status, tt.msg)
		}
	}
	for _, ok := range []string{`{"type":"response.completed","response":{"status":"completed"}}`, `{"type":"response.output_text.delta","delta":"x","error":null}`} {
		var ev respEvent
		_ = json.Unmarshal([]byte(ok), &ev)
		if e := p.eventError(&ev); e != nil {
			t.Errorf("%s: error %v", ok, e)
		}
	}
}

// TestStrictAllowed: strict mode only for the schemas it accepts.
func TestStrictAllowed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		schema string
		want   bool
	}{
		{`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`, true},
		{`{"type":"object","properties":{},"additionalProperties":false}`, true},
		{`{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"type":"array","items":{"type":"object","properties":{"x":{"type":"integer","minimum":0}},"required":["x"],"additionalProperties":false}}},"required":["a","b"],"additionalProperties":false}`, true},
		{`{"type":"object","properties":{"d":{"type":"string","format":"date-time"},"e":{"enum":["x","y"]}},"required":["d","e"],"additionalProperties":false}`, true},
		{`{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"object","properties":{},"additionalProperties":false}]}},"required":["v"],"additionalProperties":false}`, true},
		// An optional property.
		{`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path"],"additionalProperties":false}`, false},
		// additionalProperties missing, here or nested.
		{`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`, false},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{},"required":[]}},"required":["o"],"additionalProperties":false}`, false},
		// Unsupported keywords and formats.
		{`{"type":"object","properties":{"s":{"type":"string","minLength":1}},"required":["s"],"additionalProperties":false}`, false},
		{`{"type":"object","properties":{"s":{"type":"string","default":"x"}},"required":["s"],"additionalProperties":false}`, false},
		{`{"type":"object","properties":{"s":{"type":"string","format":"uri"}},"required":["s"],"additionalProperties":false}`, false},
		{`{"type":"object","properties":{},"additionalProperties":false,"allOf":[]}`, false},
		// The root must be an object; a required name must be a property.
		{`{"anyOf":[{"type":"object"}]}`, false},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["b"],"additionalProperties":false}`, false},
		{`not json`, false},
		{`{"type":"object","properties":{"a":true},"required":["a"],"additionalProperties":false}`, false},
	}
	for _, tt := range tests {
		if got := strictAllowed(json.RawMessage(tt.schema)); got != tt.want {
			t.Errorf("strictAllowed(%s) = %v, want %v", tt.schema, got, tt.want)
		}
	}
}

func TestReasoningModel(t *testing.T) {
	t.Parallel()
	for model, want := range map[string]bool{
		"gpt-5": true, "gpt-5-mini": true, "gpt-5.1-codex": true, "o3": true, "o4-mini": true, "openai/o3-pro": true, "codex-mini-latest": true,
		"gpt-5-chat-latest": false, "gpt-4o": false, "gpt-4.1": false, "fake-model": false, "": false,
	} {
		if got := reasoningModel(model); got != want {
			t.Errorf("reasoningModel(%q) = %v, want %v", model, got, want)
		}
	}
}
