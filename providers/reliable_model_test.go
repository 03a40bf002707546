package providers_test

import (
	"context"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers"
)

// The events of an entry that answers with its own model carry it, so that
// usage is billed to the model that answered (issue 20, item 17); an entry
// without one leaves the request's model in force.
func TestReliableAnsweredBy(t *testing.T) {
	t.Parallel()
	usage := providers.Event{Type: providers.EventUsage, Usage: &providers.Usage{InputTokens: 1}}
	answer := try{events: []providers.Event{text, usage, stop}}
	down := try{err: perr(providers.KindTransient, 503, 0)}
	for _, tc := range []struct {
		name    string
		entries []providers.Named
		want    string
	}{
		{"primary answers", []providers.Named{
			{Name: "a", Streamer: &fakeStreamer{tries: []try{answer}}},
			{Name: "b", Streamer: &fakeStreamer{tries: []try{answer}}, Model: "b-model"},
		}, "asked-model"},
		{"fallback answers", []providers.Named{
			{Name: "a", Streamer: &fakeStreamer{tries: []try{down}}},
			{Name: "b", Streamer: &fakeStreamer{tries: []try{answer}}, Model: "b-model"},
		}, "b-model"},
		{"second fallback answers", []providers.Named{
			{Name: "a", Streamer: &fakeStreamer{tries: []try{down}}},
			{Name: "b", Streamer: &fakeStreamer{tries: []try{down}}, Model: "b-model"},
			{Name: "c", Streamer: &fakeStreamer{tries: []try{answer}}, Model: "c-model"},
		}, "c-model"},
		{"fallback without a model of its own", []providers.Named{
			{Name: "a", Streamer: &fakeStreamer{tries: []try{down}}},
			{Name: "b", Streamer: &fakeStreamer{tries: []try{answer}}},
		}, "asked-model"},
	} {
		r := providers.NewReliable(tc.entries, 0, providers.WithSleep(func(context.Context, time.Duration) error { return nil }))
		n := 0
		for ev, err := range r.Stream(t.Context(), providers.Request{Model: "asked-model"}) {
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			n++
			if got := ev.AnsweredBy("asked-model"); got != tc.want {
				t.Errorf("%s: %s event answered by %q, want %q", tc.name, ev.Type, got, tc.want)
			}
		}
		if n != 3 {
			t.Errorf("%s: %d events, want 3", tc.name, n)
		}
	}
}
