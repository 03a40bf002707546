//go:build unix

package flock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// open opens (or creates) the lock file at path.
func open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}

func lock(path string, wait bool) (unlock func(), err error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	if err := flock(f, how); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

func lockContext(ctx context.Context, path string) (unlock func(), err error) {
	if ctx.Done() == nil {
		return lock(path, true) // nothing to cancel: block in the kernel
	}
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	// flock(2) cannot be interrupted on request, so the wait polls with
	// LOCK_NB, backing off from 1ms to 20ms.
	wait := time.Millisecond
	for {
		err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, ErrHeld) {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for lock %s: %w", path, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(wait*2, 20*time.Millisecond)
	}
}

func tryLockFile(f *os.File) error { return flock(f, syscall.LOCK_EX|syscall.LOCK_NB) }

// flock applies how to f, again when a signal interrupts the call. A lock
// held through another open file is [ErrHeld].
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrHeld
		}
		return &os.PathError{Op: "flock", Path: f.Name(), Err: err}
	}
}
