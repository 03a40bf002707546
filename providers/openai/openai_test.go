package openai_test

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

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/openai"
)

func userReq(text string) providers.Request {
	return providers.Request{Model: "m", Messages: []providers.Message{providers.UserText(text)}}
}

const textChunk = `data: {"id":"c","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}` + "\n\n"

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

// TestHeaders checks the bearer key, the extra headers, the SSE Accept
// header and the User-Agent, that no SDK telemetry header is sent, and that
// OPENAI_* environment variables never leak into a configured provider (the
// SDK's NewClient would read them).
func TestHeaders(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/wrong")
	t.Setenv("OPENAI_ORG_ID", "org-env")

	tests := []struct {
		name   string
		apiKey string
		want   map[string]string
	}{
		{"key", "sk-cfg", map[string]string{"Authorization": "Bearer sk-cfg", "X-Title": "clawseed", "Accept": "text/event-stream",
			"Content-Type": "application/json", "User-Agent": "clawseed", "Openai-Organization": "", "X-Stainless-Lang": "", "X-Stainless-Retry-Count": ""}},
		{"no key", "", map[string]string{"Authorization": "", "X-Title": "clawseed", "Openai-Organization": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make(chan http.Header, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got <- r.Header.Clone()
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "data: [DONE]\n\n")
			}))
			defer srv.Close()
			p := openai.New(openai.Config{BaseURL: srv.URL + "/v1/chat/completions", APIKey: tt.apiKey,
				ExtraHeaders: map[string]string{"X-Title": "clawseed"}})
			if _, err := collect(p.Stream(t.Context(), userReq("hi"))); err != nil {
				t.Fatal(err)
			}
			h := <-got
			for k, want := range tt.want {
				if h.Get(k) != want {
					t.Errorf("header %s = %q, want %q", k, h.Get(k), want)
				}
			}
		})
	}
}

// hangingServer streams one text chunk, then blocks until the client goes
// away; gone is closed when the handler sees the disconnect.
func hangingServer(t *testing.T) (url string, gone <-chan struct{}) {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, textChunk)
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
	p := openai.New(openai.Config{BaseURL: url})
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
	p := openai.New(openai.Config{BaseURL: url})
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
	_, err := collect(openai.New(openai.Config{BaseURL: url}).Stream(ctx, userReq("hi")))
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

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		client := pipeClient(func(ctx context.Context, w io.Writer) {
			io.WriteString(w, textChunk)
			<-ctx.Done() // then stall
		})
		p := openai.New(openai.Config{Name: "slow", BaseURL: "http://llm.test/v1", Timeout: 2 * time.Minute, HTTPClient: client})
		events, err := collect(p.Stream(t.Context(), userReq("hi")))
		pe, ok := errors.AsType[*providers.Error](err)
		if !ok || pe.Kind != providers.KindTransient || pe.Provider != "slow" || !strings.Contains(pe.Message, "timed out") {
			t.Fatalf("err = %v, want a transient timeout from slow", err)
		}
		if len(events) != 1 {
			t.Errorf("events = %+v, want the delta sent before the stall", events)
		}
	})
}

// TestTimeoutIsIdle checks that a stream longer than Timeout in total is not
// cut while it keeps sending.
func TestTimeoutIsIdle(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const pieces = 10
		client := pipeClient(func(ctx context.Context, w io.Writer) {
			for range pieces {
				io.WriteString(w, textChunk)
				time.Sleep(50 * time.Second)
			}
			io.WriteString(w, "data: [DONE]\n\n")
		})
		p := openai.New(openai.Config{BaseURL: "http://llm.test/v1", Timeout: time.Minute, HTTPClient: client})
		start := time.Now()
		events, err := collect(p.Stream(t.Context(), userReq("hi")))
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != pieces+1 {
			t.Errorf("got %d events, want %d deltas and a stop", len(events), pieces)
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
			_, err := collect(openai.New(openai.Config{Name: "x", BaseURL: tt.base}).Stream(t.Context(), userReq("hi")))
			if got := providers.KindOf(err); got != tt.want {
				t.Fatalf("kind = %v (%v), want %v", got, err, tt.want)
			}
		})
	}
}

func TestMalformedChunk(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, textChunk+"data: {not json\n\n")
	}))
	defer srv.Close()
	events, err := collect(openai.New(openai.Config{BaseURL: srv.URL}).Stream(t.Context(), userReq("hi")))
	if providers.KindOf(err) != providers.KindTransient || len(events) != 1 {
		t.Fatalf("events %+v, err %v; want one delta then a transient error", events, err)
	}
}

