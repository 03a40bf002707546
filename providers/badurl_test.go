package providers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/anthropic"
	"github.com/clawseed/clawseed/providers/openai"
)

// TestBadBaseURLIsPermanent (issue 20, item 14): a base URL a request
// cannot go to ("not a url", another scheme, no host) is a bad request,
// tried once: it used to fail as "unsupported protocol scheme", classified
// transient and retried with backoff. The message does not repeat the URL.
func TestBadBaseURLIsPermanent(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"not a url", "ftp://example.com/v1", "localhost:8000/v1", "http:///v1", "file:///etc/passwd", "%zz"} {
		for _, wire := range []string{"openai", "anthropic"} {
			t.Run(wire+"/"+base, func(t *testing.T) {
				t.Parallel()
				var s providers.Streamer
				if wire == "openai" {
					s = openai.New(openai.Config{BaseURL: base, APIKey: "k", Model: "m"})
				} else {
					s = anthropic.New(anthropic.Config{BaseURL: base, APIKey: "k", Model: "m"})
				}
				tries := 0
				r := providers.NewReliable([]providers.Named{{Name: "x", Streamer: s}}, 3,
					providers.WithOnAttempt(func(providers.Attempt) { tries++ }))
				var err error
				for _, e := range r.Stream(context.Background(), providers.Request{Model: "m"}) {
					if e != nil {
						err = e
					}
				}
				if err == nil {
					t.Fatal("no error")
				}
				if k := providers.KindOf(err); k != providers.KindBadRequest {
					t.Errorf("kind %s, want bad_request: %v", k, err)
				}
				if tries != 1 {
					t.Errorf("%d tries, want 1", tries)
				}
				if strings.Contains(err.Error(), "example.com") || strings.Contains(err.Error(), "unsupported protocol scheme") {
					t.Errorf("message: %v", err)
				}
			})
		}
	}
}
