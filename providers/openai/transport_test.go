package openai_test

import (
	"testing"

	"github.com/clawseed/clawseed/providers/internal/adaptertest"
	"github.com/clawseed/clawseed/providers/openai"
)

// TestEndpointURL checks where the base URL spellings users write send
// the request: the SDK's joining rules, kept.
func TestEndpointURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		suffix string // appended to the server URL as base_url
		want   string // request URI the server must see
	}{
		{"", "/chat/completions"},
		{"/", "/chat/completions"},
		{"/v1", "/v1/chat/completions"},
		{"/v1/", "/v1/chat/completions"},
		{"/v1/chat/completions", "/v1/chat/completions"},
		{"/v1/chat/completions/", "/v1/chat/completions"},
		{"/proxy/openai/v1", "/proxy/openai/v1/chat/completions"},
		{"/v1?api-version=2024-10-21", "/v1/chat/completions"}, // the SDK dropped a query too
	}
	for _, tt := range tests {
		t.Run(tt.suffix, func(t *testing.T) {
			t.Parallel()
			url, got := adaptertest.RecordingServer(t, "data: [DONE]\n\n")
			if _, err := adaptertest.Collect(openai.New(openai.Config{BaseURL: url + tt.suffix}).Stream(t.Context(), userReq("hi"))); err != nil {
				t.Fatal(err)
			}
			if g := <-got; g.Method+" "+g.RequestURI != "POST "+tt.want {
				t.Errorf("request %q, want %q", g.Method+" "+g.RequestURI, "POST "+tt.want)
			}
		})
	}
}

// TestHeaderOverrides checks that extra headers replace the defaults and
// that two spellings of one name resolve the same way every time (the
// names are applied in sorted order, so the lower-case one wins), while
// Accept and Content-Type stay what the adapter needs.
func TestHeaderOverrides(t *testing.T) {
	t.Parallel()
	url, got := adaptertest.RecordingServer(t, "data: [DONE]\n\n")
	p := openai.New(openai.Config{BaseURL: url, APIKey: "sk-cfg", ExtraHeaders: map[string]string{
		"User-Agent": "my-agent/1.0", "Authorization": "Bearer gateway", "X-Tenant": "A", "x-tenant": "b",
		"Accept": "application/json", "Content-Type": "text/plain"}})
	for range 5 {
		if _, err := adaptertest.Collect(p.Stream(t.Context(), userReq("hi"))); err != nil {
			t.Fatal(err)
		}
		h := (<-got).Header
		for k, want := range map[string]string{"User-Agent": "my-agent/1.0", "Authorization": "Bearer gateway",
			"X-Tenant": "b", "Accept": "text/event-stream", "Content-Type": "application/json"} {
			if got := h.Values(k); len(got) != 1 || got[0] != want {
				t.Errorf("header %s = %q, want %q", k, got, want)
			}
		}
	}
}
