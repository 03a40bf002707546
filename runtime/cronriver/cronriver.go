// Package cronriver runs the scheduled jobs of a database-backed job store
// on River (riverqueue/river), so that `clawseed serve` replicas sharing
// one PostgreSQL database run each due time of each job exactly once,
// whichever replicas are up.
//
// Every replica runs a River client on the database. River elects one
// leader among them, and only the leader enqueues periodic jobs: a tick
// (every [DefaultTick]), whose worker, on any replica, reads the jobs due
// now and enqueues one River job per job and due time, unique by its
// arguments (job id + due time), so ticks that overlap (a new leader's
// first tick, a slow one) enqueue each due time once. Any replica's worker
// then runs it through the store ([Store.RunScheduled]), which claims the
// due time in the same transaction that moves the job's next run on, so
// even a River job delivered twice (retried after its replica died) runs
// the job once. How a job is run is the [cron.Runner]'s (in clawseed, a
// `cron exec` child process).
package cronriver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/clawseed/clawseed/runtime/cron"
)

// Defaults of [Options].
const (
	// DefaultTick is how often the leader looks for due jobs: as often as
	// a chat's scheduler does (schedules are in whole minutes).
	DefaultTick = 30 * time.Second
	// DefaultWorkers is how many jobs a replica runs at once.
	DefaultWorkers = 10
)

// Names in River.
const (
	// Queue is the River queue of clawseed's job runs; the ticks have
	// one of their own, so that long runs filling every worker never hold
	// back the look for due jobs.
	Queue     = "clawseed_cron"
	queueTick = "clawseed_cron_tick"
	kindTick  = "clawseed_cron_tick"
	kindRun   = "clawseed_cron_run"
)

// Limits of a run's River job.
const (
	// runAttempts is how often a run whose store failed (the database
	// unreachable) is tried before River discards it; the next tick
	// enqueues the job again while it is due.
	runAttempts = 5
	// jobTimeout bounds a run's River job: the run's own bound and the
	// time its process has to stop.
	jobTimeout = cron.MaxRunTime + time.Minute
	// softStop is how long jobs may go on after the context given to
	// [Start] ends before River cancels them.
	softStop = 10 * time.Second
)

// A Store is what the workers need of the job store (runtime/pgstore's
// Jobs).
type Store interface {
	// Due returns the jobs due at now.
	Due(ctx context.Context, now time.Time) ([]cron.Job, error)
	// RunScheduled runs job id for the time it was due at, once across
	// every replica: cron.ErrNotDue when that time has been run (or the job
	// changed) since, cron.ErrRunning while a run of the job is under way,
	// cron.ErrNotFound when the job is gone.
	RunScheduled(ctx context.Context, id string, due time.Time, run cron.Runner) (cron.Run, error)
}

// Options configure a replica's River client.
type Options struct {
	// Pool is the database's pool; River's tables are in Schema.
	Pool   *pgxpool.Pool
	Schema string
	Store  Store
	// Run runs one job.
	Run cron.Runner
	// Tick is how often the leader looks for due jobs (0 = DefaultTick;
	// River allows no less than a second).
	Tick time.Duration
	// Workers is how many jobs this replica runs at once (0 =
	// DefaultWorkers).
	Workers int
	// Now is the clock of due times (nil = time.Now); tests replace it.
	Now func() time.Time
	// ID names this replica's River client ("" = a random id); no two
	// running clients may share one.
	ID string
	// Log receives River's warnings and errors, and the runs that could
	// not be recorded (nil = discarded).
	Log *slog.Logger

	// test makes River skip its start-up jitter (tests of this package).
	test bool
}

// tickArgs is the leader's periodic tick.
type tickArgs struct{}

func (tickArgs) Kind() string { return kindTick }

func (tickArgs) InsertOpts() river.InsertOpts {
	// A failed tick is not retried: the next one looks again.
	return river.InsertOpts{Queue: queueTick, MaxAttempts: 1}
}

