package app

import (
	"runtime/debug"
	"sync"
	"time"
)

// Garbage collection while the process starts (issue 28). A start
// allocates a few megabytes (tens with thousands of skills) that mostly
// stay live, and the collector's first cycles, at 4 and 8 MB of heap,
// would run while discovery's stats use every core. They are put off until
// startupGCDelay after the session is built ([Build] calls
// [Process.startedUp]), or startupGCWindow after the process started,
// whichever comes first; startupMemoryLimit bounds the heap meanwhile (the
// collector runs when it is reached). Turned back on at once, the collector
// would start its first cycle right away (the heap is past its first goal)
// while `run` encodes and sends its first request; startupGCDelay lets that
// request go first.
const (
	startupGCWindow    = 2 * time.Second
	startupGCDelay     = 100 * time.Millisecond
	startupMemoryLimit = 64 << 20
)

// DeferGC puts garbage collection off until the process has started, unless
// GOGC or GOMEMLIMIT (read with getenv) say how to collect. The program
// calls it first thing; tests, which run many sessions in one process, do
// not.
func (p *Process) DeferGC(getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(startupMemoryLimit)
	p.gcRestore = sync.OnceFunc(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	time.AfterFunc(startupGCWindow, p.gcRestore)
}

// startedUp restores garbage collection shortly after a start
// ([Process.DeferGC]).
func (p *Process) startedUp() {
	if p != nil && p.gcRestore != nil {
		time.AfterFunc(startupGCDelay, p.gcRestore)
	}
}
