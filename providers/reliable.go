package providers

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"time"
)

// Backoff defaults (spec §6.3).
const (
	DefaultBackoffBase = 500 * time.Millisecond
	DefaultBackoffCap  = 30 * time.Second
	// DefaultMaxRetryWait is the longest Retry-After waited for
	// ([providers].max_retry_wait_secs).
	DefaultMaxRetryWait = 120 * time.Second
)

// A Named is one entry of a [Reliable] chain: a streamer and the name it is
// reported under.
type Named struct {
	Name     string
	Streamer Streamer
	// Model is the model id the entry answers with whatever the request's
	// Model says (a fallback with its own model), reported on its events
	// ([Event.Model]); "" means the request's model.
	Model string
}

// An Attempt describes one try of a [Reliable] stream. It is reported before
// the try starts (and before any wait), so a UI can say "retrying in 2s".
type Attempt struct {
	// Entry and Index name the entry being tried (Index 0 is the default).
	Entry string
	Index int
	// Retry is 0 for the first try on this entry, then 1..MaxRetries.
	Retry      int
	MaxRetries int
	// Delay is the wait before this try.
	Delay time.Duration
	// Err is the failure that led to this try: the previous try's error on a
	// retry, the previous entry's last error on a fallback, nil on the very
	// first try.
	Err error
}

// Fallback reports whether this try moved to a fallback entry.
func (a Attempt) Fallback() bool { return a.Index > 0 && a.Retry == 0 }

// String describes the attempt for a status line, e.g. "openai:
// rate_limited (HTTP 429); retrying in 2s (retry 1 of 2)". It is empty for
// the very first try.
func (a Attempt) String() string {
	switch {
	case a.Err == nil:
		return ""
	case a.Retry > 0:
		return fmt.Sprintf("%s; retrying in %s (retry %d of %d)",
			briefError(a.Err), a.Delay.Round(100*time.Millisecond), a.Retry, a.MaxRetries)
	default:
		return fmt.Sprintf("%s; falling back to %s", briefError(a.Err), a.Entry)
	}
}

// A RetryWaitError is a retryable error whose Retry-After asked for a longer
// wait than the client accepts ([WithMaxRetryWait]). Its message gives the
// wait the provider asked for, so the user can tell a rate limit that lifts
// in minutes from one that does not.
type RetryWaitError struct {
	Err   error
	Asked time.Duration // the provider's Retry-After
	Max   time.Duration // the longest wait accepted
}

func (e *RetryWaitError) Error() string {
	return fmt.Sprintf("%v; %s", e.Err, e.wait())
}

func (e *RetryWaitError) wait() string {
	return fmt.Sprintf("the provider asked to wait %s before retrying, longer than [providers].max_retry_wait_secs (%s)", e.Asked.Round(time.Second), e.Max.Round(time.Second))
}

func (e *RetryWaitError) Unwrap() error { return e.Err }

// briefError renders err without the server's (often long) message.
func briefError(err error) string {
	pe, ok := errors.AsType[*Error](err)
	if !ok {
		return err.Error()
	}
	s := pe.Kind.String()
	if pe.Provider != "" {
		s = pe.Provider + ": " + s
	}
	if pe.StatusCode != 0 {
		s += fmt.Sprintf(" (HTTP %d)", pe.StatusCode)
	}
	if we, ok := errors.AsType[*RetryWaitError](err); ok {
		s += "; " + we.wait()
	}
	return s
}

// A ReliableOption configures a [Reliable].
type ReliableOption func(*Reliable)

// WithBackoff sets the first retry's maximum delay and the cap of the
// exponential backoff.
func WithBackoff(base, limit time.Duration) ReliableOption {
	return func(r *Reliable) { r.base, r.limit = base, limit }
}

// WithMaxRetryWait sets the longest Retry-After waited for; a longer one
// moves to the next entry at once. d <= 0 keeps the default.
func WithMaxRetryWait(d time.Duration) ReliableOption {
	return func(r *Reliable) {
		if d > 0 {
			r.maxWait = d
		}
	}
}

// WithSleep replaces the wait between tries (tests pass a recorder). sleep
// must return ctx.Err() if ctx ends first.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) ReliableOption {
	return func(r *Reliable) { r.sleep = sleep }
}

// WithRand replaces the jitter source; f returns a number in [0, 1).
func WithRand(f func() float64) ReliableOption {
	return func(r *Reliable) { r.rand = f }
}

// WithOnAttempt registers a function called before every try, on the
// goroutine that iterates the stream.
func WithOnAttempt(f func(Attempt)) ReliableOption {
	return func(r *Reliable) { r.onAttempt = f }
}

