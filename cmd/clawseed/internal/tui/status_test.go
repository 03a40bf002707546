package tui

import (
	"testing"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/repl"
	"github.com/clawseed/clawseed/providers"
)

// The status line: each part shows only when it says something.
func TestStatusLine(t *testing.T) {
	model := repl.SessionStatus{Model: "fake-model"}
	for _, tc := range []struct {
		name string
		r    repl.StatusReport
		want string
	}{
		{"fresh session", repl.StatusReport{SessionStatus: model},
			"fake-model · 0 tokens · $0.0000"},
		{"context window known", repl.StatusReport{SessionStatus: model, ContextTokens: 84000, ContextWindow: 200000, ContextPercent: 42},
			"fake-model · context 42% · 0 tokens · $0.0000"},
		{"no model priced", repl.StatusReport{SessionStatus: model, Cost: providers.Bill{Unpriced: []string{"local"}}},
			"fake-model · 0 tokens · $?"},
		{"tokens and cache hits", repl.StatusReport{SessionStatus: model,
			Tokens: providers.Usage{InputTokens: 12300, OutputTokens: 456, CachedInputTokens: 9000}, Cost: providers.Bill{USD: 0.0123}},
			"fake-model · 12.8k tokens · cache 73% · $0.0123"},
		{"a model without a price", repl.StatusReport{SessionStatus: model,
			Tokens: providers.Usage{InputTokens: 2_500_000}, Cost: providers.Bill{USD: 1.5, Unpriced: []string{"local"}}},
			"fake-model · 2.5M tokens · cache 0% · ≥$1.5000"},
		{"plan mode, todos, skills", repl.StatusReport{SessionStatus: model, PlanMode: true, TodosDone: 1, Todos: 3,
			Active: []string{"pdf", "bad\x1b[31mname"}},
			`fake-model · 0 tokens · $0.0000 · plan mode · todos 1/3 · skills: pdf, bad\x1b[31mname`},
		{"all todos done: not shown", repl.StatusReport{SessionStatus: model, TodosDone: 3, Todos: 3},
			"fake-model · 0 tokens · $0.0000"},
	} {
		if got := statusLine(tc.r); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// The line after a turn: what the turn itself used (the difference of the
// reports before and after it).
func TestTurnSummary(t *testing.T) {
	before := repl.StatusReport{Tokens: providers.Usage{InputTokens: 1000, OutputTokens: 100, CachedInputTokens: 500}, Cost: providers.Bill{USD: 0.01}}
	for _, tc := range []struct {
		name  string
		d     time.Duration
		tools int
		after repl.StatusReport
		want  string
	}{
		{"no tools, nothing sent", 1500 * time.Millisecond, 0, before,
			"· 1.5s · ↑0 ↓0 tokens · $0.0000"},
		{"one tool call", 2 * time.Second, 1,
			repl.StatusReport{Tokens: providers.Usage{InputTokens: 5000, OutputTokens: 300, CachedInputTokens: 3500}, Cost: providers.Bill{USD: 0.03}},
			"· 2.0s · 1 tool call · ↑4.0k ↓200 tokens · cache 75% · $0.0200"},
		{"several, unpriced", 12300 * time.Millisecond, 3,
			repl.StatusReport{Tokens: providers.Usage{InputTokens: 3000, OutputTokens: 1100, CachedInputTokens: 500}, Cost: providers.Bill{USD: 0.01, Unpriced: []string{"local"}}},
			"· 12.3s · 3 tool calls · ↑2.0k ↓1.0k tokens · cache 0%"},
	} {
		if got := turnSummary(tc.d, tc.tools, before, tc.after); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
