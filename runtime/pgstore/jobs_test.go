package pgstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawseed/clawseed/runtime/cron"
	"github.com/clawseed/clawseed/runtime/cron/crontest"
)

// TestJobsConformance runs the job stores' conformance suite on
// PostgreSQL: each opener is another replica (its own pool) on the test's
// database.
func TestJobsConformance(t *testing.T) {
	crontest.Run(t, func(t *testing.T) crontest.Opener {
		url := pg.Database(t)
		replica(t, url) // migrated
		return func(now func() time.Time, newID func() string) cron.Jobs {
			db, err := Open(context.Background(), url, 4)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(db.Close)
			s := db.Jobs()
			s.Now, s.NewID = now, newID
			return s
		}
	})
}

// TestRunScheduledOnce: replicas that all try to run the same due time at
// once run it once; the others are told it is running or not due.
func TestRunScheduledOnce(t *testing.T) {
	url := pg.Database(t)
	replica(t, url)
	clock := crontest.NewClock(crontest.T0)
	var stores []*Jobs
	for range 3 {
		s := replica(t, url).Jobs()
		s.Now = clock.Now
		stores = append(stores, s)
	}
	j, err := stores[0].Add(t.Context(), crontest.ShellJob("j", "every 10m", "x"))
	if err != nil {
		t.Fatal(err)
	}
	clock.Set(j.NextRun.Add(time.Second))
	var runs atomic.Int32
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			_, err := stores[i%3].RunScheduled(t.Context(), j.ID, j.NextRun, func(context.Context, cron.Job) cron.Result {
				runs.Add(1)
				time.Sleep(50 * time.Millisecond)
				return cron.Result{Status: cron.StatusOK}
			})
			if err != nil && !errors.Is(err, cron.ErrRunning) && !errors.Is(err, cron.ErrNotDue) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Errorf("due time ran %d times, want 1", n)
	}
	// A due time that is not the job's next run is not run.
	if _, err := stores[1].RunScheduled(t.Context(), j.ID, j.NextRun.Add(-time.Hour), nil); !errors.Is(err, cron.ErrNotDue) {
		t.Errorf("stale due time: %v", err)
	}
}

// TestInterruptedRunClosed: a run left open by a process that died (its
// row without a status, its lock gone with its connection) is closed as
// failed by the next run of the job, and a scheduled run's due time is not
// run twice.
func TestInterruptedRunClosed(t *testing.T) {
	ctx := t.Context()
	db := openDB(t)
	s := db.Jobs()
	clock := crontest.NewClock(crontest.T0)
	s.Now = clock.Now
	j, err := s.Add(ctx, crontest.ShellJob("j", "every 10m", "x"))
	if err != nil {
		t.Fatal(err)
	}
	// What a replica killed mid-run leaves: the claim, without the end.
	clock.Set(j.NextRun)
	claimed, _, err := s.claim(ctx, j.ID, cron.TriggerSchedule, &j.NextRun, clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, runs, _ := s.Runs(ctx, j.ID, "", 0); len(runs) != 0 {
		t.Errorf("an open run is listed: %+v", runs)
	}
	if _, err := s.RunScheduled(ctx, j.ID, j.NextRun, nil); !errors.Is(err, cron.ErrNotDue) {
		t.Errorf("the interrupted due time again: %v, want ErrNotDue", err)
	}
	_, runs, _ := s.Runs(ctx, j.ID, "", 0)
	if len(runs) != 1 || runs[0].Status != cron.StatusError || !strings.Contains(runs[0].Output, "interrupted") || !runs[0].Start.Equal(j.NextRun) {
		t.Fatalf("runs = %+v", runs)
	}
	got, _ := s.Get(ctx, j.ID, "")
	if !got.NextRun.Equal(claimed.NextRun) || !got.NextRun.After(j.NextRun) {
		t.Errorf("next run %s, want %s", got.NextRun, claimed.NextRun)
	}
}
