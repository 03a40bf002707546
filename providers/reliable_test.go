package providers_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

// try is one scripted answer of a fakeStreamer: events, then err (nil = the
// stream completes).
type try struct {
	events []providers.Event
	err    error
}

// fakeStreamer answers each Stream call with the next try and counts calls.
type fakeStreamer struct {
	mu    sync.Mutex
	tries []try
	calls int
}

func (f *fakeStreamer) Stream(ctx context.Context, req providers.Request) iter.Seq2[providers.Event, error] {
	return func(yield func(providers.Event, error) bool) {
		f.mu.Lock()
		n := f.calls
		f.calls++
		f.mu.Unlock()
		if n >= len(f.tries) {
			yield(providers.Event{}, errors.New("fakeStreamer: unexpected call"))
			return
		}
		for _, ev := range f.tries[n].events {
			if !yield(ev, nil) {
				return
			}
		}
		if f.tries[n].err != nil {
			yield(providers.Event{}, f.tries[n].err)
		}
	}
}

func perr(kind providers.ErrorKind, status int, retryAfter time.Duration) error {
	return &providers.Error{Kind: kind, Provider: "p", StatusCode: status, RetryAfter: retryAfter, Message: "boom"}
}

var (
	text = providers.Event{Type: providers.EventTextDelta, Text: "hi"}
	stop = providers.Event{Type: providers.EventStop, StopReason: providers.StopEndTurn}
	ok   = try{events: []providers.Event{text, stop}}
)

