package anthropic_test

import (
	"testing"

	"github.com/clawseed/clawseed/providers/anthropic"
	"github.com/clawseed/clawseed/providers/internal/adaptertest"
)

// TestHeaderOverrides checks that extra headers replace the defaults (a
// gateway's own User-Agent, a pinned anthropic-version) and that two
// spellings of one name resolve the same way every time (the names are
// applied in sorted order, so the lower-case one wins), while Accept stays
// what the adapter needs.
func TestHeaderOverrides(t *testing.T) {
	t.Parallel()
	url, got := adaptertest.RecordingServer(t, sseAnswer)
	p := anthropic.New(anthropic.Config{BaseURL: url, APIKey: "sk-ant", ExtraHeaders: map[string]string{
		"User-Agent": "my-agent/1.0", "anthropic-version": "2099-01-01", "X-Tenant": "A", "x-tenant": "b",
		"Accept": "application/json"}})
	for range 5 {
		if _, err := adaptertest.Collect(p.Stream(t.Context(), userReq("hi"))); err != nil {
			t.Fatal(err)
		}
		h := (<-got).Header
		for k, want := range map[string]string{"User-Agent": "my-agent/1.0", "Anthropic-Version": "2099-01-01",
			"X-Tenant": "b", "Accept": "text/event-stream", "X-Api-Key": "sk-ant"} {
			if got := h.Values(k); len(got) != 1 || got[0] != want {
				t.Errorf("header %s = %q, want %q", k, got, want)
			}
		}
	}
}
