package app

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestSessionCloseWaitsForBackground: a session summary update started
// before Close finishes before the session file closes (it records usage
// and writes the summary), and the process waits for it too; Ctrl-C
// (CancelBackground) cancels it instead of waiting.
func TestSessionCloseWaitsForBackground(t *testing.T) {
	t.Parallel()
	proc := &Process{}
	s := &Session{proc: proc}
	s.bgCtx, s.bgCancel = context.WithCancel(t.Context())
	var done atomic.Bool
	s.background(func(ctx context.Context) {
		time.Sleep(50 * time.Millisecond)
		done.Store(true)
	})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !done.Load() {
		t.Fatal("Close returned before the background update finished")
	}

	var cancelled atomic.Bool
	started := make(chan struct{})
	s.background(func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		cancelled.Store(true)
	})
	<-started
	s.CancelBackground()
	proc.Wait()
	if !cancelled.Load() {
		t.Fatal("the process finished waiting before the cancelled update ended")
	}
	s.Close()
}
