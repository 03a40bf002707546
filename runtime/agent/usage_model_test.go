package agent

import (
	"context"
	"iter"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// fallbackAnswers marks the events of its model's responses as a
// [providers.Reliable] fallback entry does: another model answered.
type fallbackAnswers struct {
	Model
	name string
}

func (f fallbackAnswers) Stream(ctx context.Context, req providers.Request) iter.Seq2[providers.Event, error] {
	return func(yield func(providers.Event, error) bool) {
		for ev, err := range f.Model.Stream(ctx, req) {
			ev.Model = f.name
			if !yield(ev, err) {
				return
			}
		}
	}
}

// The usage of a response a fallback answered counts, and is recorded,
// under the fallback's model, and the turn names it (issue 20, item 17);
// compaction summaries too.
func TestUsageOfFallback(t *testing.T) {
	t.Parallel()
	rec := &memRecorder{}
	env := newEnv(t, []providertest.Response{
		{Text: "one", Usage: &providers.Usage{InputTokens: 100, OutputTokens: 10}},
		{Text: "two"},
		{Text: "three"},
		{When: "Summarise the conversation", Text: "## User goals\nS", Usage: &providers.Usage{InputTokens: 50, OutputTokens: 5}},
	}, func(o *Options) {
		o.Recorder = rec
		o.Model = fallbackAnswers{Model: o.Model, name: "fallback-model"}
	})
	res, err := env.agent.Turn(t.Context(), "a")
	if err != nil {
		t.Fatal(err)
	}
	want := []providers.ModelUsage{{Model: "fallback-model", Usage: providers.Usage{InputTokens: 100, OutputTokens: 10}}}
	if res.Model != "fallback-model" || !cmp.Equal(res.Models, want) || res.Usage != want[0].Usage {
		t.Errorf("turn: model %q, models %+v, usage %+v; want fallback-model, %+v", res.Model, res.Models, res.Usage, want)
	}
	for _, text := range []string{"b", "c"} {
		if _, err := env.agent.Turn(t.Context(), text); err != nil {
			t.Fatal(err)
		}
	}
	if info, err := env.agent.Compact(t.Context(), ""); err != nil || !info.Summarized {
		t.Fatalf("compact: %+v, %v", info, err)
	}
	want[0].Usage.Add(providers.Usage{InputTokens: 50, OutputTokens: 5})
	if diff := cmp.Diff(want, env.agent.UsageByModel()); diff != "" {
		t.Errorf("UsageByModel (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff(want, rec.usage); diff != "" {
		t.Errorf("recorded usage (-want +got)\n%s", diff)
	}
}

// A turn's usage is everything the turn spent: a fork skill's requests
// included, as they are in the session's usage and cost (issue 20, item
// 17).
func TestTurnUsageIncludesFork(t *testing.T) {
	t.Parallel()
	u := func(in, out int) *providers.Usage { return &providers.Usage{InputTokens: in, OutputTokens: out} }
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "Skill", Args: `{"skill":"reviewer","args":"1"}`}}, Usage: u(10, 1)},
		{Text: "LGTM.", Usage: u(100, 10)}, // the fork
		{Text: "Reviewed.", Usage: u(20, 2)},
	}, runnerSkills())
	var ends []providers.Usage
	sink := env.agent.opts.Sink
	env.agent.opts.Sink = func(ev Event) {
		if ev.Type == EventTurnEnd && ev.Usage != nil {
			ends = append(ends, *ev.Usage)
		}
		sink(ev)
	}
	res, err := env.agent.Turn(t.Context(), "review 1")
	if err != nil {
		t.Fatal(err)
	}
	want := *u(130, 13)
	if res.Usage != want || res.Usage != env.agent.Usage() {
		t.Errorf("turn usage %+v, session usage %+v; want both %+v", res.Usage, env.agent.Usage(), want)
	}
	if len(ends) == 0 || ends[len(ends)-1] != want {
		t.Errorf("turn_end usage %+v, want %+v last", ends, want)
	}
	if diff := cmp.Diff([]providers.ModelUsage{{Model: "test-model", Usage: want}}, res.Models); diff != "" {
		t.Errorf("Models (-want +got)\n%s", diff)
	}
}
