package agent

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

// TestUsageSinkPurpose: a side request's usage counts in the session under
// its model (and in the session file) and on its purpose's line, which
// /clear empties.
func TestUsageSinkPurpose(t *testing.T) {
	t.Parallel()
	sink := &UsageSink{}
	rec := &memRecorder{}
	env := newEnv(t, nil, func(o *Options) {
		o.Usage = sink
		o.Recorder = rec
	})
	u := providers.Usage{InputTokens: 50, OutputTokens: 4}
	sink.AddFor("memory recall", "small-model", u)
	sink.AddFor("memory recall", "small-model", u)
	sink.AddFor("memory recall", "small-model", providers.Usage{})
	sink.Add("task-model", u)
	wantModels := []providers.ModelUsage{
		{Model: "small-model", Usage: providers.Usage{InputTokens: 100, OutputTokens: 8}},
		{Model: "task-model", Usage: u},
	}
	if diff := cmp.Diff(wantModels, env.agent.UsageByModel()); diff != "" {
		t.Errorf("UsageByModel (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff(wantModels, rec.usage); diff != "" {
		t.Errorf("recorded usage (-want +got)\n%s", diff)
	}
	wantPurpose := []providers.PurposeUsage{{Purpose: "memory recall", Model: "small-model", Usage: providers.Usage{InputTokens: 100, OutputTokens: 8}}}
	if diff := cmp.Diff(wantPurpose, env.agent.UsageByPurpose()); diff != "" {
		t.Errorf("UsageByPurpose (-want +got)\n%s", diff)
	}
	env.agent.Reset(context.Background())
	if got := env.agent.UsageByPurpose(); len(got) != 0 {
		t.Errorf("after Reset: %+v", got)
	}
}
