package flock

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestLockExcludes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(path); !errors.Is(err, ErrHeld) {
		t.Fatalf("TryLock while held: err = %v, want ErrHeld", err)
	}
	got := make(chan struct{})
	go func() {
		u, err := Lock(path)
		if err != nil {
			t.Error(err)
		} else {
			u()
		}
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("Lock returned while the lock was held")
	case <-time.After(50 * time.Millisecond):
	}
	unlock()
	<-got
	u, err := TryLock(path)
	if err != nil {
		t.Fatalf("TryLock after release: %v", err)
	}
	u()
}
