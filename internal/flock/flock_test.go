package flock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
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

// isHeld reports whether the LockContext lock on path is held: a context
// that has ended still takes a free lock, and fails on a held one.
func isHeld(t *testing.T, path string) bool {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	unlock, err := LockContext(ctx, path)
	if err == nil {
		unlock()
		return false
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("probe: %v", err)
	}
	return true
}

// lockers are the ways to call LockContext: with a context that never
// ends (it waits in the kernel where it can) and with one that can.
var lockers = []struct {
	name string
	ctx  func() (context.Context, context.CancelFunc)
}{
	{"background", func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }},
	{"cancelable", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }},
}

// TestLockContext: LockContext takes a free lock at once, even for a
// context that has ended; on a held lock it waits until the holder lets go
// or its context ends, and then fails with the context's error.
func TestLockContext(t *testing.T) {
	t.Parallel()
	const release, give = 40 * time.Millisecond, 5 * time.Second
	tests := []struct {
		name    string
		hold    bool
		release bool // the holder lets go after release
		ctx     func() (context.Context, context.CancelFunc)
		wantErr error
		minWait time.Duration
	}{
		{"free", false, false, func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }, nil, 0},
		{"free, context ended", false, false, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, nil, 0},
		{"held, released, background", true, true, func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }, nil, release},
		{"held, released, deadline", true, true, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), give)
		}, nil, release},
		{"held, deadline passes", true, false, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), release)
		}, context.DeadlineExceeded, release},
		{"held, canceled while waiting", true, false, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(release, cancel)
			return ctx, cancel
		}, context.Canceled, release},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "x.lock")
			if tt.hold {
				unlock, err := LockContext(context.Background(), path)
				if err != nil {
					t.Fatal(err)
				}
				if tt.release {
					time.AfterFunc(release, unlock)
				} else {
					defer unlock()
				}
			}
			// The clock starts before the context, whose timer (a deadline,
			// a cancel) starts when it is made.
			start := time.Now()
			ctx, cancel := tt.ctx()
			defer cancel()
			unlock, err := LockContext(ctx, path)
			waited := time.Since(start)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("LockContext: err = %v, want %v", err, tt.wantErr)
			}
			if waited < tt.minWait {
				t.Errorf("returned after %v, before %v", waited, tt.minWait)
			}
			if err != nil {
				if !strings.Contains(err.Error(), path) {
					t.Errorf("error %q does not name %s", err, path)
				}
				return
			}
			if !isHeld(t, path) {
				t.Error("the lock LockContext took is not held")
			}
			unlock()
			if isHeld(t, path) {
				t.Error("the lock is still held after unlock")
			}
		})
	}
}

// TestLockContextExcludesGoroutines: goroutines that count under the lock
// never overlap.
func TestLockContextExcludesGoroutines(t *testing.T) {
	t.Parallel()
	for _, l := range lockers {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "x.lock")
			// inside is atomic: the race detector cannot see that flock
			// orders the goroutines, and the count is what shows it.
			var inside atomic.Int32
			done := make(chan error)
			for range 8 {
				go func() {
					ctx, cancel := l.ctx()
					defer cancel()
					for range 20 {
						unlock, err := LockContext(ctx, path)
						if err != nil {
							done <- err
							return
						}
						n := inside.Add(1)
						time.Sleep(10 * time.Microsecond)
						inside.Add(-1)
						unlock()
						if n != 1 {
							done <- fmt.Errorf("%d goroutines inside the lock", n)
							return
						}
					}
					done <- nil
				}()
			}
			for range 8 {
				if err := <-done; err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestLockPIDFile covers the stand-in for LockContext where flock does not
// exist: an exclusive file, waited for, broken when stale.
func TestLockPIDFile(t *testing.T) {
	t.Parallel()
	const stale = time.Minute
	tests := []struct {
		name    string
		age     time.Duration // of a lock file already there; 0: none
		wantErr error
	}{
		{"free", 0, nil},
		{"held", time.Second, context.DeadlineExceeded},
		{"left by a crash", 2 * stale, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "x.lock.pid")
			if tt.age > 0 {
				if err := os.WriteFile(path, []byte("1\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				then := time.Now().Add(-tt.age)
				if err := os.Chtimes(path, then, then); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			unlock, err := lockPIDFile(ctx, path, stale)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if data, err := os.ReadFile(path); err != nil || string(data) != strconv.Itoa(os.Getpid())+"\n" {
				t.Errorf("lock file holds %q, %v; want this pid", data, err)
			}
			unlock()
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("lock file after unlock: %v", err)
			}
		})
	}
	t.Run("released while waiting", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "x.lock.pid")
		unlock, err := lockPIDFile(context.Background(), path, stale)
		if err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(40*time.Millisecond, unlock)
		start := time.Now()
		unlock2, err := lockPIDFile(context.Background(), path, stale)
		if err != nil {
			t.Fatal(err)
		}
		unlock2()
		if waited := time.Since(start); waited < 40*time.Millisecond {
			t.Errorf("took the lock after %v, before its release", waited)
		}
	})
}
