package providertest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/openai"
	"github.com/clawseed/clawseed/providers/providertest"
)

func newServer(t *testing.T, script ...providertest.Response) (*providertest.Server, *openai.Provider) {
	t.Helper()
	s := providertest.NewServer(script)
	t.Cleanup(s.Close)
	return s, openai.New(openai.Config{Name: "fake", BaseURL: s.URL(), APIKey: "sk-test", Model: "fake-model"})
}

// TestServerMatchesModel checks the wire end to end: for the same scripted
// response, the Server decoded by providers/openai yields exactly the
// events the in-process Model yields.
func TestServerMatchesModel(t *testing.T) {
	t.Parallel()
	usage := &providers.Usage{InputTokens: 100, OutputTokens: 20, CachedInputTokens: 64}
	tests := map[string]providertest.Response{
		"text":      {Text: "Hello, wörld! How are you?", Usage: usage},
		"reasoning": {Reasoning: "Let me think about it.", Text: "42", Usage: usage},
		"parallel split tool calls": {Text: "Reading.", Usage: usage, ToolCalls: []providertest.Call{
			{Name: "file_read", Args: `{"path":"a.txt"}`},
			{Name: "glob_search", Args: `{"pattern":"**/*.go","path":"."}`},
			{ID: "call_custom", Name: "calculator", Args: `{}`},
		}},
		"max tokens": {Text: "cut", StopReason: "max_tokens", Usage: usage},
		"empty":      {Usage: usage},
	}
	for name, resp := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, err := drain(providertest.NewModel(resp).Stream(t.Context(), req("x")))
			if err != nil {
				t.Fatal(err)
			}
			_, p := newServer(t, resp)
			got, err := drain(p.Stream(t.Context(), req("x")))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("server+adapter vs model (-model +server):\n%s", diff)
			}
		})
	}
}

// TestServerStreamShape reads the raw SSE: reasoning_content chunks, tool
// calls whose first delta carries index, id, type and name, arguments in at
// least two pieces, calls interleaved, finish chunk, usage chunk, [DONE].
func TestServerStreamShape(t *testing.T) {
	t.Parallel()
	s := providertest.NewServer([]providertest.Response{{
		Reasoning: "r",
		ToolCalls: []providertest.Call{{Name: "a", Args: `{"x":1}`}, {Name: "b", Args: `{"y":2}`}},
	}})
	defer s.Close()
	body := `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[]}`
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	var deltas []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			deltas = append(deltas, "[DONE]")
			continue
		}
		var c struct {
			Choices []struct {
				Delta        json.RawMessage `json:"delta"`
				FinishReason *string         `json:"finish_reason"`
			} `json:"choices"`
			Usage json.RawMessage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("chunk %q: %v", line, err)
		}
		switch {
		case len(c.Choices) == 0:
			deltas = append(deltas, "usage "+string(c.Usage))
		case c.Choices[0].FinishReason != nil:
			deltas = append(deltas, "finish "+*c.Choices[0].FinishReason)
		default:
			deltas = append(deltas, string(c.Choices[0].Delta))
		}
	}
	want := []string{
		`{"role":"assistant","content":""}`,
		`{"reasoning_content":"r"}`,
		`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"a","arguments":""}}]}`,
		`{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"b","arguments":""}}]}`,
		`{"tool_calls":[{"index":0,"function":{"arguments":"{\""}}]}`,
		`{"tool_calls":[{"index":1,"function":{"arguments":"{\""}}]}`,
		`{"tool_calls":[{"index":0,"function":{"arguments":"x\""}}]}`,
		`{"tool_calls":[{"index":1,"function":{"arguments":"y\""}}]}`,
		`{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}`,
		`{"tool_calls":[{"index":1,"function":{"arguments":":2}"}}]}`,
		"finish tool_calls",
		// Emulated: no prompt; ⌈len("r"+"a"+`{"x":1}`+"b"+`{"y":2}`)/4⌉ = 5 output tokens.
		`usage {"prompt_tokens":0,"completion_tokens":5,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":0}}`,
		"[DONE]",
	}
	if diff := cmp.Diff(want, deltas); diff != "" {
		t.Errorf("stream (-want +got):\n%s", diff)
	}
}

