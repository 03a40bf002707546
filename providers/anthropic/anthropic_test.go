package anthropic_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/anthropic"
)

func userReq(text string) providers.Request {
	return providers.Request{Model: "claude-sonnet-4-5", Messages: []providers.Message{providers.UserText(text)}}
}

// SSE fragments of a small text answer.
const (
	sseStart = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
	sseBlock = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
	sseText  = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n"
	sseEnd   = "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	sseAnswer = sseStart + sseBlock + sseText + sseEnd
)

// collect drains a stream into its events and final error.
func collect(seq func(func(providers.Event, error) bool)) ([]providers.Event, error) {
	var events []providers.Event
	for ev, err := range seq {
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
	return events, nil
}

func text(events []providers.Event) string {
	var b strings.Builder
	for _, ev := range events {
		b.WriteString(ev.Text)
	}
	return b.String()
}

// TestHeadersAndEnvironment checks x-api-key, anthropic-version, the extra
// headers, the SSE Accept header, the User-Agent and the path for the base
// URL spellings users write, that no SDK telemetry header is sent, and that
// the ANTHROPIC_* variables the SDK's NewClient would read never reach a
// configured provider.
func TestHeadersAndEnvironment(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "token-from-env")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1/wrong")
	t.Setenv("ANTHROPIC_PROFILE", "missing-profile")

	tests := []struct {
		name   string
		apiKey string
		suffix string // appended to the server URL as base_url
		path   string // path the server must see
		want   map[string]string
	}{
		{"key", "sk-ant-cfg", "", "/v1/messages", map[string]string{"X-Api-Key": "sk-ant-cfg", "Anthropic-Version": "2023-06-01",
			"Anthropic-Beta": "b1", "Accept": "text/event-stream", "Authorization": "", "Traceparent": "", "Content-Type": "application/json",
			"User-Agent": "clawseed", "X-Stainless-Lang": "", "X-Stainless-Retry-Count": ""}},
		{"no key", "", "/", "/v1/messages", map[string]string{"X-Api-Key": "", "Authorization": "", "Anthropic-Beta": "b1"}},
		{"v1 suffix", "k", "/v1", "/v1/messages", map[string]string{"X-Api-Key": "k"}},
		{"full endpoint", "k", "/v1/messages", "/v1/messages", map[string]string{"X-Api-Key": "k"}},
		{"gateway prefix", "k", "/gw/anthropic/", "/gw/anthropic/v1/messages", map[string]string{"X-Api-Key": "k"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type seen struct {
				h    http.Header
				path string
			}
			got := make(chan seen, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got <- seen{r.Header.Clone(), r.URL.Path}
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, sseAnswer)
			}))
			defer srv.Close()
			p := anthropic.New(anthropic.Config{BaseURL: srv.URL + tt.suffix, APIKey: tt.apiKey,
				ExtraHeaders: map[string]string{"anthropic-beta": "b1"}})
			if _, err := collect(p.Stream(t.Context(), userReq("hi"))); err != nil {
				t.Fatal(err)
			}
			s := <-got
			if s.path != tt.path {
				t.Errorf("path = %q, want %q", s.path, tt.path)
			}
			for k, want := range tt.want {
				if s.h.Get(k) != want {
					t.Errorf("header %s = %q, want %q", k, s.h.Get(k), want)
				}
			}
		})
	}
}

// hangingServer streams the start of an answer and one text delta, then
// blocks until the client goes away; gone is closed when the handler sees
// the disconnect.
func hangingServer(t *testing.T) (url string, gone <-chan struct{}) {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseStart+sseBlock+sseText)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(done)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, done
}

func TestCancelAbortsStream(t *testing.T) {
	t.Parallel()
	url, gone := hangingServer(t)
	p := anthropic.New(anthropic.Config{BaseURL: url})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got []providers.Event
	var err error
	for ev, e := range p.Stream(ctx, userReq("hi")) {
		if e != nil {
			err = e
			break
		}
		got = append(got, ev)
		cancel() // Ctrl-C after the first delta
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, ok := errors.AsType[*providers.Error](err); ok {
		t.Errorf("cancellation was wrapped as a provider error: %v", err)
	}
	if len(got) != 1 || got[0].Text != "x" {
		t.Errorf("events = %+v, want the one text delta", got)
	}
	<-gone // the server saw the disconnect (the test times out otherwise)
}

func TestBreakClosesStream(t *testing.T) {
	t.Parallel()
	url, gone := hangingServer(t)
	p := anthropic.New(anthropic.Config{BaseURL: url})
	for range p.Stream(t.Context(), userReq("hi")) {
		break
	}
	<-gone
}

func TestCancelledBeforeStart(t *testing.T) {
	t.Parallel()
	url, _ := hangingServer(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := collect(anthropic.New(anthropic.Config{BaseURL: url}).Stream(ctx, userReq("hi")))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// pipeClient answers every request in-process: serve writes the body of a
// 200 event stream and must return when the request's context ends. Inside
// a synctest bubble everything, timers included, runs on the fake clock.
func pipeClient(serve func(ctx context.Context, w io.Writer)) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		pr, pw := io.Pipe()
		// Like a real transport, abort the body read when the request's
		// context ends.
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
		}, nil
	})}
}

