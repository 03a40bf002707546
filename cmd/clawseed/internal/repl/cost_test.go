package repl

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
)

// TestCost: /cost shows tokens by kind, the cache hit ratio and the cost,
// per model when more than one was used, and says what it cannot price.
func TestCost(t *testing.T) {
	t.Parallel()
	prices := map[string]providers.Price{
		"claude-sonnet-4-5": {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, Source: "built-in price list"},
		"qwen3":             {Source: providers.LocalPriceSource},
	}
	lookup := func(m string) (providers.Price, bool) { p, ok := prices[m]; return p, ok }
	sonnet := providers.ModelUsage{Model: "claude-sonnet-4-5", Usage: providers.Usage{
		InputTokens: 1_234_000, CachedInputTokens: 1_000_000, CacheWriteTokens: 200_000, OutputTokens: 5_000}}
	// 34,000 uncached × 3 + 1,000,000 × 0.3 + 200,000 × 3.75 + 5,000 × 15, per million.
	sonnetCost := "$1.227000"
	tests := []struct {
		name      string
		byModel   []providers.ModelUsage
		byPurpose []providers.PurposeUsage
		want      []string
	}{
		{"nothing yet", nil, nil, []string{"No tokens used in this session yet.\n"}},
		{"one model", []providers.ModelUsage{sonnet}, nil, []string{
			"Tokens this session:\n",
			"  input, uncached        34,000\n",
			"  cache read          1,000,000\n",
			"  cache write           200,000\n",
			"  output                  5,000\n",
			"Cache hit ratio: 81.0% of 1,234,000 input tokens were read from the cache.\n",
			"Model claude-sonnet-4-5: input $3, cache read $0.3, cache write $3.75, output $15 per million tokens (built-in price list).\n",
			"Cost: " + sonnetCost + "\n",
		}},
		{"memory extraction on its own line", []providers.ModelUsage{sonnet}, []providers.PurposeUsage{
			{Purpose: "memory extraction", Model: "claude-sonnet-4-5", Usage: providers.Usage{InputTokens: 10_000, CachedInputTokens: 8_000, OutputTokens: 200}},
			{Purpose: "memory extraction", Model: "qwen3", Usage: providers.Usage{InputTokens: 100, OutputTokens: 10}},
		}, []string{
			// 2,000 × 3 + 8,000 × 0.3 + 200 × 15, per million.
			"Memory extraction (included above): input 10,100 (8,000 cache read), output 210: $0.011400\n",
			"Cost: " + sonnetCost + "\n",
		}},
		{"local model", []providers.ModelUsage{{Model: "qwen3", Usage: providers.Usage{InputTokens: 10, OutputTokens: 2}}}, nil, []string{
			"Model qwen3: local model, no charge.\n",
			"Cost: $0.000000\n",
		}},
		{"unknown model only", []providers.ModelUsage{{Model: "mystery", Usage: providers.Usage{InputTokens: 10}}}, nil, []string{
			"Model mystery: no price known; set price in its [providers.models.NAME] entry of config.toml.\n",
			"Cost: unknown (no price for mystery; set price in the [providers.models.NAME] entry)\n",
		}},
		{"several models", []providers.ModelUsage{
			sonnet,
			{Model: "mystery", Usage: providers.Usage{InputTokens: 10, OutputTokens: 1}},
			{Model: "qwen3", Usage: providers.Usage{InputTokens: 100, OutputTokens: 20}},
		}, nil, []string{
			"By model:\n",
			"  claude-sonnet-4-5  input 1,234,000 (1,000,000 cache read, 200,000 cache write), output 5,000: " + sonnetCost + "\n",
			"  mystery            input 10, output 1: no price known\n",
			"  qwen3              input 100, output 20: $0.000000 (local model, no charge)\n",
			"Cost: at least " + sonnetCost + " (no price for mystery; set price in the [providers.models.NAME] entry)\n",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fa := newFakeAgent()
			fa.byModel, fa.byPurpose = tt.byModel, tt.byPurpose
			var out bytes.Buffer
			c := &Chat{Agent: fa, Out: &out, Err: &out, Prices: lookup}
			c.command(t.Context(), "/cost")
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -45000: "-45,000"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
