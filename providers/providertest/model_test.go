package providertest_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

func drain(seq func(func(providers.Event, error) bool)) ([]providers.Event, error) {
	var events []providers.Event
	for ev, err := range seq {
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
	return events, nil
}

func req(text string) providers.Request {
	return providers.Request{Model: "m", Messages: []providers.Message{providers.UserText(text)}}
}

func textEv(s string) providers.Event {
	return providers.Event{Type: providers.EventTextDelta, Text: s}
}

func callEv(id, name, args string) providers.Event {
	return providers.Event{Type: providers.EventToolCall, ToolCall: &providers.ToolCall{ID: id, Name: name, Args: args}}
}

func stopEv(r providers.StopReason) providers.Event {
	return providers.Event{Type: providers.EventStop, StopReason: r}
}

func TestModelScript(t *testing.T) {
	t.Parallel()
	m := providertest.NewModel(
		providertest.Response{Reasoning: "hmm", Text: "Hello!", Usage: &providers.Usage{InputTokens: 5, OutputTokens: 2, CachedInputTokens: 1}},
		providertest.Response{ToolCalls: []providertest.Call{{Name: "a", Args: "{}"}, {ID: "mine", Name: "b"}, {Name: "c", Args: `{"x":1}`}}},
		providertest.Response{ToolCalls: []providertest.Call{{Name: "d"}}, StopReason: "max_tokens"},
	)
	want := [][]providers.Event{
		{
			{Type: providers.EventReasoningDelta, Text: "h"}, {Type: providers.EventReasoningDelta, Text: "m"},
			{Type: providers.EventReasoningDelta, Text: "m"},
			textEv("He"), textEv("ll"), textEv("o!"),
			{Type: providers.EventUsage, Usage: &providers.Usage{InputTokens: 5, OutputTokens: 2, CachedInputTokens: 1}},
			stopEv(providers.StopEndTurn),
		},
		{callEv("call_1", "a", "{}"), callEv("mine", "b", ""), callEv("call_2", "c", `{"x":1}`), stopEv(providers.StopToolUse)},
		{callEv("call_3", "d", ""), stopEv(providers.StopMaxTokens)},
	}
	for i, w := range want {
		got, err := drain(m.Stream(t.Context(), req(fmt.Sprint("q", i))))
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("request %d events (-want +got):\n%s", i+1, diff)
		}
	}
	_, err := drain(m.Stream(t.Context(), req("extra")))
	if err == nil || err.Error() != "providertest: no scripted response for request 4" {
		t.Errorf("exhausted script: err = %v", err)
	}
	reqs := m.Requests()
	if len(reqs) != 4 || reqs[0].Messages[0].Text() != "q0" || reqs[3].Messages[0].Text() != "extra" {
		t.Errorf("recorded requests = %+v", reqs)
	}
	m.Append(providertest.Response{Text: "late"})
	if got, err := drain(m.Stream(t.Context(), req("x"))); err == nil {
		t.Errorf("request 5 answered by the 4th response after Append: %v", got)
	}
}

func TestModelErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		resp  providertest.Response
		kind  providers.ErrorKind
		retry time.Duration
		msg   string
	}{
		{providertest.Response{Status: 429, Error: "slow", RetryAfter: "2"}, providers.KindRateLimited, 2 * time.Second, "slow"},
		{providertest.Response{Status: 401}, providers.KindAuth, 0, "Unauthorized"},
		{providertest.Response{Error: "boom"}, providers.KindTransient, 0, "boom"},
		{providertest.Response{Status: 400, Error: "maximum context length is 8192 tokens"}, providers.KindContextLength, 0, "maximum context length is 8192 tokens"},
		{providertest.Response{Status: 400, Error: "bad"}, providers.KindBadRequest, 0, "bad"},
		{providertest.Response{Status: 404}, providers.KindNotFound, 0, "Not Found"},
	}
	for _, tt := range tests {
		_, err := drain(providertest.NewModel(tt.resp).Stream(t.Context(), req("x")))
		pe, ok := errors.AsType[*providers.Error](err)
		if !ok || pe.Kind != tt.kind || pe.RetryAfter != tt.retry || pe.Message != tt.msg {
			t.Errorf("%+v: err = %#v", tt.resp, err)
		}
	}
}

func TestModelHang(t *testing.T) {
	t.Parallel()
	tests := []struct {
		resp providertest.Response
		want []providers.Event
	}{
		{providertest.Response{Text: "abc", Hang: true}, []providers.Event{textEv("a"), textEv("b"), textEv("c")}},
		{providertest.Response{Text: "abc", HangAfterChunks: 1}, []providers.Event{textEv("a")}},
		{providertest.Response{Hang: true}, nil},
	}
	for _, tt := range tests {
		m := providertest.NewModel(tt.resp)
		ctx, cancel := context.WithCancel(t.Context())
		if len(tt.want) == 0 {
			go func() { // nothing will be yielded: cancel once the request is in
				for len(m.Requests()) == 0 {
					runtime.Gosched()
				}
				cancel()
			}()
		}
		var got []providers.Event
		var err error
		for ev, e := range m.Stream(ctx, req("x")) {
			if e != nil {
				err = e
				break
			}
			got = append(got, ev)
			if len(got) == len(tt.want) {
				cancel()
			}
		}
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%+v: err = %v, want context.Canceled", tt.resp, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%+v events (-want +got):\n%s", tt.resp, diff)
		}
	}
}

func TestModelDelayCancelled(t *testing.T) {
	t.Parallel()
	m := providertest.NewModel(providertest.Response{Text: "late", DelayMs: 60_000})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := drain(m.Stream(ctx, req("x")))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestModelConcurrent(t *testing.T) {
	t.Parallel()
	const n = 20
	var script []providertest.Response
	for range n {
		script = append(script, providertest.Response{ToolCalls: []providertest.Call{{Name: "t"}}})
	}
	m := providertest.NewModel(script...)
	var wg sync.WaitGroup
	ids := make(chan string, n)
	for i := range n {
		wg.Go(func() {
			events, err := drain(m.Stream(t.Context(), req(fmt.Sprint(i))))
			if err != nil {
				t.Error(err)
				return
			}
			ids <- events[0].ToolCall.ID
		})
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("duplicate generated id %s", id)
		}
		seen[id] = true
	}
	if len(seen) != n || len(m.Requests()) != n {
		t.Errorf("got %d ids and %d requests, want %d", len(seen), len(m.Requests()), n)
	}
}
