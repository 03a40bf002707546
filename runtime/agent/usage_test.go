package agent

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// TestUsageByModel: each response's usage is counted, and recorded, under the
// model its request was sent to: the session's model, a model id set with
// /model, a model switched to, and the summary model for compaction.
func TestUsageByModel(t *testing.T) {
	t.Parallel()
	rec := &memRecorder{}
	u := func(in, out, cached, written int) *providers.Usage {
		return &providers.Usage{InputTokens: in, OutputTokens: out, CachedInputTokens: cached, CacheWriteTokens: written}
	}
	env := newEnv(t, []providertest.Response{
		{Text: "one", Usage: u(100, 10, 0, 0)},
		{Text: "two", Usage: u(200, 20, 150, 0)},
		{Text: "three", Usage: u(300, 30, 0, 0)},
		{When: "Summarise the conversation", Text: "## User goals\nS", Usage: u(50, 5, 0, 0)},
	}, func(o *Options) {
		o.Recorder = rec
		o.SummaryModelName = "summary-model"
	})
	turn := func(text string) {
		t.Helper()
		if _, err := env.agent.Turn(t.Context(), text); err != nil {
			t.Fatal(err)
		}
	}
	turn("a")
	env.agent.SetModel("other-id") // /model MODEL-ID
	turn("b")
	turn("c")
	if _, err := env.agent.Compact(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	second := providertest.NewModel(providertest.Response{Text: "four", Usage: u(1000, 40, 600, 300)})
	env.agent.SwitchModel(ModelChoice{Model: second, Name: "claude-x"}) // /model ENTRY
	turn("d")

	want := []providers.ModelUsage{
		{Model: "claude-x", Usage: *u(1000, 40, 600, 300)},
		{Model: "other-id", Usage: *u(500, 50, 150, 0)},
		{Model: "summary-model", Usage: *u(50, 5, 0, 0)},
		{Model: "test-model", Usage: *u(100, 10, 0, 0)},
	}
	if diff := cmp.Diff(want, env.agent.UsageByModel()); diff != "" {
		t.Errorf("UsageByModel (-want +got)\n%s", diff)
	}
	if got := env.agent.Usage(); got != providers.TotalUsage(want) {
		t.Errorf("Usage %+v, want the sum %+v", got, providers.TotalUsage(want))
	}
	if diff := cmp.Diff(want, rec.usage); diff != "" {
		t.Errorf("recorded usage (-want +got)\n%s", diff)
	}

	// A resumed session gets the totals back per model, in any order.
	env2 := newEnv(t, nil, nil)
	env2.agent.Resume(context.Background(), nil, nil, []providers.ModelUsage{want[3], want[0], want[2], want[1]}, nil)
	if diff := cmp.Diff(want, env2.agent.UsageByModel()); diff != "" || env2.agent.Usage() != env.agent.Usage() {
		t.Errorf("resumed usage (-want +got)\n%s", diff)
	}

	// /clear starts from nothing.
	env.agent.Reset(context.Background())
	if got := env.agent.UsageByModel(); len(got) != 0 || env.agent.Usage() != (providers.Usage{}) {
		t.Errorf("after Reset: %+v, %+v", got, env.agent.Usage())
	}
}