func TestReliable(t *testing.T) {
	t.Parallel()
	transient := perr(providers.KindTransient, 503, 0)
	limited := perr(providers.KindRateLimited, 429, 0)

	tests := []struct {
		name       string
		maxRetries int
		entries    [][]try // per entry, its scripted tries
		rand       float64
		wantEvents []providers.Event
		wantKind   providers.ErrorKind // of the final error; KindUnknown with wantErr
		wantErr    string              // substring of the final error; "" = success
		wantCalls  []int               // Stream calls per entry
		wantSleeps []time.Duration
	}{
		{
			name: "success first try", maxRetries: 2,
			entries:    [][]try{{ok}, {ok}},
			wantEvents: []providers.Event{text, stop}, wantCalls: []int{1, 0},
		},
		{
			name: "transient then success", maxRetries: 2, rand: 0.5,
			entries:    [][]try{{{err: transient}, ok}},
			wantEvents: []providers.Event{text, stop}, wantCalls: []int{2},
			wantSleeps: []time.Duration{250 * time.Millisecond},
		},
		{
			name: "exponential backoff with full jitter", maxRetries: 3, rand: 0.5,
			entries:    [][]try{{{err: transient}, {err: limited}, {err: transient}, ok}},
			wantEvents: []providers.Event{text, stop}, wantCalls: []int{4},
			wantSleeps: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second},
		},
		{
			name: "retry-after raises the delay", maxRetries: 1, rand: 0.5,
			entries:    [][]try{{{err: perr(providers.KindRateLimited, 429, 2*time.Second)}, ok}},
			wantEvents: []providers.Event{text, stop}, wantCalls: []int{2},
			wantSleeps: []time.Duration{2 * time.Second},
		},
		{
			name: "retry-after shorter than jitter keeps jitter", maxRetries: 1, rand: 0.9,
			entries:    [][]try{{{err: perr(providers.KindRateLimited, 429, 100*time.Millisecond)}, ok}},
			wantEvents: []providers.Event{text, stop}, wantCalls: []int{2},
			wantSleeps: []time.Duration{450 * time.Millisecond},
		},
		{
			// Issue 8 item 13: a Retry-After past the 30 s backoff cap is
			// waited for, up to max_retry_wait (120 s by default).
			name: "retry-after beyond the backoff cap is waited for", maxRetries: 2, rand: 0.5,
			entries:    [][]try{{{err: perr(providers.KindRateLimited, 429, 45*time.Second)}, ok}, {ok}},
			wantEvents: []providers.Event{text, stop}, wantCalls: []int{2, 0},
			wantSleeps: []time.Duration{45 * time.Second},
		},
		{
			name: "retry-after beyond the longest wait falls over at once", maxRetries: 2, rand: 0.5,
			entries:    [][]try{{{err: perr(providers.KindRateLimited, 429, 5*time.Minute)}}, {ok}},
			wantEvents: []providers.Event{text, stop}, wantCalls: []int{1, 1},
		},
		{
			name: "retry-after beyond the longest wait, no fallback", maxRetries: 2, rand: 0.5,
			entries:  [][]try{{{err: perr(providers.KindRateLimited, 429, 5*time.Minute)}}},
			wantKind: providers.KindRateLimited, wantCalls: []int{1},
			wantErr: "p: rate_limited (HTTP 429): boom; the provider asked to wait 5m0s before retrying, longer than [providers].max_retry_wait_secs (2m0s)",
		},
		{
			name: "retries exhausted then fallback", maxRetries: 2, rand: 0.5,
			entries:    [][]try{{{err: limited}, {err: limited}, {err: limited}}, {ok}},
			wantEvents: []providers.Event{text, stop}, wantCalls: []int{3, 1},
			wantSleeps: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond},
		},
		{
			name: "zero retries goes straight to fallback", maxRetries: 0,
			entries:    [][]try{{{err: transient}}, {ok}},
			wantEvents: []providers.Event{text, stop}, wantCalls: []int{1, 1},
		},
		{
			name: "all entries fail", maxRetries: 1, rand: 0.5,
			entries:  [][]try{{{err: transient}, {err: transient}}, {{err: limited}, {err: limited}}},
			wantKind: providers.KindRateLimited, wantErr: "giving up after 4 attempts",
			wantCalls:  []int{2, 2},
			wantSleeps: []time.Duration{250 * time.Millisecond, 250 * time.Millisecond},
		},
		{
			name: "single failure is returned unwrapped", maxRetries: 0,
			entries:  [][]try{{{err: transient}}},
			wantKind: providers.KindTransient, wantErr: "p: transient (HTTP 503): boom", wantCalls: []int{1},
		},
		{
			name: "error after an event is not retried", maxRetries: 2,
			entries:    [][]try{{{events: []providers.Event{text}, err: transient}}, {ok}},
			wantEvents: []providers.Event{text}, wantKind: providers.KindTransient, wantErr: "boom",
			wantCalls: []int{1, 0},
		},
		{
			name: "auth is final", maxRetries: 2,
			entries:  [][]try{{{err: perr(providers.KindAuth, 401, 0)}}, {ok}},
			wantKind: providers.KindAuth, wantErr: "boom", wantCalls: []int{1, 0},
		},
		{
			name: "bad request is final", maxRetries: 2,
			entries:  [][]try{{{err: perr(providers.KindBadRequest, 400, 0)}}, {ok}},
			wantKind: providers.KindBadRequest, wantErr: "boom", wantCalls: []int{1, 0},
		},
		{
			name: "not found is final", maxRetries: 2,
			entries:  [][]try{{{err: perr(providers.KindNotFound, 404, 0)}}, {ok}},
			wantKind: providers.KindNotFound, wantErr: "boom", wantCalls: []int{1, 0},
		},
		{
			name: "context length is final", maxRetries: 2,
			entries:  [][]try{{{err: perr(providers.KindContextLength, 400, 0)}}, {ok}},
			wantKind: providers.KindContextLength, wantErr: "boom", wantCalls: []int{1, 0},
		},
		{
			name: "unclassified error is final", maxRetries: 2,
			entries: [][]try{{{err: errors.New("plain failure")}}, {ok}},
			wantErr: "plain failure", wantCalls: []int{1, 0},
		},
		{
			name: "fallback after non-retryable on second entry is final", maxRetries: 0,
			entries:  [][]try{{{err: transient}}, {{err: perr(providers.KindAuth, 401, 0)}}, {ok}},
			wantKind: providers.KindAuth, wantErr: "boom", wantCalls: []int{1, 1, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var fakes []*fakeStreamer
			var entries []providers.Named
			for i, tries := range tt.entries {
				f := &fakeStreamer{tries: tries}
				fakes = append(fakes, f)
				entries = append(entries, providers.Named{Name: string(rune('a' + i)), Streamer: f})
			}
			var sleeps []time.Duration
			r := providers.NewReliable(entries, tt.maxRetries,
				providers.WithRand(func() float64 { return tt.rand }),
				providers.WithSleep(func(ctx context.Context, d time.Duration) error {
					sleeps = append(sleeps, d)
					return ctx.Err()
				}))
			var events []providers.Event
			var err error
			for ev, e := range r.Stream(t.Context(), providers.Request{}) {
				if e != nil {
					err = e
					break
				}
				events = append(events, ev)
			}
			if diff := cmp.Diff(tt.wantEvents, events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("err = %v, want it to contain %q", err, tt.wantErr)
			case tt.wantErr != "" && providers.KindOf(err) != tt.wantKind:
				t.Errorf("kind = %v, want %v", providers.KindOf(err), tt.wantKind)
			}
			var calls []int
			for _, f := range fakes {
				calls = append(calls, f.calls)
			}
			if diff := cmp.Diff(tt.wantCalls, calls); diff != "" {
				t.Errorf("calls per entry (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSleeps, sleeps); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReliableBackoffCap(t *testing.T) {
	t.Parallel()
	tries := make([]try, 12)
	for i := range tries {
		tries[i] = try{err: perr(providers.KindTransient, 500, 0)}
	}
	var sleeps []time.Duration
	r := providers.NewReliable([]providers.Named{{Name: "a", Streamer: &fakeStreamer{tries: tries}}}, 11,
		providers.WithRand(func() float64 { return 0.999999 }),
		providers.WithSleep(func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil }))
	for range r.Stream(t.Context(), providers.Request{}) {
	}
	if len(sleeps) != 11 {
		t.Fatalf("got %d sleeps, want 11", len(sleeps))
	}
	for i, d := range sleeps {
		ceiling := min(providers.DefaultBackoffBase<<i, providers.DefaultBackoffCap)
		if d > ceiling || d < ceiling*99/100 {
			t.Errorf("sleep %d = %v, want just under %v", i, d, ceiling)
		}
	}
}

func TestReliableCancelDuringSleep(t *testing.T) {
	t.Parallel()
	f := &fakeStreamer{tries: []try{{err: perr(providers.KindTransient, 503, 0)}, ok}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r := providers.NewReliable([]providers.Named{{Name: "a", Streamer: f}}, 3,
		providers.WithSleep(func(ctx context.Context, d time.Duration) error {
			cancel() // Ctrl-C while waiting to retry
			return ctx.Err()
		}))
	var err error
	for _, e := range r.Stream(ctx, providers.Request{}) {
		err = e
	}
	if !errors.Is(err, context.Canceled) || f.calls != 1 {
		t.Fatalf("err = %v after %d calls; want context.Canceled after 1", err, f.calls)
	}
}

func TestReliableCancelledStreamIsNotRetried(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// An adapter returns ctx.Err() when cancelled; even if it misclassified
	// the abort as transient, Reliable must not try again.
	f := &fakeStreamer{tries: []try{{err: perr(providers.KindTransient, 0, 0)}, ok}}
	r := providers.NewReliable([]providers.Named{{Name: "a", Streamer: f}}, 3,
		providers.WithSleep(func(context.Context, time.Duration) error { return nil }))
	var err error
	cancel()
	for _, e := range r.Stream(ctx, providers.Request{}) {
		err = e
	}
	if !errors.Is(err, context.Canceled) || f.calls != 0 {
		t.Fatalf("err = %v after %d calls; want context.Canceled before any call", err, f.calls)
	}
}

func TestReliableConsumerBreaks(t *testing.T) {
	t.Parallel()
	f := &fakeStreamer{tries: []try{ok}}
	r := providers.NewReliable([]providers.Named{{Name: "a", Streamer: f}}, 2)
	n := 0
	for range r.Stream(t.Context(), providers.Request{}) {
		n++
		break
	}
	if n != 1 || f.calls != 1 {
		t.Fatalf("got %d events, %d calls; want 1 and 1", n, f.calls)
	}
}

func TestReliableNoEntries(t *testing.T) {
	t.Parallel()
	var err error
	for _, e := range providers.NewReliable(nil, 2).Stream(t.Context(), providers.Request{}) {
		err = e
	}
	if err == nil || !strings.Contains(err.Error(), "no provider") {
		t.Fatalf("err = %v, want a no-provider error", err)
	}
}

func TestReliableOnAttempt(t *testing.T) {
	t.Parallel()
	limited := &providers.Error{Kind: providers.KindRateLimited, Provider: "openai", StatusCode: 429, RetryAfter: 2 * time.Second, Message: "slow down"}
	entries := []providers.Named{
		{Name: "openai", Streamer: &fakeStreamer{tries: []try{{err: limited}, {err: limited}}}},
		{Name: "anthropic", Streamer: &fakeStreamer{tries: []try{ok}}},
	}
	var got []string
	var attempts []providers.Attempt
	r := providers.NewReliable(entries, 1,
		providers.WithRand(func() float64 { return 0 }),
		providers.WithSleep(func(context.Context, time.Duration) error { return nil }),
		providers.WithOnAttempt(func(a providers.Attempt) {
			attempts = append(attempts, a)
			got = append(got, a.String())
		}))
	for range r.Stream(t.Context(), providers.Request{}) {
	}
	want := []string{
		"",
		"openai: rate_limited (HTTP 429); retrying in 2s (retry 1 of 1)",
		"openai: rate_limited (HTTP 429); falling back to anthropic",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attempt descriptions (-want +got):\n%s", diff)
	}
	if len(attempts) != 3 || attempts[2].Entry != "anthropic" || !attempts[2].Fallback() || attempts[1].Fallback() {
		t.Errorf("attempts = %+v; want the last on anthropic as a fallback", attempts)
	}
}

// A fallback caused by a Retry-After longer than the accepted wait says the
// wait the provider asked for (issue 8 item 13).
func TestReliableRetryWaitMessage(t *testing.T) {
	t.Parallel()
	limited := &providers.Error{Kind: providers.KindRateLimited, Provider: "openai", StatusCode: 429, RetryAfter: 10 * time.Minute, Message: "slow down"}
	entries := []providers.Named{
		{Name: "openai", Streamer: &fakeStreamer{tries: []try{{err: limited}}}},
		{Name: "backup", Streamer: &fakeStreamer{tries: []try{ok}}},
	}
	var got []string
	r := providers.NewReliable(entries, 2,
		providers.WithMaxRetryWait(90*time.Second),
		providers.WithSleep(func(context.Context, time.Duration) error { t.Error("slept"); return nil }),
		providers.WithOnAttempt(func(a providers.Attempt) { got = append(got, a.String()) }))
	for range r.Stream(t.Context(), providers.Request{}) {
	}
	want := []string{"", "openai: rate_limited (HTTP 429); the provider asked to wait 10m0s before retrying, longer than [providers].max_retry_wait_secs (1m30s); falling back to backup"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attempt descriptions (-want +got):\n%s", diff)
	}
}
