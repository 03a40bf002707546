package anthropic_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/anthropic"
	"github.com/clawseed/clawseed/providers/internal/adaptertest"
	"github.com/clawseed/clawseed/providers/openai"
)

// A step is one scripted answer of a fake server: a status with headers and
// a body, or (serve) a 200 event stream written until serve returns.
type step struct {
	status int
	header http.Header
	body   string
	serve  func(ctx context.Context, w io.Writer)
}

// scriptClient answers the n-th request with steps[n] (the last step
// repeats) and counts the requests.
type scriptClient struct {
	mu    sync.Mutex
	steps []step
	n     int
}

func (s *scriptClient) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func (s *scriptClient) client() *http.Client {
	return &http.Client{Transport: adaptertest.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		st := s.steps[min(s.n, len(s.steps)-1)]
		s.n++
		s.mu.Unlock()
		if st.serve != nil {
			return adaptertest.PipeResponse(r, st.serve), nil
		}
		h := st.header
		if h == nil {
			h = http.Header{"Content-Type": {"application/json"}}
		}
		return &http.Response{StatusCode: st.status, Header: h, Body: io.NopCloser(strings.NewReader(st.body)), Request: r}, nil
	})}
}

func sse(s string) func(context.Context, io.Writer) {
	return func(_ context.Context, w io.Writer) { io.WriteString(w, s) }
}

func errBody(typ, msg string) string {
	return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"}}`
}

const openAIAnswer = `data: {"choices":[{"index":0,"delta":{"content":"from openai"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"

// TestFaults drives the Anthropic wire through providers.Reliable (two
// retries, then an OpenAI-wire fallback) with the failures the API really
// produces. Each case ends in the right answer or in a precise error naming
// the provider, the model and the status.
func TestFaults(t *testing.T) {
	t.Parallel()
	ok := step{serve: sse(sseAnswer)}
	tests := []struct {
		name       string
		steps      []step
		wantText   string
		wantCalls  int             // requests to the Anthropic endpoint
		wantWaits  []time.Duration // Reliable's sleeps (full jitter drawn at 0.5)
		wantErr    []string        // substrings of the final error
		wantKind   providers.ErrorKind
		wantStatus int
	}{
		{
			name: "429 with retry-after, then an answer",
			steps: []step{{status: 429, header: http.Header{"Content-Type": {"application/json"}, "Retry-After": {"3"}},
				body: errBody("rate_limit_error", "slow down")}, ok},
			wantText: "x", wantCalls: 2, wantWaits: []time.Duration{3 * time.Second},
		},
		{
			name:     "529 overloaded, then an answer",
			steps:    []step{{status: 529, body: errBody("overloaded_error", "Overloaded")}, ok},
			wantText: "x", wantCalls: 2, wantWaits: []time.Duration{250 * time.Millisecond},
		},
		{
			name:     "500, then an answer",
			steps:    []step{{status: 500, body: errBody("api_error", "Internal server error")}, ok},
			wantText: "x", wantCalls: 2, wantWaits: []time.Duration{250 * time.Millisecond},
		},
		{
			name:     "stream cut after the first event, then an answer",
			steps:    []step{{serve: sse(sseStart)}, ok},
			wantText: "x", wantCalls: 2, wantWaits: []time.Duration{250 * time.Millisecond},
		},
		{
			name: "error event before any output, then an answer",
			steps: []step{{serve: sse(sseStart + "event: error\ndata: " + errBody("overloaded_error", "Overloaded") + "\n\n")},
				ok},
			wantText: "x", wantCalls: 2, wantWaits: []time.Duration{250 * time.Millisecond},
		},
		{
			name: "hang, cut by the idle timeout, then an answer",
			steps: []step{{serve: func(ctx context.Context, w io.Writer) {
				io.WriteString(w, sseStart)
				<-ctx.Done()
			}}, ok},
			wantText: "x", wantCalls: 2, wantWaits: []time.Duration{250 * time.Millisecond},
		},
		{
			name:     "529 every time: the OpenAI-wire fallback answers",
			steps:    []step{{status: 529, body: errBody("overloaded_error", "Overloaded")}},
			wantText: "from openai", wantCalls: 3, wantWaits: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond},
		},
		{
			name: "error event after output: returned as is (the caller has shown text)",
			steps: []step{{serve: sse(sseStart + sseBlock + sseText + "event: error\ndata: " + errBody("overloaded_error", "Overloaded") + "\n\n")},
				ok},
			wantText: "x", wantCalls: 1,
			wantErr:  []string{"anthropic", "transient", "Overloaded", "overloaded_error mid-stream", "model claude-sonnet-4-5"},
			wantKind: providers.KindTransient,
		},
		{
			name:      "401: no retry, no fallback",
			steps:     []step{{status: 401, body: errBody("authentication_error", "invalid x-api-key")}},
			wantCalls: 1,
			wantErr:   []string{"anthropic: auth (HTTP 401): invalid x-api-key (model claude-sonnet-4-5)"},
			wantKind:  providers.KindAuth, wantStatus: 401,
		},
		{
			name:      "prompt too long: context_length for the agent to compact",
			steps:     []step{{status: 400, body: errBody("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")}},
			wantCalls: 1,
			wantErr:   []string{"anthropic: context_length (HTTP 400): prompt is too long", "model claude-sonnet-4-5"},
			wantKind:  providers.KindContextLength, wantStatus: 400,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				script := &scriptClient{steps: tt.steps}
				primary := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", APIKey: "k",
					BaseURL: "http://anthropic.test", Timeout: 30 * time.Second, HTTPClient: script.client()})
				fallback := openai.New(openai.Config{Name: "openai", Model: "gpt-4o", BaseURL: "http://openai.test/v1",
					HTTPClient: (&scriptClient{steps: []step{{serve: sse(openAIAnswer)}}}).client()})
				var waits []time.Duration
				r := providers.NewReliable([]providers.Named{{Name: "anthropic", Streamer: primary}, {Name: "openai", Streamer: fallback}}, 2,
					providers.WithRand(func() float64 { return 0.5 }),
					providers.WithSleep(func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }))
				req := providers.Request{Messages: []providers.Message{providers.UserText("hi")}}
				events, err := adaptertest.Collect(r.Stream(t.Context(), req))
				if got := adaptertest.Text(events); got != tt.wantText {
					t.Errorf("text = %q, want %q", got, tt.wantText)
				}
				if got := script.requests(); got != tt.wantCalls {
					t.Errorf("requests to anthropic = %d, want %d", got, tt.wantCalls)
				}
				if len(waits) != len(tt.wantWaits) {
					t.Errorf("waits = %v, want %v", waits, tt.wantWaits)
				} else {
					for i := range waits {
						if waits[i] != tt.wantWaits[i] {
							t.Errorf("waits = %v, want %v", waits, tt.wantWaits)
						}
					}
				}
				if tt.wantErr == nil {
					if err != nil {
						t.Fatalf("err = %v", err)
					}
					if last := events[len(events)-1]; last.Type != providers.EventStop {
						t.Errorf("last event = %+v, want a stop", last)
					}
					return
				}
				if err == nil {
					t.Fatal("no error")
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not contain %q", err, want)
					}
				}
				pe, _ := errors.AsType[*providers.Error](err)
				if pe == nil || pe.Kind != tt.wantKind || pe.StatusCode != tt.wantStatus {
					t.Errorf("error = %#v, want kind %v status %d", pe, tt.wantKind, tt.wantStatus)
				}
			})
		})
	}
}
