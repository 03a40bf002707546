package cron

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingRunner counts runs and answers ok with the job's command.
type countingRunner struct{ n atomic.Int32 }

func (c *countingRunner) run(_ context.Context, j Job) Result {
	c.n.Add(1)
	return Result{Status: StatusOK, Output: "ran " + j.Command}
}

// TestJobBecomesDueRunsOnce: on a fake clock a job is not due before its
// time, runs once when due, records the run, and is not due again until
// its next time.
func TestJobBecomesDueRunsOnce(t *testing.T) {
	t.Parallel()
	s, c := newStore(t)
	j := mustAdd(t, s, shellJob("tick", "every 10m", "date"))
	r := &countingRunner{}

	c.Set(t0.Add(9*time.Minute + 59*time.Second))
	if outs, err := s.RunDue(t.Context(), r.run); err != nil || len(outs) != 0 {
		t.Fatalf("before its time: %v, %v", outs, err)
	}

	due := t0.Add(10*time.Minute + 20*time.Second)
	c.Set(due)
	outs, err := s.RunDue(t.Context(), r.run)
	if err != nil || len(outs) != 1 || outs[0].Err != nil {
		t.Fatalf("when due: %+v, %v", outs, err)
	}
	if got := outs[0].Run; got.Status != StatusOK || got.Output != "ran date" || got.Trigger != TriggerSchedule || !got.Start.Equal(due) {
		t.Errorf("run = %+v", got)
	}
	// Again at the same time: not due.
	if outs, _ := s.RunDue(t.Context(), r.run); len(outs) != 0 {
		t.Errorf("ran again at once: %+v", outs)
	}
	if n := r.n.Load(); n != 1 {
		t.Errorf("runner called %d times, want 1", n)
	}
	got, _ := s.Get(j.ID, "")
	if got.LastRun == nil || !got.LastRun.Equal(due) || got.LastStatus != StatusOK {
		t.Errorf("job after run: last run %v, status %q", got.LastRun, got.LastStatus)
	}
	// Counted from the minute the run started.
	if want := t0.Add(20 * time.Minute); !got.NextRun.Equal(want) {
		t.Errorf("next run = %s, want %s", got.NextRun, want)
	}
	_, runs, err := s.Runs(j.Name, "", 0)
	if err != nil || len(runs) != 1 || runs[0].Output != "ran date" {
		t.Errorf("history = %+v, %v", runs, err)
	}

	c.Set(t0.Add(20 * time.Minute))
	if outs, _ := s.RunDue(t.Context(), r.run); len(outs) != 1 || r.n.Load() != 2 {
		t.Errorf("second period: %+v, %d runs", outs, r.n.Load())
	}
}

// TestConcurrentRunDue: two run-due passes at once (as two `clawseed cron
// run-due` processes would be: each opens the lock file itself) run a due
// job once. The second pass either no longer sees the job due (the first
// moved its next run on before starting it) or finds it locked; a manual
// run while it runs is refused.
func TestConcurrentRunDue(t *testing.T) {
	t.Parallel()
	s, c := newStore(t)
	j := mustAdd(t, s, shellJob("slow", "every 10m", "sleep"))
	c.Set(t0.Add(10 * time.Minute))

	started, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	runner := func(ctx context.Context, j Job) Result {
		if calls.Add(1) == 1 {
			close(started)
		}
		<-release
		return Result{Status: StatusOK}
	}
	var wg sync.WaitGroup
	var first []Outcome
	wg.Go(func() { first, _ = s.RunDue(context.Background(), runner) })
	<-started
	other := &Store{Dir: s.Dir, Now: c.Now}
	second, err := other.RunDue(context.Background(), runner)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range second {
		if !o.Skipped() {
			t.Errorf("second pass ran the job: %+v", o)
		}
	}
	// Both passes past the due check at once: the lock decides.
	if _, err := other.RunJob(context.Background(), j.ID, "", TriggerManual, runner); !errors.Is(err, ErrRunning) {
		t.Errorf("run while running: %v, want ErrRunning", err)
	}
	close(release)
	wg.Wait()

	if n := calls.Load(); n != 1 {
		t.Fatalf("the job ran %d times, want 1", n)
	}
	if len(first) != 1 || first[0].Err != nil {
		t.Errorf("first pass: %+v", first)
	}
	if _, runs, _ := s.Runs("slow", "", 0); len(runs) != 1 {
		t.Errorf("%d runs recorded, want 1", len(runs))
	}
}

// TestStaleDueList: a pass that read the due list before another pass ran
// the job, and takes the lock after it, must not run the job again.
func TestStaleDueList(t *testing.T) {
	t.Parallel()
	s, c := newStore(t)
	j := mustAdd(t, s, shellJob("once", "every 10m", "date"))
	c.Set(t0.Add(10 * time.Minute))
	due, _ := s.Due(c.Now()) // pass B reads the due list
	r := &countingRunner{}
	if _, err := s.RunDue(t.Context(), r.run); err != nil { // pass A runs it
		t.Fatal(err)
	}
	if len(due) != 1 || due[0].ID != j.ID {
		t.Fatalf("due = %+v", due)
	}
	_, err := s.RunJob(t.Context(), due[0].ID, "", TriggerSchedule, r.run) // pass B, late
	if !errors.Is(err, ErrNotDue) {
		t.Errorf("late pass: %v, want ErrNotDue", err)
	}
	if n := r.n.Load(); n != 1 {
		t.Errorf("ran %d times, want 1", n)
	}
}

