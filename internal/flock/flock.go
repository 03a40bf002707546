// Package flock is clawseed's one way to lock files, for state that several
// clawseed processes share: the trust store, the cron jobs and their runs,
// the memory folder and the session files. Every lock is exclusive.
//
// On Unix a lock is flock(2), held by an open file: the kernel drops it
// when the file is closed or the process dies, even by SIGKILL, so a crash
// never leaves anything locked, and two goroutines that each take the lock
// exclude each other as two processes do.
//
// Where flock does not exist (Windows), each function says what stands in
// for it; none of them is as good, so callers must not rely on more than
// its doc promises there.
package flock

import (
	"context"
	"errors"
	"os"
)

// ErrHeld is returned by [TryLock] and [TryLockFile] when the lock is held.
var ErrHeld = errors.New("lock is held")

// Lock waits for the exclusive lock on path (created if needed) and
// returns the function that releases it. Where flock does not exist, it
// orders the goroutines of one process only.
func Lock(path string) (unlock func(), err error) { return lock(path, true) }

// TryLock takes the exclusive lock on path (created if needed) without
// waiting, or fails with [ErrHeld]. Where flock does not exist, it orders
// the goroutines of one process only.
func TryLock(path string) (unlock func(), err error) { return lock(path, false) }

// LockContext waits for the exclusive lock on path (created if needed)
// until ctx ends, then fails with an error wrapping ctx.Err(); a free lock
// is taken even if ctx has ended. A context that never ends waits in the
// kernel, as [Lock]; otherwise the lock is polled, at most 20ms apart.
//
// Where flock does not exist, it excludes other processes too, with a file
// path+".pid" created exclusively and removed on unlock (not path itself,
// which [Lock] or a Unix clawseed sharing the folder may have left behind).
// A crashed holder leaves that file behind, so it is broken once it is
// 30 seconds old: hold the lock only for short work there.
func LockContext(ctx context.Context, path string) (unlock func(), err error) {
	return lockContext(ctx, path)
}

// TryLockFile takes the exclusive lock on the open file f itself (it may be
// open read-only) without waiting, or fails with [ErrHeld]. The lock lasts
// until f is closed. This is for a file that is its own lock, as a session
// file is while it is written; a probe that closes f at once tells whether
// someone else holds it. Where flock does not exist, it does nothing and
// reports the lock free: no stand-in could last exactly as long as f.
func TryLockFile(f *os.File) error { return tryLockFile(f) }
