package cron

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// clock is a settable fake clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// t0 is the fake clock's start: 12:00:00 on a Monday.
var t0 = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

// newStore returns a store in a temporary directory on a fake clock, with
// ids job1, job2, …
func newStore(t *testing.T) (*Store, *clock) {
	t.Helper()
	c := &clock{t: t0}
	var mu sync.Mutex
	n := 0
	return &Store{Dir: t.TempDir(), Now: c.Now, NewID: func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("job%d", n)
	}}, c
}

func shellJob(name, schedule, command string) Job {
	return Job{Name: name, Schedule: schedule, Kind: KindShell, Command: command, Workspace: "/ws"}
}

func mustAdd(t *testing.T, s *Store, j Job) Job {
	t.Helper()
	added, err := s.Add(j)
	if err != nil {
		t.Fatalf("Add(%s): %v", j.Name, err)
	}
	return added
}
