package agent

import (
	"context"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/clawseed/clawseed/providers"
)

// Limits of [EventToolOutput]: a UI shows the last few lines of a running
// command, so a command printing megabytes a second costs it at most 20
// small events a second.
const (
	// outputInterval is the shortest time between two tool_output events
	// of one call while it runs.
	outputInterval = 50 * time.Millisecond
	// maxOutputEvent caps the Text of one tool_output event, in bytes:
	// its last ones are kept.
	maxOutputEvent = 4 << 10
)

// withOutput returns ctx for running the call id: what its tool reports
// as it runs ([providers.WithToolOutput]) reaches the sink as
// tool_output events of id, coalesced and throttled by an [outputTail].
// done must be called when the call returns, before its tool_result: it
// sends what is pending and stops the events.
func (a *Agent) withOutput(ctx context.Context, id string) (callCtx context.Context, done func()) {
	t := newOutputTail(func(text string) {
		a.opts.Sink(Event{Type: EventToolOutput, ID: id, Text: text})
	}, outputInterval)
	return providers.WithToolOutput(ctx, t.add), t.close
}

// An outputTail coalesces the chunks a running call reports and passes
// them on from a goroutine of its own, so the tool never waits for the
// sink: the first chunk at once, then at most one event per interval
// with what came meanwhile (its last maxOutputEvent bytes), and what is
// still pending when the call ends. The goroutine starts with the first
// chunk: a call that reports nothing costs nothing.
type outputTail struct {
	emit     func(string)
	interval time.Duration

	mu      sync.Mutex
	pending string // what came since the last event
	started bool
	closed  bool // the call ended: later chunks (a background process's) are dropped

	wake chan struct{} // a chunk is pending (buffered: one wake-up is enough)
	stop chan struct{} // closed by close
	done chan struct{} // closed when the goroutine has sent the last event
}

func newOutputTail(emit func(string), interval time.Duration) *outputTail {
	return &outputTail{emit: emit, interval: interval,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// add takes one chunk of output; it never blocks on the sink.
func (t *outputTail) add(chunk string) {
	if chunk == "" {
		return
	}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	if len(chunk) >= maxOutputEvent {
		t.pending = lastBytes(chunk, maxOutputEvent)
	} else {
		t.pending = lastBytes(t.pending+chunk, maxOutputEvent)
	}
	if !t.started {
		t.started = true
		go t.run()
	}
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// run sends the pending output when there is some, then waits out the
// interval, until close.
func (t *outputTail) run() {
	defer close(t.done)
	timer := time.NewTimer(t.interval)
	timer.Stop()
	for {
		select {
		case <-t.wake:
		case <-t.stop:
			t.flush()
			return
		}
		t.flush()
		timer.Reset(t.interval)
		select {
		case <-timer.C:
		case <-t.stop:
			t.flush()
			return
		}
	}
}

// flush sends what is pending, if anything.
func (t *outputTail) flush() {
	t.mu.Lock()
	text := t.pending
	t.pending = ""
	t.mu.Unlock()
	if text != "" {
		t.emit(text)
	}
}

// close ends the call's events: what is pending is sent before it returns,
// and nothing after.
func (t *outputTail) close() {
	t.mu.Lock()
	t.closed = true
	started := t.started
	t.mu.Unlock()
	if started {
		close(t.stop)
		<-t.done
	}
}

// lastBytes returns the last n bytes of s at most, starting at a character
// boundary (s is valid UTF-8, as the tools send it).
func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