// TestIdleTimeout: a server that hangs after the first delta is cut by the
// idle timeout with a transient error naming the provider and the model.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		client := pipeClient(func(ctx context.Context, w io.Writer) {
			io.WriteString(w, sseStart+sseBlock+sseText)
			<-ctx.Done() // then stall
		})
		p := anthropic.New(anthropic.Config{Name: "slow", BaseURL: "http://llm.test", Timeout: 2 * time.Minute, HTTPClient: client})
		events, err := collect(p.Stream(t.Context(), userReq("hi")))
		pe, ok := errors.AsType[*providers.Error](err)
		if !ok || pe.Kind != providers.KindTransient || pe.Provider != "slow" ||
			!strings.Contains(pe.Message, "timed out") || !strings.Contains(pe.Message, "claude-sonnet-4-5") {
			t.Fatalf("err = %v, want a transient timeout from slow naming the model", err)
		}
		if len(events) != 1 {
			t.Errorf("events = %+v, want the delta sent before the stall", events)
		}
	})
}

// TestTimeoutIsIdle checks that a stream longer than Timeout in total is not
// cut while it keeps sending (pings count).
func TestTimeoutIsIdle(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const pieces = 10
		client := pipeClient(func(ctx context.Context, w io.Writer) {
			io.WriteString(w, sseStart+sseBlock)
			for i := range pieces {
				if i%2 == 0 {
					io.WriteString(w, sseText)
				} else {
					io.WriteString(w, "event: ping\ndata: {\"type\": \"ping\"}\n\n")
				}
				time.Sleep(50 * time.Second)
			}
			io.WriteString(w, sseEnd)
		})
		p := anthropic.New(anthropic.Config{BaseURL: "http://llm.test", Timeout: time.Minute, HTTPClient: client})
		start := time.Now()
		events, err := collect(p.Stream(t.Context(), userReq("hi")))
		if err != nil {
			t.Fatal(err)
		}
		if got := text(events); got != strings.Repeat("x", pieces/2) {
			t.Errorf("text = %q", got)
		}
		if elapsed := time.Since(start); elapsed < 500*time.Second {
			t.Errorf("stream took %v of fake time, want more than the 1m timeout", elapsed)
		}
	})
}

func TestTransportErrors(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()

	tests := []struct {
		name string
		base string
		want providers.ErrorKind
	}{
		{"connection refused", closed, providers.KindTransient},
		{"malformed base url", "http://[::1", providers.KindBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := collect(anthropic.New(anthropic.Config{Name: "x", BaseURL: tt.base}).Stream(t.Context(), userReq("hi")))
			if got := providers.KindOf(err); got != tt.want {
				t.Fatalf("kind = %v (%v), want %v", got, err, tt.want)
			}
			if !strings.Contains(err.Error(), "claude-sonnet-4-5") {
				t.Errorf("error does not name the model: %v", err)
			}
		})
	}
}

func TestInvalidToolSchema(t *testing.T) {
	t.Parallel()
	p := anthropic.New(anthropic.Config{BaseURL: "http://127.0.0.1:1"})
	req := userReq("hi")
	req.Tools = []providers.ToolSpec{{Name: "bad", Schema: []byte(`{"type":`)}}
	_, err := collect(p.Stream(t.Context(), req))
	pe, ok := errors.AsType[*providers.Error](err)
	if !ok || pe.Kind != providers.KindBadRequest || pe.Provider != "anthropic" || !strings.Contains(err.Error(), `"bad"`) {
		t.Fatalf("err = %v, want bad_request from anthropic naming the tool", err)
	}
}

// TestConcurrentStreams runs several streams on one provider at once (run
// with -race).
func TestConcurrentStreams(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseAnswer)
	}))
	defer srv.Close()
	p := anthropic.New(anthropic.Config{BaseURL: srv.URL})
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			events, err := collect(p.Stream(t.Context(), userReq(fmt.Sprint(i))))
			if err == nil && len(events) != 3 {
				err = fmt.Errorf("got %d events", len(events))
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
