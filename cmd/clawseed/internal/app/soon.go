package app

import (
	"sync"
	"sync/atomic"
)

// soon starts f on another goroutine and returns the function that waits
// for its result (f runs once). When the result is asked for before that
// goroutine began — the other cores were busy: the sandbox probe holds one
// in a system call for most of a millisecond — f runs on the caller's
// goroutine instead of waiting for a core to start it on.
func soon[T any](f func() T) func() T {
	var claimed atomic.Bool
	done := make(chan T, 1)
	go func() {
		if claimed.CompareAndSwap(false, true) {
			done <- f()
		}
	}()
	return sync.OnceValue(func() T {
		if claimed.CompareAndSwap(false, true) {
			return f()
		}
		return <-done
	})
}
