// Package flock takes exclusive locks on lock files, for stores that
// several clawseed processes share (the trust store, the cron jobs and
// their runs). On Unix the lock is flock(2) on a freshly opened file: the
// kernel drops it when the process dies, even by SIGKILL, so a crash never
// leaves a store locked, and two goroutines of one process exclude each
// other like two processes. Elsewhere it is an in-process mutex per path.
package flock

import "errors"

// ErrHeld is returned by [TryLock] when the lock is held.
var ErrHeld = errors.New("lock is held")

// Lock waits for the exclusive lock on path (created if needed) and
// returns the function that releases it.
func Lock(path string) (unlock func(), err error) { return lock(path, true) }

// TryLock takes the exclusive lock on path (created if needed) without
// waiting, or fails with [ErrHeld].
func TryLock(path string) (unlock func(), err error) { return lock(path, false) }