// runArgs is one due time of one job. Both fields make its unique key.
type runArgs struct {
	Job string    `json:"job"`
	Due time.Time `json:"due"`
}

func (runArgs) Kind() string { return kindRun }

// argsFor is the due time of a due job as River's arguments: in UTC, since
// the unique key is the arguments' JSON, which would otherwise carry the
// zone of the replica that read the time.
func argsFor(j cron.Job) runArgs { return runArgs{Job: j.ID, Due: j.NextRun.UTC()} }

func (runArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: runAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// Start starts this replica's River client: it takes part in the leader
// election, and its workers run due jobs. The database must have River's
// migrations ([Migrate]). stop cancels the runs in progress, waits until
// they are recorded and stops the client; so does the end of ctx (after
// a short grace).
func Start(ctx context.Context, o Options) (stop func(), err error) {
	if err := Check(ctx, o.Pool, o.Schema); err != nil {
		return nil, err
	}
	client, err := newClient(o)
	if err != nil {
		return nil, err
	}
	if err := client.Start(ctx); err != nil {
		return nil, fmt.Errorf("start River: %w", err)
	}
	return func() {
		// Running jobs' contexts end: their processes get SIGINT, and the
		// runs are recorded as cancelled before the workers return.
		_ = client.StopAndCancel(context.Background())
	}, nil
}

func newClient(o Options) (*river.Client[pgx.Tx], error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	tick := o.Tick
	if tick <= 0 {
		tick = DefaultTick
	}
	n := o.Workers
	if n <= 0 {
		n = DefaultWorkers
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, job *river.Job[tickArgs]) error {
		return enqueueDue(ctx, o.Store, now())
	}))
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, job *river.Job[runArgs]) error {
		return runDue(ctx, o.Store, o.Run, job.Args, log)
	}))
	client, err := river.NewClient(riverpgxv5.New(o.Pool), &river.Config{
		ID:     o.ID,
		Schema: o.Schema,
		Queues: map[string]river.QueueConfig{Queue: {MaxWorkers: n}, queueTick: {MaxWorkers: 1}},
		PeriodicJobs: []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(tick),
			func() (river.JobArgs, *river.InsertOpts) { return tickArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true})},
		Workers:         workers,
		JobTimeout:      jobTimeout,
		SoftStopTimeout: softStop,
		Logger:          log,
		TestOnly:        o.test,
	})
	if err != nil {
		return nil, fmt.Errorf("River client: %w", err)
	}
	return client, nil
}

// enqueueDue is a tick's work: one River job per due job and due time.
// River's unique keys drop the ones enqueued already.
func enqueueDue(ctx context.Context, store Store, now time.Time) error {
	due, err := store.Due(ctx, now)
	if err != nil || len(due) == 0 {
		return err
	}
	params := make([]river.InsertManyParams, 0, len(due))
	for _, j := range due {
		params = append(params, river.InsertManyParams{Args: argsFor(j)})
	}
	if _, err := river.ClientFromContext[pgx.Tx](ctx).InsertMany(ctx, params); err != nil {
		return fmt.Errorf("enqueue due cron jobs: %w", err)
	}
	return nil
}

// snooze is how long a due time waits when a run of its job is under way
// (a manual run, or a run of an earlier due time that is still going).
const snooze = 30 * time.Second

// runDue is a run job's work. A due time that is done, or a job that is
// gone, completes the River job; a job that is running waits; a run that
// could not be recorded is logged (retrying would not bring its output
// back: the next claim closes it as interrupted).
func runDue(ctx context.Context, store Store, run cron.Runner, a runArgs, log *slog.Logger) error {
	r, err := store.RunScheduled(ctx, a.Job, a.Due, run)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, cron.ErrNotDue), errors.Is(err, cron.ErrNotFound):
		return nil
	case errors.Is(err, cron.ErrRunning):
		return river.JobSnooze(snooze)
	case r.Job != "":
		log.Warn("Scheduled job", "job", a.Job, "error", err)
		return nil
	}
	return err
}
