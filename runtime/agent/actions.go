package agent

import (
	"sync"
	"time"
)

// An ActionLimiter counts tool calls against [autonomy].max_actions_per_hour
// over a sliding hour. The limit is the process's: every agent of a process
// (the session's, and those of cron jobs run while chat is open) takes from
// one limiter, so starting another conversation does not reset it. It is
// safe for concurrent use.
type ActionLimiter struct {
	mu    sync.Mutex
	max   int
	now   func() time.Time
	times []time.Time
}

// NewActionLimiter allows max calls per hour; max <= 0 means no limit. now
// nil means time.Now.
func NewActionLimiter(max int, now func() time.Time) *ActionLimiter {
	if now == nil {
		now = time.Now
	}
	return &ActionLimiter{max: max, now: now}
}

// Max returns the limit (0 = none).
func (l *ActionLimiter) Max() int { return max(l.max, 0) }

// Take counts one call and reports whether it is within the limit.
func (l *ActionLimiter) Take() bool {
	if l.max <= 0 {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	keep := l.times[:0]
	for _, t := range l.times {
		if now.Sub(t) < time.Hour {
			keep = append(keep, t)
		}
	}
	l.times = keep
	if len(l.times) >= l.max {
		return false
	}
	l.times = append(l.times, now)
	return true
}
