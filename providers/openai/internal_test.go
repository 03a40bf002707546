package openai

import (
	"testing"
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
