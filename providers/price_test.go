package providers

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPriceCost(t *testing.T) {
	t.Parallel()
	sonnet := Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	tests := []struct {
		name  string
		price Price
		usage Usage
		want  float64
	}{
		{"nothing", sonnet, Usage{}, 0},
		{"uncached input and output", sonnet, Usage{InputTokens: 1_000_000, OutputTokens: 100_000}, 3 + 1.5},
		{
			// 10,000 input = 2,000 uncached + 6,000 read + 2,000 written.
			"every kind", sonnet,
			Usage{InputTokens: 10_000, CachedInputTokens: 6_000, CacheWriteTokens: 2_000, OutputTokens: 500},
			(2_000*3 + 6_000*0.3 + 2_000*3.75 + 500*15) / 1e6,
		},
		{"all input read from cache", sonnet, Usage{InputTokens: 4_000, CachedInputTokens: 4_000}, 4_000 * 0.3 / 1e6},
		{
			// A provider reporting more cached than input tokens bills
			// no uncached input, not a negative amount.
			"inconsistent usage", sonnet, Usage{InputTokens: 100, CachedInputTokens: 150}, 150 * 0.3 / 1e6,
		},
		{"free", Price{}, Usage{InputTokens: 5_000_000, OutputTokens: 1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.price.Cost(tt.usage); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Cost(%+v) = %v, want %v", tt.usage, got, tt.want)
			}
		})
	}
}

func TestPriceString(t *testing.T) {
	t.Parallel()
	got := Price{Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25}.String()
	want := "input $1.25, cache read $0.125, cache write $1.25, output $10 per million tokens"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestModelUsage(t *testing.T) {
	t.Parallel()
	var list []ModelUsage
	list = AddModelUsage(list, "zeta", Usage{InputTokens: 1})
	list = AddModelUsage(list, "alpha", Usage{InputTokens: 10, OutputTokens: 2})
	list = AddModelUsage(list, "zeta", Usage{InputTokens: 5, CachedInputTokens: 3, CacheWriteTokens: 1})
	list = AddModelUsage(list, "", Usage{OutputTokens: 7})
	want := []ModelUsage{
		{Model: "", Usage: Usage{OutputTokens: 7}},
		{Model: "alpha", Usage: Usage{InputTokens: 10, OutputTokens: 2}},
		{Model: "zeta", Usage: Usage{InputTokens: 6, CachedInputTokens: 3, CacheWriteTokens: 1}},
	}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if got, want := TotalUsage(list), (Usage{InputTokens: 16, OutputTokens: 9, CachedInputTokens: 3, CacheWriteTokens: 1}); got != want {
		t.Errorf("total %+v, want %+v", got, want)
	}

	before := []ModelUsage{{Model: "alpha", Usage: Usage{InputTokens: 10, OutputTokens: 2}}, {Model: "zeta", Usage: Usage{InputTokens: 1}}}
	since := UsageSince(list, before)
	wantSince := []ModelUsage{
		{Model: "", Usage: Usage{OutputTokens: 7}},
		{Model: "zeta", Usage: Usage{InputTokens: 5, CachedInputTokens: 3, CacheWriteTokens: 1}},
	}
	if diff := cmp.Diff(wantSince, since); diff != "" {
		t.Errorf("UsageSince (-want +got)\n%s", diff)
	}
}

func TestCharge(t *testing.T) {
	t.Parallel()
	prices := map[string]Price{
		"cheap": {Input: 1, Output: 2, CacheRead: 0.1, CacheWrite: 1},
		"free":  {},
	}
	lookup := func(m string) (Price, bool) { p, ok := prices[m]; return p, ok }
	list := []ModelUsage{
		{Model: "cheap", Usage: Usage{InputTokens: 2_000_000, CachedInputTokens: 1_000_000, OutputTokens: 1_000_000}},
		{Model: "free", Usage: Usage{InputTokens: 99}},
		{Model: "mystery", Usage: Usage{InputTokens: 1}},
		{Model: "x-mystery", Usage: Usage{OutputTokens: 1}},
	}
	b := Charge(list, lookup)
	if math.Abs(b.USD-(1+0.1+2)) > 1e-12 {
		t.Errorf("USD %v, want 3.1", b.USD)
	}
	if diff := cmp.Diff([]string{"mystery", "x-mystery"}, b.Unpriced); diff != "" || b.Known() {
		t.Errorf("unpriced (-want +got)\n%s known %v", diff, b.Known())
	}
	if b := Charge(list[:2], lookup); !b.Known() {
		t.Errorf("Charge of priced models: unpriced %v", b.Unpriced)
	}
	if b := Charge(list[:1], nil); b.Known() || b.USD != 0 {
		t.Errorf("Charge without prices = %+v", b)
	}
}

func TestPurposeUsage(t *testing.T) {
	t.Parallel()
	var list []PurposeUsage
	list = AddPurposeUsage(list, "memory extraction", "zeta", Usage{InputTokens: 1})
	list = AddPurposeUsage(list, "compaction", "zeta", Usage{InputTokens: 2})
	list = AddPurposeUsage(list, "memory extraction", "alpha", Usage{OutputTokens: 3})
	list = AddPurposeUsage(list, "memory extraction", "zeta", Usage{InputTokens: 4})
	want := []PurposeUsage{
		{Purpose: "compaction", Model: "zeta", Usage: Usage{InputTokens: 2}},
		{Purpose: "memory extraction", Model: "alpha", Usage: Usage{OutputTokens: 3}},
		{Purpose: "memory extraction", Model: "zeta", Usage: Usage{InputTokens: 5}},
	}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	before := []PurposeUsage{{Purpose: "compaction", Model: "zeta", Usage: Usage{InputTokens: 2}}, {Purpose: "memory extraction", Model: "zeta", Usage: Usage{InputTokens: 1}}}
	wantSince := []PurposeUsage{
		{Purpose: "memory extraction", Model: "alpha", Usage: Usage{OutputTokens: 3}},
		{Purpose: "memory extraction", Model: "zeta", Usage: Usage{InputTokens: 4}},
	}
	if diff := cmp.Diff(wantSince, PurposeSince(list, before)); diff != "" {
		t.Errorf("PurposeSince (-want +got)\n%s", diff)
	}
}
