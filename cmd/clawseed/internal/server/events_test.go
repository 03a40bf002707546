package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers/providertest"
)

func TestWithSeq(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{`{"type":"result"}`, `{"type":"result","seq":7}`},
		{` {"a":1} ` + "\n", `{"a":1,"seq":7}`},
		{`{}`, `{"seq":7}`},
		{`{ }`, `{"seq":7}`},
	} {
		got, err := WithSeq(json.RawMessage(tt.in), 7)
		if err != nil || string(got) != tt.want {
			t.Errorf("WithSeq(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `[]`, `"x"`, `{`, `1`} {
		if _, err := WithSeq(json.RawMessage(bad), 1); err == nil {
			t.Errorf("WithSeq(%q) accepted", bad)
		}
	}
}

// FuzzWithSeq: whatever object comes in, the event is one JSON object
// whose seq is the number given.
func FuzzWithSeq(f *testing.F) {
	for _, s := range []string{`{"type":"result"}`, `{}`, `{"seq":1}`, ` {"a":[1,{"b":2}]} `, `{"x":"}"}`} {
		f.Add(s, int64(3))
	}
	f.Fuzz(func(t *testing.T, in string, seq int64) {
		if !json.Valid([]byte(in)) {
			return
		}
		out, err := WithSeq(json.RawMessage(in), seq)
		if err != nil {
			return
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(out, &obj); err != nil {
			// An object with "seq" already decodes with the last one.
			t.Fatalf("WithSeq(%s) = %s: not an object: %v", in, out, err)
		}
		var got int64
		if json.Unmarshal(obj["seq"], &got) != nil || got != seq {
			t.Fatalf("WithSeq(%s) = %s: seq %s, want %d", in, out, obj["seq"], seq)
		}
	})
}

// TestFileEvents: numbers from 1, never reused across instances (a
// restart), After from memory and from the file alike, Wait wakes on
// Append, a torn last line is cut, Remove deletes.
func TestFileEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "events")
	log := &FileEvents{Dir: dir}
	for i := range 5 {
		seq, err := log.Append(ctx, "s1", json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)))
		if err != nil || seq != int64(i+1) {
			t.Fatalf("Append %d = %d, %v", i, seq, err)
		}
	}
	evs, err := log.After(ctx, "s1", 2, 2)
	if err != nil || len(evs) != 2 || evs[0].Seq != 3 || string(evs[1].Data) != `{"n":3,"seq":4}` {
		t.Fatalf("After(2, 2) = %v, %v", evs, err)
	}
	// A torn line, as a crash leaves it; a new instance reads the file.
	f, _ := os.OpenFile(filepath.Join(dir, "s1.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"n":5,"se`)
	f.Close()
	again := &FileEvents{Dir: dir}
	if last, err := again.Last(ctx, "s1"); err != nil || last != 5 {
		t.Fatalf("Last after a restart = %d, %v", last, err)
	}
	if seq, _ := again.Append(ctx, "s1", json.RawMessage(`{"n":6}`)); seq != 6 {
		t.Fatalf("Append after a restart = %d", seq)
	}
	cold := &FileEvents{Dir: dir}
	evs, err = cold.After(ctx, "s1", 0, 100)
	if err != nil || len(evs) != 6 || string(evs[5].Data) != `{"n":6,"seq":6}` {
		t.Fatalf("After(0) from the file = %v, %v", evs, err)
	}
	if none, _ := cold.After(ctx, "nothing", 0, 10); len(none) != 0 {
		t.Errorf("a session without events: %v", none)
	}
	// Wait wakes on the next Append.
	woke := make(chan error)
	go func() { woke <- again.Wait(ctx, "s1", 6) }()
	time.Sleep(20 * time.Millisecond)
	again.Append(ctx, "s1", json.RawMessage(`{}`))
	select {
	case err := <-woke:
		if err != nil {
			t.Errorf("Wait: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not wake")
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := again.Wait(short, "s1", 7); err == nil {
		t.Error("Wait returned with nothing new")
	}
	if err := again.Remove(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "s1.jsonl")); !os.IsNotExist(err) {
		t.Errorf("file after Remove: %v", err)
	}
	for _, bad := range []string{"../x", ".hidden", "a/b", ""} {
		if _, err := log.Append(ctx, bad, json.RawMessage(`{}`)); err == nil {
			t.Errorf("Append to %q accepted", bad)
		}
	}
}

// TestFileEventsConcurrent: concurrent appends to one session get
// distinct numbers, in file order.
func TestFileEventsConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	log := &FileEvents{Dir: t.TempDir()}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if _, err := log.Append(ctx, "s", json.RawMessage(`{}`)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	evs, _ := (&FileEvents{Dir: log.Dir}).After(ctx, "s", 0, 1000)
	if len(evs) != 400 {
		t.Fatalf("%d events", len(evs))
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}
}

func TestCursor(t *testing.T) {
	t.Parallel()
	sm := summaryJSON{ID: "20260101-000000-abcdef", Updated: time.Unix(100, 5)}
	c, err := parseCursor(sm.cursor())
	if err != nil || !c.updated.Equal(sm.Updated) || c.id != sm.ID {
		t.Fatalf("round trip: %v %v", c, err)
	}
	older := summaryJSON{ID: "z", Updated: time.Unix(99, 0)}
	sameTimeLowerID := summaryJSON{ID: "20260101-000000-aaaaaa", Updated: sm.Updated}
	if !c.follows(older) || !c.follows(sameTimeLowerID) || c.follows(sm) {
		t.Error("follows")
	}
	for _, bad := range []string{"", "!!", "MTIz", "eDp5"} {
		if _, err := parseCursor(bad); err == nil {
			t.Errorf("parseCursor(%q) accepted", bad)
		}
	}
}

// FuzzParseCursor: a cursor from a client never panics, and one that
// parses names a valid id.
func FuzzParseCursor(f *testing.F) {
	f.Add(summaryJSON{ID: "20260101-000000-abcdef", Updated: time.Unix(100, 5)}.cursor())
	f.Add("MTIzOi4u")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseCursor(s)
		if err == nil && checkSessionID(c.id) != nil {
			t.Fatalf("parseCursor(%q) gave id %q", s, c.id)
		}
	})
}

// trackedEvents is an event log whose sessions' turns run "elsewhere"
// while running is set: a replica's view of another's turn.
type trackedEvents struct {
	*FileEvents
	mu      sync.Mutex
	running bool
}

func (e *trackedEvents) TurnRunning(context.Context, string) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.running, nil
}

func (e *trackedEvents) set(running bool) {
	e.mu.Lock()
	e.running = running
	e.mu.Unlock()
}

// TestRemoteTurn: with a TurnTracker, GET .../events of a session this
// server has not open follows the turn another process runs (its events
// as they are stored) until the tracker says it ended.
func TestRemoteTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []providertest.Response{{Text: "first"}}, "")
	id := h.create(h.ws)
	evs := h.turn(id, "one", nil)
	tracked := &trackedEvents{FileEvents: h.srv.events.(*FileEvents), running: true}
	h.srv.events = tracked
	h.srv.mu.Lock()
	l := h.srv.live[id]
	l.retiring = true
	h.srv.mu.Unlock()
	h.srv.retire(l, nil)

	got := make(chan []sseEvent)
	go func() { got <- h.events(id, len(evs)) }()
	time.Sleep(100 * time.Millisecond)
	tracked.Append(t.Context(), id, json.RawMessage(`{"type":"system","subtype":"init"}`))
	tracked.Append(t.Context(), id, json.RawMessage(`{"type":"result"}`))
	select {
	case <-got:
		t.Fatal("the stream ended while the other replica's turn ran")
	case <-time.After(300 * time.Millisecond):
	}
	tracked.set(false)
	select {
	case remote := <-got:
		if types(remote) != "system/init result" {
			t.Errorf("followed %s", types(remote))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end with the remote turn")
	}
}
