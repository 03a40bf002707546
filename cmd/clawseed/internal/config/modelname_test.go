package config

import (
	"strings"
	"testing"
)

// TestModelIDProblem pins which names /model takes as a model id of the
// provider in use (issue 25, item 4): ids that look like ids and are no
// near miss of a known name; typos of entries, presets and Claude Code's
// aliases are refused with a suggestion, plain words without one.
func TestModelIDProblem(t *testing.T) {
	t.Parallel()
	c := &Config{Providers: Providers{Models: map[string]ModelEntry{"fast": {}, "smart": {}, "claude": {}}}}
	tests := []struct {
		name string
		want string // "" taken as an id; else a part of the refusal
	}{
		{"gpt-4o", ""},
		{"o3", ""},
		{"claude-sonnet-4-5", ""},
		{"meta-llama/Llama-3.3-70B-Instruct-Turbo", ""},
		{"qwen3:8b", ""},
		{"gemini-2.5-pro", ""},
		{"other-id", ""},
		{"smrt", `did you mean smart? (for a model id of the provider in use, write /model fast smrt)`},
		{"Smart", "did you mean smart?"},
		{"sonet", "did you mean sonnet?"},
		{"fast-", "did you mean fast?"},
		{"claude-3", "did you mean claude?"},
		{"opnai", "did you mean openai?"},
		{"bogus", `unknown model name "bogus": not a [providers.models] entry (claude, fast, smart), a provider or a model id (for a model id of the provider in use, write /model fast bogus)`},
	}
	for _, tt := range tests {
		got := c.ModelIDProblem(tt.name, "fast")
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
