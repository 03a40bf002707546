package openai

import (
	"net/http"
	"testing"
	"time"
)

func TestAcceptsTemperature(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"gpt-4o": true, "gpt-4.1-mini": true, "deepseek-chat": true, "claude-sonnet-4": true,
		"o1": false, "o1-mini": false, "o3": false, "o4-mini": false, "gpt-5": false,
		"gpt-5-mini": false, "openai/gpt-5": false, "openai/o3-pro": false, "GPT-5": false,
		"": true,
	}
	for model, want := range tests {
		if got := acceptsTemperature(model); got != want {
			t.Errorf("acceptsTemperature(%q) = %v, want %v", model, got, want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"fractional", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"ms wins", map[string]string{"Retry-After": "3", "retry-after-ms": "250"}, 250 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"negative", map[string]string{"Retry-After": "-1"}, 0},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		if got := retryAfter(h, now); got != tt.want {
			t.Errorf("%s: retryAfter = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestErrorDetails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body, code, msg string
	}{
		{`{"error":{"message":"m","type":"t","code":"c"}}`, "c", "m"},
		{`{"error":{"message":"m","type":"t","code":null}}`, "t", "m"},
		{`{"error":{"message":"m","code":429}}`, "429", "m"},
		{`{"error":"plain"}`, "", "plain"},
		{`{"message":"top"}`, "", "top"},
		{`{"detail":"fastapi"}`, "", "fastapi"},
		{`{"detail":[{"msg":"x"}]}`, "", `[{"msg":"x"}]`},
		{"  upstream down \n", "", "upstream down"},
		{`[]`, "", "[]"},
	}
	for _, tt := range tests {
		code, msg := errorDetails([]byte(tt.body))
		if code != tt.code || msg != tt.msg {
			t.Errorf("errorDetails(%s) = %q, %q; want %q, %q", tt.body, code, msg, tt.code, tt.msg)
		}
	}
}

// A Retry-After too large for a Duration is capped, never wrapped into a
// negative wait that would mean "retry at once".
func TestRetryAfterBounded(t *testing.T) {
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		header, value string
		want          time.Duration
	}{
		{"Retry-After", "1e300", maxRetryAfter},
		{"Retry-After", "+Inf", maxRetryAfter},
		{"Retry-After", "NaN", 0},
		{"Retry-After", "-5", 0},
		{"Retry-After", "2.5", 2500 * time.Millisecond},
		{"retry-after-ms", "1e300", maxRetryAfter},
		{"retry-after-ms", "1500", 1500 * time.Millisecond},
	} {
		h := http.Header{}
		h.Set(tt.header, tt.value)
		if got := retryAfter(h, now); got != tt.want {
			t.Errorf("%s: %s = %v, want %v", tt.header, tt.value, got, tt.want)
		}
	}
}
