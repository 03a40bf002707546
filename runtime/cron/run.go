package cron

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/clawseed/clawseed/internal/flock"
)

// MaxRunTime bounds one run of a job; the runner's context ends then.
const MaxRunTime = 30 * time.Minute

// A Result is what a [Runner] reports about one run.
type Result struct {
	// Status is StatusOK, StatusError or StatusCancelled.
	Status  string
	Output  string
	Session string
}

// A Runner runs one job to its end (or until ctx ends) and reports how it
// went. It is given the job as it was when the run was claimed.
type Runner func(ctx context.Context, job Job) Result

func (s *Store) lockPath(id string) string { return filepath.Join(s.Dir, "locks", id+".lock") }

// RunJob runs the job ref names now, unless a run of it holds its lock
// ([ErrRunning]); with TriggerSchedule only while it is still due
// ([ErrNotDue]). The run is recorded in the job's history.
func (s *Store) RunJob(ctx context.Context, ref, workspace, trigger string, run Runner) (Run, error) {
	j, err := s.Get(ref, workspace)
	if err != nil {
		return Run{}, err
	}
	if err := os.MkdirAll(filepath.Dir(s.lockPath(j.ID)), 0o700); err != nil {
		return Run{}, fmt.Errorf("cron locks: %w", err)
	}
	unlock, err := flock.TryLock(s.lockPath(j.ID))
	if errors.Is(err, flock.ErrHeld) {
		return Run{}, ErrRunning
	}
	if err != nil {
		return Run{}, err
	}
	defer unlock()
	start := s.now()
	if j, err = s.claim(j.ID, trigger, start); err != nil {
		return Run{}, err
	}
	r := Execute(ctx, j, trigger, start, s.now, run)
	if err := s.record(r); err != nil {
		return r, fmt.Errorf("job %s ran, but its run was not recorded: %w", j.ID, err)
	}
	return r, nil
}

// Execute runs a claimed job through run, bounded by [MaxRunTime], and
// returns its run as every store records it: started at start, ended at
// now(), an error when it overran, cancelled when ctx ended, an error when
// the runner gave no status.
func Execute(ctx context.Context, j Job, trigger string, start time.Time, now func() time.Time, run Runner) Run {
	runCtx, cancel := context.WithTimeout(ctx, MaxRunTime)
	res := run(runCtx, j)
	timedOut := errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	r := Run{Job: j.ID, Trigger: trigger, Start: start, End: now(), Status: res.Status, Session: res.Session, Output: res.Output}
	switch {
	case timedOut:
		r.Status = StatusError
		r.Output += fmt.Sprintf("\n[stopped: the run took longer than %s]", MaxRunTime)
	case ctx.Err() != nil:
		r.Status = StatusCancelled
	case r.Status == "":
		r.Status = StatusError
	}
	r.Output = Tail(r.Output, OutputTail)
	return r
}

// claim marks a run of job id as started, under the store lock and after
// the job lock is held: the job is read again, because another process may
// have run it between our reading the due list and taking the lock, and a
// scheduled run moves the next run on before it starts, so a run that
// crashes the process does not make the job due again at once.
func (s *Store) claim(id, trigger string, start time.Time) (Job, error) {
	var claimed Job
	err := s.modify(func(f *jobsFile) error {
		i := slices.IndexFunc(f.Jobs, func(j Job) bool { return j.ID == id })
		if i < 0 {
			return fmt.Errorf("%w %q", ErrNotFound, id)
		}
		if err := Claim(&f.Jobs[i], trigger, start); err != nil {
			return err
		}
		claimed = f.Jobs[i]
		return nil
	})
	return claimed, err
}

// Claim is the rule of starting a run of j at start, whatever store keeps
// it: a scheduled run only while j is due ([ErrNotDue]), and it moves the
// next run on before the run starts (counted from start), so a run that
// crashes its process does not make the job due again at once; every run
// sets the last run.
func Claim(j *Job, trigger string, start time.Time) error {
	if trigger == TriggerSchedule {
		if !j.due(start) {
			return ErrNotDue
		}
		sched, err := ParseSchedule(j.Schedule)
		if err != nil {
			return err
		}
		j.NextRun = sched.Next(start)
	}
	j.LastRun = &start
	return nil
}

// An Outcome is what became of one due job in [Store.RunDue]: its run, or
// why it did not run (Err; [ErrRunning] and [ErrNotDue] mean another run
// has it).
type Outcome struct {
	Job Job
	Run Run
	Err error
}

// Skipped reports whether the job was left to another run.
func (o Outcome) Skipped() bool {
	return errors.Is(o.Err, ErrRunning) || errors.Is(o.Err, ErrNotDue) || errors.Is(o.Err, ErrNotFound)
}

// RunDue runs every job that is due now, each in its own goroutine, and
// waits for them. A job already running (here or in another process) is
// skipped. The outcomes are in the order of [Store.Due].
func (s *Store) RunDue(ctx context.Context, run Runner) ([]Outcome, error) {
	due, err := s.Due(s.now())
	if err != nil {
		return nil, err
	}
	out := make([]Outcome, len(due))
	var wg sync.WaitGroup
	for i, j := range due {
		wg.Go(func() {
			r, err := s.RunJob(ctx, j.ID, "", TriggerSchedule, run)
			out[i] = Outcome{Job: j, Run: r, Err: err}
		})
	}
	wg.Wait()
	return out, nil
}

// A Scheduler runs the due jobs of a store while a process is up (`clawseed
// chat`): it looks at start and then at every tick.
type Scheduler struct {
	Store Jobs
	Run   Runner
	// Every is the time between looks (0 = 30 s).
	Every time.Duration
	// Tick, when set, replaces the ticker (tests).
	Tick <-chan time.Time
	// OnError is told about a store that cannot be read and runs that
	// could not be recorded (nil = ignored).
	OnError func(error)
}

// Start starts the scheduler; stop cancels the runs in progress and waits
// for them to be recorded.
func (sc *Scheduler) Start(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	tick := sc.Tick
	var ticker *time.Ticker
	if tick == nil {
		every := sc.Every
		if every <= 0 {
			every = 30 * time.Second
		}
		ticker = time.NewTicker(every)
		tick = ticker.C
	}
	var wg sync.WaitGroup
	look := func() {
		// Each look runs on its own, so that a long job does not hold back
		// the jobs that fall due meanwhile; the job locks keep a job that
		// is still running from starting again.
		wg.Go(func() { sc.report(sc.Store.RunDue(ctx, sc.Run)) })
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		look()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick:
				look()
			}
		}
	}()
	return func() {
		cancel()
		<-done
		if ticker != nil {
			ticker.Stop()
		}
		wg.Wait()
	}
}

func (sc *Scheduler) report(outs []Outcome, err error) {
	if sc.OnError == nil {
		return
	}
	if err != nil {
		sc.OnError(err)
	}
	for _, o := range outs {
		if o.Err != nil && !o.Skipped() {
			sc.OnError(fmt.Errorf("cron job %s (%s): %w", o.Job.ID, o.Job.Name, o.Err))
		}
	}
}
