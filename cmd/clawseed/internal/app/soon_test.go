package app

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestSoon: f runs once, whether its goroutine or the first caller runs
// it, and every caller gets its result.
func TestSoon(t *testing.T) {
	t.Parallel()
	for range 200 {
		var runs atomic.Int32
		get := soon(func() int { runs.Add(1); return 42 })
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				if got := get(); got != 42 {
					t.Errorf("soon = %d, want 42", got)
				}
			})
		}
		wg.Wait()
		if got := get(); got != 42 {
			t.Errorf("soon = %d, want 42", got)
		}
		if n := runs.Load(); n != 1 {
			t.Fatalf("f ran %d times, want once", n)
		}
	}
}