func TestInvalidToolSchema(t *testing.T) {
	t.Parallel()
	p := openai.New(openai.Config{BaseURL: "http://127.0.0.1:1"})
	req := userReq("hi")
	req.Tools = []providers.ToolSpec{{Name: "bad", Schema: []byte(`{"type":`)}}
	_, err := collect(p.Stream(t.Context(), req))
	if providers.KindOf(err) != providers.KindBadRequest || !strings.Contains(err.Error(), `"bad"`) {
		t.Fatalf("err = %v, want bad_request naming the tool", err)
	}
}

// TestConcurrentStreams runs several streams on one provider at once (run
// with -race).
func TestConcurrentStreams(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, textChunk+"data: [DONE]\n\n")
	}))
	defer srv.Close()
	p := openai.New(openai.Config{BaseURL: srv.URL})
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			events, err := collect(p.Stream(t.Context(), userReq(fmt.Sprint(i))))
			if err == nil && len(events) != 2 {
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

func TestStopEventsAfterToolCalls(t *testing.T) {
	t.Parallel()
	serve := func(delta string) []providers.Event {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"tool_calls":[`+delta+`]},"finish_reason":"tool_calls"}]}`+"\n\ndata: [DONE]\n\n")
		}))
		defer srv.Close()
		events, err := collect(openai.New(openai.Config{BaseURL: srv.URL}).Stream(t.Context(), userReq("hi")))
		if err != nil {
			t.Fatal(err)
		}
		return events
	}
	// An empty delta is no call, and then "tool_calls" must not claim tool use.
	want := []providers.Event{{Type: providers.EventStop, StopReason: providers.StopEndTurn}}
	if diff := gocmp.Diff(want, serve(`{"index":0,"function":{}}`)); diff != "" {
		t.Errorf("empty delta: events (-want +got):\n%s", diff)
	}
	// A call without a name is still a call: the agent answers it with an
	// error the model can read, instead of ending the turn in silence.
	events := serve(`{"index":0,"function":{"arguments":"{}"}}`)
	if len(events) != 2 || events[0].ToolCall == nil || events[0].ToolCall.Name != "" || events[0].ToolCall.ID == "" || events[1].StopReason != providers.StopToolUse {
		t.Errorf("nameless call: events %+v", events)
	}
}

// A call the model sent without a name is echoed under a placeholder: the
// API refuses an empty function name, which would fail every later request.
func TestEncodeUnnamedCall(t *testing.T) {
	t.Parallel()
	req := userReq("hi")
	req.Messages = append(req.Messages,
		providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{{Type: providers.PartToolCall, ToolCall: &providers.ToolCall{ID: "c1", Args: "{}"}}}},
		providers.Message{Role: providers.RoleUser, Parts: []providers.Part{{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: "c1", Content: `Unknown tool: ""`, IsError: true}}}},
	)
	body, err := openai.New(openai.Config{}).EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"function":{"arguments":"{}","name":"unnamed_tool"}`) {
		t.Errorf("body: %s", body)
	}
}

// prompt_cache_key (the session id) goes to OpenAI only: compatible servers
// may reject a field they do not know.
func TestPromptCacheKey(t *testing.T) {
	t.Parallel()
	req := userReq("hi")
	req.CacheKey = "20261123-abc"
	for base, want := range map[string]bool{"https://api.openai.com/v1": true, "http://localhost:8000/v1": false} {
		body, err := openai.New(openai.Config{BaseURL: base}).EncodeRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(body), `"prompt_cache_key":"20261123-abc"`); got != want {
			t.Errorf("%s: prompt_cache_key sent = %v, want %v: %s", base, got, want, body)
		}
	}
}

// Thinking blocks from Anthropic (signed or redacted) are not echoed as
// reasoning_content after /model switched to an OpenAI-wire model; the
// wire's own reasoning is.
func TestForeignReasoningDropped(t *testing.T) {
	t.Parallel()
	req := userReq("hi")
	req.Messages = append(req.Messages,
		providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{
			{Type: providers.PartReasoning, Text: "claude thought", Signature: "sig"},
			{Type: providers.PartReasoning, Redacted: "opaque"},
			{Type: providers.PartReasoning, Text: "deepseek thought"},
			{Type: providers.PartText, Text: "answer"},
		}},
		providers.UserText("next"))
	body, err := openai.New(openai.Config{}).EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(body); strings.Contains(s, "claude thought") || strings.Contains(s, "opaque") || !strings.Contains(s, `"reasoning_content":"deepseek thought"`) {
		t.Errorf("body: %s", body)
	}
}