// Reliable is a [Streamer] that retries and falls back (spec §6.3):
//
//   - transient and rate-limit errors are retried up to maxRetries times per
//     entry, after a delay drawn uniformly from [0, min(cap, base·2ⁿ)] ("full
//     jitter"), raised to the server's Retry-After when that is longer —
//     also beyond the cap, up to the longest accepted wait
//     ([WithMaxRetryWait], default 120 s);
//   - a Retry-After beyond that is not waited for: the next entry is tried
//     at once (or the error returned when there is none), with a
//     [RetryWaitError] saying how long the provider asked to wait;
//   - a stream is retried only while no event has reached the caller; once
//     one has, a later error is returned as is;
//   - any other error — auth, bad request, not found, context length, or an
//     unclassified error — is returned at once, without fallback: another
//     provider would not fix the request, and the agent compacts on
//     context-length errors itself;
//   - cancelling ctx returns ctx.Err() without further tries.
//
// Every entry receives the same request, so entries with different models
// should have the model in their own configuration and the request's Model
// left empty, and name it in [Named.Model]: the events of such an entry
// carry it, so that usage is billed to the model that answered. Reliable
// is safe for concurrent use.
type Reliable struct {
	entries    []Named
	maxRetries int
	base       time.Duration
	limit      time.Duration
	maxWait    time.Duration
	sleep      func(context.Context, time.Duration) error
	rand       func() float64
	onAttempt  func(Attempt)
}

// NewReliable returns a chain over entries: the first is the default, the
// rest are fallbacks in order. A negative maxRetries means 0.
func NewReliable(entries []Named, maxRetries int, opts ...ReliableOption) *Reliable {
	r := &Reliable{
		entries:    entries,
		maxRetries: max(maxRetries, 0),
		base:       DefaultBackoffBase,
		limit:      DefaultBackoffCap,
		maxWait:    DefaultMaxRetryWait,
		sleep:      sleepContext,
		rand:       rand.Float64,
	}
	for _, opt := range opts {
		opt(r)
	}
	return r
}

// Stream sends req to the entries in turn, as described on [Reliable].
func (r *Reliable) Stream(ctx context.Context, req Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		if err := r.stream(ctx, req, yield); err != nil {
			yield(Event{}, err)
		}
	}
}

func (r *Reliable) stream(ctx context.Context, req Request, yield func(Event, error) bool) error {
	if len(r.entries) == 0 {
		return errors.New("providers: no provider configured")
	}
	var last error
	tries := 0
	for i, entry := range r.entries {
		for retry := 0; retry <= r.maxRetries; retry++ {
			var delay time.Duration
			if retry > 0 {
				var ok bool
				if delay, ok = r.delay(retry, last); !ok {
					// The server asks for more than we wait: fall over now.
					last = &RetryWaitError{Err: last, Asked: retryAfter(last), Max: r.maxWait}
					break
				}
			}
			if r.onAttempt != nil {
				r.onAttempt(Attempt{Entry: entry.Name, Index: i, Retry: retry, MaxRetries: r.maxRetries, Delay: delay, Err: last})
			}
			if delay > 0 {
				if err := r.sleep(ctx, delay); err != nil {
					return err
				}
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			tries++
			forwarded, stopped, err := forward(ctx, entry, req, yield)
			switch {
			case stopped || err == nil:
				return nil
			case forwarded || ctx.Err() != nil || !KindOf(err).Retryable():
				return err
			}
			last = err
		}
	}
	if tries > 1 {
		return fmt.Errorf("giving up after %d attempts: %w", tries, last)
	}
	return last
}

// forward relays one entry's stream, each event marked with the entry's own
// model when it has one. It reports whether an event reached the caller,
// whether the caller stopped, and the stream's error.
func forward(ctx context.Context, entry Named, req Request, yield func(Event, error) bool) (forwarded, stopped bool, err error) {
	for ev, err := range entry.Streamer.Stream(ctx, req) {
		if err != nil {
			return forwarded, false, err
		}
		if entry.Model != "" {
			ev.Model = entry.Model
		}
		forwarded = true
		if !yield(ev, nil) {
			return true, true, nil
		}
	}
	return forwarded, false, nil
}

// delay returns the wait before retry n (1-based) after err, and false when
// the server's Retry-After exceeds the longest accepted wait.
func (r *Reliable) delay(n int, err error) (time.Duration, bool) {
	ceiling := r.base
	for i := 1; i < n && ceiling < r.limit; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, r.limit)
	d := time.Duration(r.rand() * float64(ceiling))
	if asked := retryAfter(err); asked > 0 {
		if asked > r.maxWait {
			return 0, false
		}
		d = max(d, asked)
	}
	return d, true
}

// retryAfter is the Retry-After of a classified error, 0 when none.
func retryAfter(err error) time.Duration {
	if pe, ok := errors.AsType[*Error](err); ok {
		return pe.RetryAfter
	}
	return 0
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
