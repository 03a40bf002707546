package app

import (
	"runtime/debug"
	"testing"
	"time"
)

// TestDeferGC: collection is off from DeferGC until startedUp, then as it
// was; GOGC or GOMEMLIMIT in the environment leave it alone.
func TestDeferGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	limit := debug.SetMemoryLimit(-1)
	p := &Process{}
	p.DeferGC(func(string) string { return "" })
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("GC percent %d during the start, want -1 (off)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != startupMemoryLimit {
		t.Fatalf("memory limit %d during the start, want %d", got, startupMemoryLimit)
	}
	p.startedUp()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("GC percent %d right after the start, want -1 (off until startupGCDelay)", got)
	}
	time.Sleep(startupGCDelay + 200*time.Millisecond)
	if got := debug.SetGCPercent(-1); got != 100 {
		t.Fatalf("GC percent %d after the start, want 100", got)
	}
	debug.SetGCPercent(100)
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Fatalf("memory limit %d after the start, want %d", got, limit)
	}
	p.startedUp() // a second session's start changes nothing
	time.Sleep(startupGCDelay + 200*time.Millisecond)
	if got := debug.SetGCPercent(-1); got != 100 {
		t.Fatalf("GC percent %d after a second start, want 100", got)
	}
	debug.SetGCPercent(100)

	q := &Process{}
	q.DeferGC(func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GOGC set: GC percent changed to %d", got)
	}
	q.startedUp()
}