func TestManualRunKeepsSchedule(t *testing.T) {
	t.Parallel()
	s, c := newStore(t)
	j := mustAdd(t, s, shellJob("m", "every 1h", "date"))
	c.Set(t0.Add(5 * time.Minute))
	r := &countingRunner{}
	run, err := s.RunJob(t.Context(), "m", "/ws", TriggerManual, r.run)
	if err != nil || run.Trigger != TriggerManual || run.Status != StatusOK {
		t.Fatalf("manual run: %+v, %v", run, err)
	}
	got, _ := s.Get(j.ID, "")
	if !got.NextRun.Equal(j.NextRun) || got.LastRun == nil {
		t.Errorf("after a manual run: next %s (want %s), last %v", got.NextRun, j.NextRun, got.LastRun)
	}
	if _, err := s.RunJob(t.Context(), "m", "/elsewhere", TriggerManual, r.run); !errors.Is(err, ErrNotFound) {
		t.Errorf("run from another workspace: %v", err)
	}
}

func TestRunCancelledAndFailed(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	mustAdd(t, s, shellJob("c", "every 1h", "sleep"))
	ctx, cancel := context.WithCancel(t.Context())
	run, err := s.RunJob(ctx, "c", "", TriggerManual, func(ctx context.Context, j Job) Result {
		cancel()
		<-ctx.Done()
		return Result{Status: StatusOK, Output: "partial"}
	})
	if err != nil || run.Status != StatusCancelled {
		t.Errorf("cancelled run: %+v, %v", run, err)
	}
	run, _ = s.RunJob(t.Context(), "c", "", TriggerManual, func(context.Context, Job) Result { return Result{Output: "no status"} })
	if run.Status != StatusError {
		t.Errorf("a run without a status is %q, want error", run.Status)
	}
	j, _ := s.Get("c", "")
	if j.LastStatus != StatusError {
		t.Errorf("last status %q", j.LastStatus)
	}
}

func TestHistoryKeepsLastRuns(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	mustAdd(t, s, shellJob("h", "every 1h", "x"))
	long := strings.Repeat("x", OutputTail+500) + "END"
	for i := range KeepRuns + 5 {
		out := "run"
		if i == KeepRuns+4 {
			out = long
		}
		if _, err := s.RunJob(t.Context(), "h", "", TriggerManual, func(context.Context, Job) Result {
			return Result{Status: StatusOK, Output: out}
		}); err != nil {
			t.Fatal(err)
		}
	}
	_, runs, _ := s.Runs("h", "", 0)
	if len(runs) != KeepRuns {
		t.Errorf("%d runs kept, want %d", len(runs), KeepRuns)
	}
	last := runs[len(runs)-1].Output
	if !strings.HasSuffix(last, "END") || !strings.HasPrefix(last, "[... earlier output cut ...]") {
		t.Errorf("long output not cut to its tail: %.60q…", last)
	}
	if _, some, _ := s.Runs("h", "", 3); len(some) != 3 {
		t.Errorf("limit 3 gave %d", len(some))
	}
	// Removing the job removes its history.
	if _, err := s.Remove("h", ""); err != nil {
		t.Fatal(err)
	}
	if runs, _ := s.readRuns("job1"); len(runs) != 0 {
		t.Errorf("history survived the job: %d runs", len(runs))
	}
}

// TestJobRemovedWhileRunning: the run is not recorded and nothing fails.
func TestJobRemovedWhileRunning(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	mustAdd(t, s, shellJob("gone", "every 1h", "x"))
	_, err := s.RunJob(t.Context(), "gone", "", TriggerManual, func(context.Context, Job) Result {
		if _, err := s.Remove("gone", ""); err != nil {
			t.Error(err)
		}
		return Result{Status: StatusOK}
	})
	if err != nil {
		t.Errorf("RunJob = %v", err)
	}
	if all, _ := s.List(""); len(all) != 0 {
		t.Errorf("job came back: %+v", all)
	}
}

func TestScheduler(t *testing.T) {
	t.Parallel()
	s, c := newStore(t)
	mustAdd(t, s, shellJob("tick", "every 10m", "date"))
	tick := make(chan time.Time)
	ran := make(chan string, 10)
	sc := &Scheduler{Store: Files{s}, Tick: tick, Run: func(_ context.Context, j Job) Result {
		ran <- j.Name
		return Result{Status: StatusOK}
	}}
	stop := sc.Start(t.Context())
	c.Set(t0.Add(10 * time.Minute))
	tick <- c.Now()
	if got := <-ran; got != "tick" {
		t.Errorf("ran %q", got)
	}
	tick <- c.Now() // not due again
	stop()
	close(ran)
	for extra := range ran {
		t.Errorf("ran %q twice", extra)
	}
	if _, runs, _ := s.Runs("tick", "", 0); len(runs) != 1 {
		t.Errorf("%d runs recorded", len(runs))
	}
}
