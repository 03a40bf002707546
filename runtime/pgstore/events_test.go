package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/clawseed/clawseed/runtime/eventlog"
	"github.com/clawseed/clawseed/runtime/eventlog/eventlogtest"
)

// TestEventsConformance runs the event logs' conformance suite on
// PostgreSQL: two DBs on one database stand for two replicas.
func TestEventsConformance(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) (eventlog.Log, eventlog.Log) {
		url := pg.Database(t)
		return replica(t, url).Events(), replica(t, url).Events()
	})
}

// TestEventsListenerReconnects: when the listening connection dies, Wait
// still returns on the next event (the listener reconnects, and waiters
// look again), and Close stops the listener.
func TestEventsListenerReconnects(t *testing.T) {
	ctx := context.Background()
	url := pg.Database(t)
	a, b := replica(t, url), replica(t, url)
	waitCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- b.Events().Wait(waitCtx, "s", 0) }()
	// Wait for the listener, then kill it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		tag, err := a.pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`)
		if err != nil {
			t.Fatal(err)
		}
		if tag.RowsAffected() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no listener")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	if _, err := a.Events().Append(ctx, "s", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second { // sooner than waitPoll: the listener reconnected
		t.Errorf("Wait returned %v after the event", d)
	}
	b.Close() // stops the listener (the cleanup's second Close is harmless)
}
