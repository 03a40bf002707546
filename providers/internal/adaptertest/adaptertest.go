// Package adaptertest is the test harness the wire adapters
// (providers/openai, providers/anthropic) share: the transport tests every
// adapter must pass ([RunTransportTests]), the golden runner over
// testdata/*.txtar ([RunGolden]), the benchmarks' long session
// ([LongSession]), and in-process HTTP servers and clients. An adapter's
// tests describe it once in a [Wire].
//
// It is internal to providers/ because it is the adapters' own contract,
// not a fake model: the agent tests and the CLI scripts use
// [github.com/clawseed/clawseed/providers/providertest].
package adaptertest

import (
	"context"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers"
)

// An Adapter is a wire adapter under test.
type Adapter interface {
	Stream(ctx context.Context, req providers.Request) iter.Seq2[providers.Event, error]
	EncodeRequest(req providers.Request) ([]byte, error)
}

// A Config is an adapter's configuration as the shared tests set it. Its
// fields are those of openai.Config and anthropic.Config, in their order,
// so that a [Wire.New] converts it with anthropic.Config(c); the JSON
// names are those of a golden case's config.json.
type Config struct {
	Name            string            `json:"name"`
	BaseURL         string            `json:"base_url"`
	APIKey          string            `json:"-"`
	Model           string            `json:"model"`
	MaxTokens       int               `json:"max_tokens"`
	ExtraHeaders    map[string]string `json:"extra_headers"`
	Timeout         time.Duration     `json:"-"`
	ReasoningEffort string            `json:"reasoning_effort"`
	HTTPClient      *http.Client      `json:"-"`
}

// A Wire describes an adapter and its wire to the shared tests.
type Wire struct {
	// New returns the adapter configured by c.
	New func(c Config) Adapter
	// Model is the model the tests' requests name.
	Model string
	// NamesModel: the adapter names the model in its errors.
	NamesModel bool
	// BasePath is the path of the API root on a test server ("/v1" for
	// OpenAI: its base URLs end there), and Endpoint what the adapter
	// appends to a base URL ("/chat/completions", "/v1/messages").
	BasePath, Endpoint string
	// KeyHeader carries the API key, after KeyPrefix ("Authorization",
	// "Bearer ").
	KeyHeader, KeyPrefix string
	// Start, Text and End are an event stream's pieces: Start+Text is an
	// answer up to its one text delta "x", and Start+Text+End the whole
	// answer; Text may repeat. Ping, if not empty, is an event without
	// content.
	Start, Text, End, Ping string
	// Forbidden are packages the adapter must not depend on: the SDKs'
	// root packages, whose initialisation cost every start (issue 13).
	Forbidden []string
	// GeneratedID matches the call ids the adapter invents; the golden
	// events show Placeholder instead.
	GeneratedID *regexp.Regexp
	Placeholder string
	// GoldenDir holds the golden cases; "testdata" when empty (an adapter
	// with two APIs keeps the second's in a subfolder).
	GoldenDir string
}

// Answer is a whole event stream whose text is "x".
func (w Wire) Answer() string { return w.Start + w.Text + w.End }

// request is a request of one user message.
func (w Wire) request(text string) providers.Request {
	return providers.Request{Model: w.Model, Messages: []providers.Message{providers.UserText(text)}}
}

// Collect drains a stream into its events and final error.
func Collect(seq iter.Seq2[providers.Event, error]) ([]providers.Event, error) {
	var events []providers.Event
	for ev, err := range seq {
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
	return events, nil
}

// Text is the text of events.
func Text(events []providers.Event) string {
	var b strings.Builder
	for _, ev := range events {
		b.WriteString(ev.Text)
	}
	return b.String()
}

// RoundTripFunc is an [http.RoundTripper] made of a function.
type RoundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f RoundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// PipeResponse answers r in-process with a 200 event stream whose body
// serve writes; serve must return when the request's context ends. Like a
// real transport, the body read fails once that context ends. Inside a
// synctest bubble everything, timers included, runs on the fake clock.
func PipeResponse(r *http.Request, serve func(ctx context.Context, w io.Writer)) *http.Response {
	pr, pw := io.Pipe()
	context.AfterFunc(r.Context(), func() { pr.CloseWithError(r.Context().Err()) })
	go func() {
		serve(r.Context(), pw)
		pw.CloseWithError(r.Context().Err())
	}()
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       pr,
		Request:    r,
	}
}

// PipeClient answers every request with [PipeResponse].
func PipeClient(serve func(ctx context.Context, w io.Writer)) *http.Client {
	return &http.Client{Transport: RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		return PipeResponse(r, serve), nil
	})}
}

// HangingServer streams prefix, then blocks until the client goes away;
// gone is closed when the handler sees the disconnect.
func HangingServer(t *testing.T, prefix string) (url string, gone <-chan struct{}) {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, prefix)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(done)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, done
}

// A Seen is a request a [RecordingServer] received.
type Seen struct {
	Method     string
	Header     http.Header
	Path       string
	RequestURI string
	Body       string
}

// RecordingServer answers every request with a 200 event stream of body
// and sends what it received on seen, which buffers 16 requests (a 17th
// not yet read blocks its handler).
func RecordingServer(t *testing.T, body string) (url string, seen <-chan Seen) {
	t.Helper()
	got := make(chan Seen, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- Seen{Method: r.Method, Header: r.Header.Clone(), Path: r.URL.Path, RequestURI: r.RequestURI, Body: string(b)}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, got
}