func TestServerNotStreaming(t *testing.T) {
	t.Parallel()
	s := providertest.NewServer([]providertest.Response{{
		Text: "hi", Reasoning: "r", ToolCalls: []providertest.Call{{Name: "a", Args: "{}"}},
		Usage: &providers.Usage{InputTokens: 3, OutputTokens: 1},
	}})
	defer s.Close()
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	want := `{"id":"chatcmpl-providertest-1","object":"chat.completion","created":1700000000,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi","reasoning_content":"r","tool_calls":[{"id":"call_1","type":"function","function":{"name":"a","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4,"prompt_tokens_details":{"cached_tokens":0}}}` + "\n"
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

// TestServerErrors checks that scripted errors reach the adapter with the
// right kinds, messages and Retry-After.
func TestServerErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		resp   providertest.Response
		kind   providers.ErrorKind
		status int
		retry  time.Duration
		msg    string
	}{
		{providertest.Response{Status: 400, Error: "bad tool schema"}, providers.KindBadRequest, 400, 0, "bad tool schema"},
		{providertest.Response{Status: 400, Error: "This model's maximum context length is 8192 tokens."}, providers.KindContextLength, 400, 0, "This model's maximum context length is 8192 tokens."},
		{providertest.Response{Status: 401}, providers.KindAuth, 401, 0, "Unauthorized"},
		{providertest.Response{Status: 404, Error: "no such model"}, providers.KindNotFound, 404, 0, "no such model"},
		{providertest.Response{Status: 429, Error: "slow down", RetryAfter: "2"}, providers.KindRateLimited, 429, 2 * time.Second, "slow down"},
		{providertest.Response{Error: "kaput"}, providers.KindTransient, 500, 0, "kaput"},
		{providertest.Response{Status: 503}, providers.KindTransient, 503, 0, "Service Unavailable"},
		// A web server's HTML page and a proxy's plain text, as they are
		// (error_body): one line of their text.
		{providertest.Response{Status: 501, ErrorBody: "<html>\n<head><title>501 Not Implemented</title></head>\n<body><h1>501 Not Implemented</h1></body></html>\n"},
			providers.KindBadRequest, 501, 0, "501 Not Implemented"},
		{providertest.Response{Status: 502, ErrorBody: "upstream connect error\nreset reason: overflow"}, providers.KindTransient, 502, 0, "upstream connect error"},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			t.Parallel()
			_, p := newServer(t, tt.resp)
			_, err := drain(p.Stream(t.Context(), req("x")))
			pe, ok := errors.AsType[*providers.Error](err)
			if !ok {
				t.Fatalf("err = %v, want *providers.Error", err)
			}
			got := []any{pe.Kind, pe.StatusCode, pe.RetryAfter, pe.Message, pe.Provider}
			want := []any{tt.kind, tt.status, tt.retry, tt.msg, "fake"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestServerExhausted(t *testing.T) {
	t.Parallel()
	s, p := newServer(t, providertest.Response{Text: "one"})
	if _, err := drain(p.Stream(t.Context(), req("1"))); err != nil {
		t.Fatal(err)
	}
	_, err := drain(p.Stream(t.Context(), req("2")))
	pe, ok := errors.AsType[*providers.Error](err)
	if !ok || pe.Kind != providers.KindBadRequest || pe.Message != "providertest: no scripted response for request 2" {
		t.Fatalf("err = %v, want bad_request naming request 2", err)
	}
	if n := len(s.Requests()); n != 2 {
		t.Errorf("recorded %d requests, want 2", n)
	}
}

// TestServerHangCancel cancels while the server hangs mid-stream: the
// adapter returns the context error promptly and the server sees the
// disconnect.
func TestServerHangCancel(t *testing.T) {
	t.Parallel()
	s, p := newServer(t, providertest.Response{Text: "partial answer", HangAfterChunks: 1})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got []providers.Event
	var err error
	for ev, e := range p.Stream(ctx, req("x")) {
		if e != nil {
			err = e
			break
		}
		got = append(got, ev)
		cancel()
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if diff := cmp.Diff([]providers.Event{textEv("part")}, got); diff != "" {
		t.Errorf("events before the hang (-want +got):\n%s", diff)
	}
	if err := s.WaitDisconnects(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
}

func TestServerDelayDisconnect(t *testing.T) {
	t.Parallel()
	s, p := newServer(t, providertest.Response{Text: "late", DelayMs: 60_000})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := drain(p.Stream(ctx, req("x")))
		done <- err
	}()
	if err := s.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if err := s.WaitDisconnects(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
}

// TestServerCloseReleasesHang checks that Close does not wait for a client
// that never gives up.
func TestServerCloseReleasesHang(t *testing.T) {
	t.Parallel()
	s := providertest.NewServer([]providertest.Response{{Hang: true}})
	p := openai.New(openai.Config{BaseURL: s.URL()})
	done := make(chan error, 1)
	go func() {
		_, err := drain(p.Stream(t.Context(), req("x")))
		done <- err
	}()
	if err := s.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := <-done; providers.KindOf(err) != providers.KindTransient {
		t.Fatalf("err = %v, want a transient error after the server closed", err)
	}
}

func TestServerRequestsAndScript(t *testing.T) {
	t.Parallel()
	s, p := newServer(t, providertest.Response{Text: "a"})
	if _, err := drain(p.Stream(t.Context(), req("first"))); err != nil {
		t.Fatal(err)
	}
	s.SetScript([]providertest.Response{{Text: "b"}})
	s.Append(providertest.Response{Text: "c"})
	var texts []string
	for _, q := range []string{"second", "third"} {
		events, err := drain(p.Stream(t.Context(), req(q)))
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, events[0].Text)
	}
	if diff := cmp.Diff([]string{"b", "c"}, texts); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if err := s.WaitRequests(t.Context(), 3); err != nil {
		t.Fatal(err)
	}
	bodies := s.Requests()
	var first struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(bodies[0], &first); err != nil {
		t.Fatal(err)
	}
	if first.Model != "m" || !first.Stream || len(first.Messages) != 1 || first.Messages[0].Content != "first" {
		t.Errorf("first request = %+v", first)
	}
	bodies[0][0] = 'X' // Requests returns copies
	if s.Requests()[0][0] != '{' {
		t.Error("Requests exposed the server's buffer")
	}
}

func TestServerUnknownRoute(t *testing.T) {
	t.Parallel()
	s := providertest.NewServer(nil)
	defer s.Close()
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status = %d, want 404", resp.StatusCode)
	}
}

func TestServerWaitRequestsContext(t *testing.T) {
	t.Parallel()
	s := providertest.NewServer(nil)
	defer s.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.WaitRequests(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestServerFailuresMatchModel checks stream_error and cut on the OpenAI
// wire: the adapter yields the same content as the Model, then an error of
// the same kind.
func TestServerFailuresMatchModel(t *testing.T) {
	t.Parallel()
	tests := map[string]providertest.Response{
		"stream error":           {Text: "Partial answer", StreamError: "Overloaded", FailAfterChunks: 2},
		"stream error status":    {Text: "abc", StreamError: "slow down", StreamErrorStatus: 429},
		"stream error context":   {Text: "abc", StreamError: "prompt is too long: 9 > 8", FailAfterChunks: 5},
		"stream error after all": {Reasoning: "r", Text: "abc", StreamError: "bad gateway", StreamErrorStatus: 502, FailAfterChunks: 100},
		"cut":                    {Text: "Partial answer", Cut: true, FailAfterChunks: 1},
		// The Model sends a tool call as one chunk, the wire in several:
		// they agree on a cut before the calls.
		"cut before tool call": {Text: "abc", ToolCalls: []providertest.Call{{Name: "a", Args: `{"x":1}`}}, Cut: true, FailAfterChunks: 3},
	}
	for name, resp := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, wantErr := drain(providertest.NewModel(resp).Stream(t.Context(), req("x")))
			_, p := newServer(t, resp)
			got, err := drain(p.Stream(t.Context(), req("x")))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("events (-model +server):\n%s", diff)
			}
			if providers.KindOf(err) != providers.KindOf(wantErr) || providers.KindOf(err) == providers.KindUnknown {
				t.Errorf("err = %v, want the kind of %v", err, wantErr)
			}
		})
	}
}

