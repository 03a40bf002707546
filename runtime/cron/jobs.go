package cron

import (
	"context"
	"time"
)

// Jobs is a job store as its users see it: the cron tools, the `clawseed
// cron` commands and the schedulers. [Files] puts the files of a [Store]
// behind it, runtime/pgstore a PostgreSQL database that `clawseed serve`
// replicas share. Every implementation applies the rules of this package
// ([PrepareAdd], [PrepareUpdate], [Find], [DueJobs], [Claim], [Execute]),
// and runtime/cron/crontest checks that they behave alike.
type Jobs interface {
	// List returns the jobs of workspace ("" = every workspace), oldest
	// first.
	List(ctx context.Context, workspace string) ([]Job, error)
	// Get returns the job whose id, or failing that whose name, is ref,
	// among the jobs of workspace ("" = every workspace).
	Get(ctx context.Context, ref, workspace string) (Job, error)
	// Add validates j, gives it an id, its creation time and next run,
	// enables it and stores it.
	Add(ctx context.Context, j Job) (Job, error)
	// Update applies change to the job ref names and stores it.
	Update(ctx context.Context, ref, workspace string, change func(*Job) error) (Job, error)
	// Remove deletes the job ref names and its run history.
	Remove(ctx context.Context, ref, workspace string) (Job, error)
	// Runs returns the last limit finished runs (0 = all kept) of the job
	// ref names, oldest first.
	Runs(ctx context.Context, ref, workspace string, limit int) (Job, []Run, error)
	// RunJob runs the job ref names now unless a run of it is under way
	// ([ErrRunning]); with TriggerSchedule only while it is due
	// ([ErrNotDue]). The run is recorded.
	RunJob(ctx context.Context, ref, workspace, trigger string, run Runner) (Run, error)
	// RunDue runs every job due now, each once however many processes
	// look at once, and waits for them.
	RunDue(ctx context.Context, run Runner) ([]Outcome, error)
}

// Files is the job store of a cron directory ([Store]) as [Jobs]. The
// files are local, so the contexts only bound the runs.
type Files struct{ Store *Store }

var _ Jobs = Files{}

func (f Files) List(_ context.Context, workspace string) ([]Job, error) {
	return f.Store.List(workspace)
}

func (f Files) Get(_ context.Context, ref, workspace string) (Job, error) {
	return f.Store.Get(ref, workspace)
}

func (f Files) Add(_ context.Context, j Job) (Job, error) { return f.Store.Add(j) }

func (f Files) Update(_ context.Context, ref, workspace string, change func(*Job) error) (Job, error) {
	return f.Store.Update(ref, workspace, change)
}

func (f Files) Remove(_ context.Context, ref, workspace string) (Job, error) {
	return f.Store.Remove(ref, workspace)
}

func (f Files) Runs(_ context.Context, ref, workspace string, limit int) (Job, []Run, error) {
	return f.Store.Runs(ref, workspace, limit)
}

func (f Files) RunJob(ctx context.Context, ref, workspace, trigger string, run Runner) (Run, error) {
	return f.Store.RunJob(ctx, ref, workspace, trigger, run)
}

func (f Files) RunDue(ctx context.Context, run Runner) ([]Outcome, error) {
	return f.Store.RunDue(ctx, run)
}

// SetClock replaces the store's clock (`clawseed cron run-due --now`).
func (f Files) SetClock(now func() time.Time) { f.Store.Now = now }

// Clocked is a store whose clock can be replaced: [Files] and the
// database's.
type Clocked interface{ SetClock(now func() time.Time) }
