// Package eventlogtest is the conformance suite of the event logs: the same
// tests run against eventlog.Files and runtime/pgstore's Events. Each test
// gets two logs over the same storage, as two replicas (two processes)
// would have.
package eventlogtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/clawseed/clawseed/runtime/eventlog"
	"github.com/clawseed/clawseed/runtime/session"
)

// Run runs every test on the pairs of logs newLogs makes: two views of one
// new, empty storage.
func Run(t *testing.T, newLogs func(t *testing.T) (a, b eventlog.Log)) {
	for _, tt := range []struct {
		name string
		run  func(t *testing.T, a, b eventlog.Log)
	}{
		{"NumberedInOrder", testNumbered},
		{"BytesKept", testBytes},
		{"NotJSON", testNotJSON},
		{"AfterAndLimit", testAfter},
		{"ConcurrentAcrossReplicas", testConcurrent},
		{"WaitAtOnce", testWaitAtOnce},
		{"WaitWokenByOtherReplica", testWaitOther},
		{"WaitCancelled", testWaitCancelled},
		{"InvalidSession", testInvalid},
		{"Remove", testRemove},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := newLogs(t)
			tt.run(t, a, b)
		})
	}
}

var ctx = context.Background()

func appendN(t *testing.T, l eventlog.Log, sess string, n int) {
	t.Helper()
	for i := range n {
		if _, err := l.Append(ctx, sess, fmt.Appendf(nil, `{"i":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
}

func seqs(evs []eventlog.Event) []int64 {
	var out []int64
	for _, e := range evs {
		out = append(out, e.Seq)
	}
	return out
}

func testNumbered(t *testing.T, a, b eventlog.Log) {
	for i, l := range []eventlog.Log{a, b, a, a, b} {
		seq, err := l.Append(ctx, "s1", []byte(`{"type":"x"}`))
		if err != nil || seq != int64(i+1) {
			t.Fatalf("append %d: seq %d, %v", i+1, seq, err)
		}
	}
	seq, err := b.Append(ctx, "s2", []byte(`{}`))
	if err != nil || seq != 1 {
		t.Errorf("another session's first: seq %d, %v; want 1", seq, err)
	}
	evs, err := a.After(ctx, "s1", 0, 0)
	if err != nil || !slices.Equal(seqs(evs), []int64{1, 2, 3, 4, 5}) {
		t.Errorf("After = %v, %v", seqs(evs), err)
	}
	for _, e := range evs {
		if e.Created.IsZero() || time.Since(e.Created) > time.Minute {
			t.Errorf("event %d created %v", e.Seq, e.Created)
		}
	}
}

func testBytes(t *testing.T, a, b eventlog.Log) {
	in := []string{
		`{"type":"assistant","seq":0,"message":{"content":[{"type":"text","text":"<b>&amp;</b> \u003c 🦀 \u0000"}]},"b":1,"a":2}`,
		`{"z" : 1,
		  "a" : [1, 2.50, "x"]}`,
		`"just a string"`,
		`[]`,
	}
	want := []string{
		`{"type":"assistant","seq":0,"message":{"content":[{"type":"text","text":"<b>&amp;</b> \u003c 🦀 \u0000"}]},"b":1,"a":2}`,
		`{"z":1,"a":[1,2.50,"x"]}`, // compacted, nothing else
		`"just a string"`,
		`[]`,
	}
	for _, d := range in {
		if _, err := a.Append(ctx, "s", []byte(d)); err != nil {
			t.Fatal(err)
		}
	}
	evs, err := b.After(ctx, "s", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, string(e.Data))
	}
	if !slices.Equal(got, want) {
		t.Errorf("data\n got %q\nwant %q", got, want)
	}
}

func testNotJSON(t *testing.T, a, _ eventlog.Log) {
	for _, d := range []string{"", "{", `{"a":1} {"b":2}`, "nope", `{"a":1}x`} {
		if _, err := a.Append(ctx, "s", []byte(d)); !errors.Is(err, eventlog.ErrNotJSON) {
			t.Errorf("Append(%q) = %v, want ErrNotJSON", d, err)
		}
	}
	if evs, err := a.After(ctx, "s", 0, 0); err != nil || len(evs) != 0 {
		t.Errorf("After = %v, %v; want nothing", evs, err)
	}
	if seq, err := a.Append(ctx, "s", []byte(`{}`)); err != nil || seq != 1 {
		t.Errorf("first good event: %d, %v; want 1", seq, err)
	}
}

func testAfter(t *testing.T, a, b eventlog.Log) {
	if evs, err := a.After(ctx, "none", 0, 0); err != nil || len(evs) != 0 {
		t.Errorf("After of a session without events = %v, %v", evs, err)
	}
	appendN(t, a, "s", 10)
	for _, tt := range []struct {
		after int64
		limit int
		want  []int64
	}{
		{0, 3, []int64{1, 2, 3}},
		{3, 3, []int64{4, 5, 6}},
		{8, 0, []int64{9, 10}},
		{8, 5, []int64{9, 10}},
		{10, 0, nil},
		{42, 1, nil},
		{-1, 1, []int64{1}},
	} {
		evs, err := b.After(ctx, "s", tt.after, tt.limit)
		if err != nil || !slices.Equal(seqs(evs), tt.want) {
			t.Errorf("After(%d, %d) = %v, %v; want %v", tt.after, tt.limit, seqs(evs), err, tt.want)
		}
	}
}

func testConcurrent(t *testing.T, a, b eventlog.Log) {
	const perWorker, workers = 15, 6
	var wg sync.WaitGroup
	var mu sync.Mutex
	var got []int64
	for w := range workers {
		l := a
		if w%2 == 1 {
			l = b
		}
		wg.Go(func() {
			for range perWorker {
				seq, err := l.Append(ctx, "s", []byte(`{"w":1}`))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				got = append(got, seq)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(got)
	evs, err := a.After(ctx, "s", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range perWorker * workers {
		if i >= len(got) || got[i] != int64(i+1) {
			t.Fatalf("numbers handed out: %v; want 1..%d without gaps or repeats", got, perWorker*workers)
		}
	}
	if !slices.Equal(seqs(evs), got) {
		t.Errorf("stored %v, handed out %v", seqs(evs), got)
	}
}

func testWaitAtOnce(t *testing.T, a, b eventlog.Log) {
	appendN(t, a, "s", 2)
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := b.Wait(c, "s", 1); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Wait for an existing event took %v", d)
	}
}

func testWaitOther(t *testing.T, a, b eventlog.Log) {
	appendN(t, a, "s", 1)
	for _, waiter := range []eventlog.Log{a, b} { // the same replica, then another
		c, cancel := context.WithTimeout(ctx, 20*time.Second)
		done := make(chan error, 1)
		evs, _ := waiter.After(ctx, "s", 0, 0)
		last := int64(len(evs))
		go func() { done <- waiter.Wait(c, "s", last) }()
		select {
		case err := <-done:
			t.Fatalf("Wait returned before an event: %v", err)
		case <-time.After(300 * time.Millisecond):
		}
		appendN(t, b, "other", 1) // another session's event does not end it
		select {
		case err := <-done:
			t.Fatalf("Wait returned on another session's event: %v", err)
		case <-time.After(300 * time.Millisecond):
		}
		start := time.Now()
		appendN(t, b, "s", 1)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("Wait returned %v after the event", d)
		}
		cancel()
	}
}

func testWaitCancelled(t *testing.T, a, _ eventlog.Log) {
	c, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := a.Wait(c, "s", 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait = %v, want the context's error", err)
	}
}

func testInvalid(t *testing.T, a, _ eventlog.Log) {
	for _, id := range []string{"", "../x", "a/b"} {
		if _, err := a.Append(ctx, id, []byte(`{}`)); !errors.Is(err, session.ErrInvalidID) {
			t.Errorf("Append(%q) = %v, want ErrInvalidID", id, err)
		}
		if _, err := a.After(ctx, id, 0, 0); !errors.Is(err, session.ErrInvalidID) {
			t.Errorf("After(%q) = %v, want ErrInvalidID", id, err)
		}
		if err := a.Wait(ctx, id, 0); !errors.Is(err, session.ErrInvalidID) {
			t.Errorf("Wait(%q) = %v, want ErrInvalidID", id, err)
		}
	}
}

func testRemove(t *testing.T, a, b eventlog.Log) {
	appendN(t, a, "s", 3)
	appendN(t, a, "keep", 2)
	if err := b.Remove(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if err := b.Remove(ctx, "never"); err != nil {
		t.Errorf("Remove of a session without events: %v", err)
	}
	if evs, err := a.After(ctx, "s", 0, 0); err != nil || len(evs) != 0 {
		t.Errorf("After a Remove: %v, %v", seqs(evs), err)
	}
	if evs, err := a.After(ctx, "keep", 0, 0); err != nil || len(evs) != 2 {
		t.Errorf("another session's events: %v, %v", seqs(evs), err)
	}
	for _, l := range []eventlog.Log{a, b} { // a's cached numbering is gone too
		seq, err := l.Append(ctx, "s", []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		if l == a && seq != 1 || l == b && seq != 2 {
			t.Errorf("numbering after Remove: %d", seq)
		}
	}
	if err := a.Remove(ctx, "../x"); !errors.Is(err, session.ErrInvalidID) {
		t.Errorf("Remove(../x) = %v", err)
	}
}