// TestServerRoutes checks routing by path suffix and the error shape of
// unknown routes.
func TestServerRoutes(t *testing.T) {
	t.Parallel()
	s := providertest.NewServer(nil)
	defer s.Close()
	base := strings.TrimSuffix(s.URL(), "/v1")
	tests := []struct {
		method, path string
		anthropic    bool // send anthropic-version
		status       int
		wire         providertest.Wire // recorded, "" for none
		body         string            // part of the answer
	}{
		{"POST", "/v1/chat/completions", false, 400, providertest.WireOpenAI, `"code":null`},
		{"POST", "/chat/completions", false, 400, providertest.WireOpenAI, "no scripted response for request 2"},
		{"POST", "/openai/deployments/x/chat/completions/", false, 400, providertest.WireOpenAI, "request 3"},
		{"POST", "/v1/messages", true, 400, providertest.WireAnthropic, `"type":"invalid_request_error"`},
		{"POST", "/v1/v1/messages", true, 400, providertest.WireAnthropic, "request 5"},
		{"POST", "/messages", false, 400, providertest.WireAnthropic, `{"type":"error"`},
		{"GET", "/v1/messages", true, 404, "", `"type":"not_found_error"`},
		{"POST", "/v1/messages/count_tokens", true, 404, "", "no route for POST /v1/messages/count_tokens"},
		{"GET", "/v1/models", false, 404, "", `"code":"model_not_found"`},
	}
	var wires []providertest.Wire
	for _, tt := range tests {
		r, err := http.NewRequest(tt.method, base+tt.path, strings.NewReader(`{"model":"m","messages":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		if tt.anthropic {
			r.Header.Set("anthropic-version", "2023-06-01")
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || !strings.Contains(string(b), tt.body) {
			t.Errorf("%s %s: %d %s, want %d with %q", tt.method, tt.path, resp.StatusCode, b, tt.status, tt.body)
		}
		if tt.wire != "" {
			wires = append(wires, tt.wire)
		}
	}
	var got []providertest.Wire
	for _, rec := range s.Recorded() {
		got = append(got, rec.Wire)
		if rec.Usage != nil {
			t.Errorf("unanswered request %s has usage %+v", rec.Path, rec.Usage)
		}
	}
	if diff := cmp.Diff(wires, got); diff != "" {
		t.Errorf("recorded wires (-want +got):\n%s", diff)
	}
}

// TestServerCacheUsage checks that emulated usage reaches the client when
// the script gives none, that scripted usage wins, and that the emulator
// sees every answered request either way.
func TestServerCacheUsage(t *testing.T) {
	t.Parallel()
	explicit := &providers.Usage{InputTokens: 1, OutputTokens: 2, CachedInputTokens: 1}
	s, p := newServer(t, providertest.Response{Text: "one"}, providertest.Response{Text: "two"},
		providertest.Response{Text: "three", Usage: explicit}, providertest.Response{Status: 500})
	big := providers.Request{Model: "m", System: strings.Repeat("You are a careful agent. ", 400),
		Messages: []providers.Message{providers.UserText("hi")}}
	var usages []providers.Usage
	for range 4 {
		events, _ := drain(p.Stream(t.Context(), big))
		for _, ev := range events {
			if ev.Type == providers.EventUsage {
				usages = append(usages, *ev.Usage)
			}
		}
	}
	recs := s.Recorded()
	if len(usages) != 3 || len(recs) != 4 || recs[3].Usage != nil {
		t.Fatalf("usages %+v, %d requests, last usage %v", usages, len(recs), recs[len(recs)-1].Usage)
	}
	first, second := usages[0], usages[1]
	if first.CachedInputTokens != 0 || second.CachedInputTokens < providertest.MinCacheTokens ||
		second.InputTokens != first.InputTokens || second.OutputTokens != 1 {
		t.Errorf("first %+v, second %+v: want the second to hit the cache", first, second)
	}
	if diff := cmp.Diff([]providers.Usage{first, second}, []providers.Usage{*recs[0].Usage, *recs[1].Usage}); diff != "" {
		t.Errorf("recorded usage (-reported +recorded):\n%s", diff)
	}
	if usages[2] != *explicit || recs[2].Usage.CachedInputTokens != second.CachedInputTokens {
		t.Errorf("third: reported %+v (want the script's), recorded %+v (want emulated)", usages[2], recs[2].Usage)
	}
	st := s.CacheStats()
	if st.Requests != 3 || st.CachedTokens != 2*second.CachedInputTokens || st.HitRatio() <= 0.6 {
		t.Errorf("stats %+v, ratio %.3f", st, st.HitRatio())
	}
}
