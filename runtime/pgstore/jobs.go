package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/clawseed/clawseed/runtime/cron"
)

// Schema is the database schema that holds clawseed's tables, River's
// included (runtime/cronriver).
const Schema = "clawseed"

// Pool is the database's pool, for River, which runs the scheduled jobs
// on the same database.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Jobs is the scheduled-job store on PostgreSQL (cron.Jobs): the rules of
// runtime/cron over rows of clawseed.cron_jobs and clawseed.cron_runs.
// Changes to the jobs are serialized by a table lock (they are rare; reads
// never wait). A run holds its job's advisory lock on a connection of its
// own (one of the database's lock connections), so a job never runs twice
// at once on any replica ([cron.ErrRunning]), and the lock goes with a
// process that dies; its claim and its run row are written in one
// transaction, and a scheduled run's row is unique per due time, so each
// due time runs once across replicas.
type Jobs struct {
	db *DB
	// Now is the clock (nil = time.Now); tests replace it.
	Now func() time.Time
	// NewID returns a new job id (nil = cron.NewID).
	NewID func() string

	mu sync.Mutex // guards Now through SetClock
}

var _ cron.Jobs = (*Jobs)(nil)

// Jobs returns the database's job store.
func (db *DB) Jobs() *Jobs { return &Jobs{db: db} }

// SetClock replaces the clock (`clawseed cron run-due --now`).
func (s *Jobs) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Now = now
}

// now is the clock's time as the database keeps it (microseconds), so a
// job returned is the job stored.
func (s *Jobs) now() time.Time {
	s.mu.Lock()
	now := s.Now
	s.mu.Unlock()
	if now == nil {
		now = time.Now
	}
	return now().Truncate(time.Microsecond)
}

func (s *Jobs) newID() string {
	if s.NewID != nil {
		return s.NewID()
	}
	return cron.NewID()
}

const jobColumns = `id, workspace, name, kind, schedule, prompt, command, skills, args, enabled, created, next_run, last_run, last_status`

func scanJob(row pgx.Row) (cron.Job, error) {
	var j cron.Job
	err := row.Scan(&j.ID, &j.Workspace, &j.Name, &j.Kind, &j.Schedule, &j.Prompt, &j.Command, &j.Skills, &j.Args,
		&j.Enabled, &j.Created, &j.NextRun, &j.LastRun, &j.LastStatus)
	// The files store leaves empty lists out.
	if len(j.Skills) == 0 {
		j.Skills = nil
	}
	if len(j.Args) == 0 {
		j.Args = nil
	}
	return j, err
}

// list returns the jobs of workspace ("" = every one) in the order added.
func (s *Jobs) list(ctx context.Context, q querier, workspace string) ([]cron.Job, error) {
	rows, err := q.Query(ctx, `SELECT `+jobColumns+` FROM clawseed.cron_jobs
		WHERE $1 = '' OR workspace = $1 ORDER BY seq`, workspace)
	if err != nil {
		return nil, fmt.Errorf("read cron jobs: %w", err)
	}
	jobs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (cron.Job, error) { return scanJob(r) })
	if err != nil {
		return nil, fmt.Errorf("read cron jobs: %w", err)
	}
	return jobs, nil
}

// List returns the jobs of workspace ("" = every workspace), oldest first.
func (s *Jobs) List(ctx context.Context, workspace string) ([]cron.Job, error) {
	return s.list(ctx, s.db.pool, workspace)
}

// Get returns the job whose id, or failing that whose name, is ref.
func (s *Jobs) Get(ctx context.Context, ref, workspace string) (cron.Job, error) {
	jobs, err := s.list(ctx, s.db.pool, workspace)
	if err != nil {
		return cron.Job{}, err
	}
	i, err := cron.Find(jobs, ref, workspace)
	if err != nil {
		return cron.Job{}, err
	}
	return jobs[i], nil
}

// modify runs change on every job in a transaction that holds the table's
// write lock, so two changes never decide on the same list (the limit,
// unique names).
func (s *Jobs) modify(ctx context.Context, change func(tx pgx.Tx, jobs []cron.Job) error) error {
	return pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "LOCK TABLE clawseed.cron_jobs IN SHARE ROW EXCLUSIVE MODE"); err != nil {
			return fmt.Errorf("lock cron jobs: %w", err)
		}
		jobs, err := s.list(ctx, tx, "")
		if err != nil {
			return err
		}
		return change(tx, jobs)
	})
}

// Add validates j, gives it an id, its creation time and next run, enables
// it and stores it (cron.PrepareAdd).
func (s *Jobs) Add(ctx context.Context, j cron.Job) (cron.Job, error) {
	var added cron.Job
	err := s.modify(ctx, func(tx pgx.Tx, jobs []cron.Job) error {
		var err error
		if added, err = cron.PrepareAdd(jobs, j, s.now(), s.newID); err != nil {
			return err
		}
		a := added
		_, err = tx.Exec(ctx, `INSERT INTO clawseed.cron_jobs (`+jobColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
			a.ID, a.Workspace, a.Name, a.Kind, a.Schedule, a.Prompt, a.Command, nonNil(a.Skills), nonNil(a.Args),
			a.Enabled, a.Created, a.NextRun, a.LastRun, a.LastStatus)
		if err != nil {
			return fmt.Errorf("add cron job: %w", err)
		}
		return nil
	})
	return added, err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Update applies change to the job ref names and stores it
// (cron.PrepareUpdate).
func (s *Jobs) Update(ctx context.Context, ref, workspace string, change func(*cron.Job) error) (cron.Job, error) {
	var updated cron.Job
	err := s.modify(ctx, func(tx pgx.Tx, jobs []cron.Job) error {
		_, j, err := cron.PrepareUpdate(jobs, ref, workspace, s.now(), change)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE clawseed.cron_jobs SET name = $2, schedule = $3, prompt = $4, command = $5,
			skills = $6, args = $7, enabled = $8, next_run = $9, last_run = $10, last_status = $11 WHERE id = $1`,
			j.ID, j.Name, j.Schedule, j.Prompt, j.Command, nonNil(j.Skills), nonNil(j.Args), j.Enabled,
			j.NextRun.Truncate(time.Microsecond), j.LastRun, j.LastStatus)
		if err != nil {
			return fmt.Errorf("update cron job: %w", err)
		}
		updated = j
		return nil
	})
	return updated, err
}

// Remove deletes the job ref names and its runs.
func (s *Jobs) Remove(ctx context.Context, ref, workspace string) (cron.Job, error) {
	var removed cron.Job
	err := s.modify(ctx, func(tx pgx.Tx, jobs []cron.Job) error {
		i, err := cron.Find(jobs, ref, workspace)
		if err != nil {
			return err
		}
		removed = jobs[i]
		if _, err := tx.Exec(ctx, "DELETE FROM clawseed.cron_jobs WHERE id = $1", removed.ID); err != nil {
			return fmt.Errorf("remove cron job: %w", err)
		}
		return nil
	})
	return removed, err
}

// Due returns the jobs due at now, the most overdue first (cron.DueJobs).
func (s *Jobs) Due(ctx context.Context, now time.Time) ([]cron.Job, error) {
	rows, err := s.db.pool.Query(ctx, `SELECT `+jobColumns+` FROM clawseed.cron_jobs
		WHERE enabled AND next_run <= $1 ORDER BY seq`, now)
	if err != nil {
		return nil, fmt.Errorf("read due cron jobs: %w", err)
	}
	jobs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (cron.Job, error) { return scanJob(r) })
	if err != nil {
		return nil, fmt.Errorf("read due cron jobs: %w", err)
	}
	return cron.DueJobs(jobs, now), nil
}

// Runs returns the last limit finished runs (0 = all kept) of the job ref
// names, oldest first.
func (s *Jobs) Runs(ctx context.Context, ref, workspace string, limit int) (cron.Job, []cron.Run, error) {
	j, err := s.Get(ctx, ref, workspace)
	if err != nil {
		return cron.Job{}, nil, err
	}
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := s.db.pool.Query(ctx, `SELECT trigger, started, ended, status, session, output FROM clawseed.cron_runs
		WHERE job_id = $1 AND status IS NOT NULL ORDER BY seq DESC LIMIT $2`, j.ID, lim)
	if err != nil {
		return j, nil, fmt.Errorf("read run history: %w", err)
	}
	runs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (cron.Run, error) {
		run := cron.Run{Job: j.ID}
		return run, r.Scan(&run.Trigger, &run.Start, &run.End, &run.Status, &run.Session, &run.Output)
	})
	if err != nil {
		return j, nil, fmt.Errorf("read run history: %w", err)
	}
	slices.Reverse(runs)
	return j, runs, nil
}

// RunJob runs the job ref names now (see [Jobs.RunScheduled] for a due
// time).
func (s *Jobs) RunJob(ctx context.Context, ref, workspace, trigger string, run cron.Runner) (cron.Run, error) {
	j, err := s.Get(ctx, ref, workspace)
	if err != nil {
		return cron.Run{}, err
	}
	return s.runJob(ctx, j.ID, trigger, nil, run)
}

// RunScheduled runs job id for the time it was due at, unless that time
// has been run (or the job changed) since: [cron.ErrNotDue]. It is what
// a replica's River worker calls with the due time its job carries.
func (s *Jobs) RunScheduled(ctx context.Context, id string, due time.Time, run cron.Runner) (cron.Run, error) {
	return s.runJob(ctx, id, cron.TriggerSchedule, &due, run)
}

// RunDue runs every job due now, each in its own goroutine, and waits for
// them; each due time runs once across every process that looks.
func (s *Jobs) RunDue(ctx context.Context, run cron.Runner) ([]cron.Outcome, error) {
	due, err := s.Due(ctx, s.now())
	if err != nil {
		return nil, err
	}
	out := make([]cron.Outcome, len(due))
	var wg sync.WaitGroup
	for i, j := range due {
		wg.Go(func() {
			r, err := s.RunScheduled(ctx, j.ID, j.NextRun, run)
			out[i] = cron.Outcome{Job: j, Run: r, Err: err}
		})
	}
	wg.Wait()
	return out, nil
}

// recordTimeout bounds recording a run whose context ended (a cancelled
// run is recorded too).
const recordTimeout = 30 * time.Second

// runJob takes the job's lock, closes the runs a dead process left open,
// claims the run (a scheduled one for the time due, or the job's next run
// when due is nil), runs it and records it.
func (s *Jobs) runJob(ctx context.Context, id, trigger string, due *time.Time, run cron.Runner) (cron.Run, error) {
	conn, err := s.jobLock(ctx, id)
	if err != nil {
		return cron.Run{}, err
	}
	defer unlock(conn)
	if err := s.closeInterrupted(ctx, id); err != nil {
		return cron.Run{}, err
	}
	start := s.now()
	j, seq, err := s.claim(ctx, id, trigger, due, start)
	if err != nil {
		return cron.Run{}, err
	}
	r := cron.Execute(ctx, j, trigger, start, s.now, run)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err := s.record(rctx, seq, r); err != nil {
		return r, fmt.Errorf("job %s ran, but its run was not recorded: %w", j.ID, err)
	}
	return r, nil
}

// jobLockSQL is the advisory lock key of job $1, in a name space of its
// own (sessions and migrations have others).
const jobLockSQL = "hashtextextended('clawseed.cron:' || $1, 0)"

// jobLock takes a lock connection holding job id's advisory lock, or
// fails with cron.ErrRunning when another connection holds it. The lock
// lasts until [unlock] (or until the connection dies with its process).
func (s *Jobs) jobLock(ctx context.Context, id string) (*pgxpool.Conn, error) {
	conn, err := s.db.locks.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres %s: %w", s.db.Location(), err)
	}
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock("+jobLockSQL+")", id).Scan(&ok); err != nil {
		unlock(conn)
		return nil, fmt.Errorf("lock cron job: %w", err)
	}
	if !ok {
		unlock(conn)
		return nil, cron.ErrRunning
	}
	return conn, nil
}

// interruptedNote ends the output of a run whose process stopped before
// recording it.
const interruptedNote = "\n[interrupted: the process running the job stopped before the run ended]"

// closeInterrupted marks the runs of job id still open as failed: the
// caller holds the job's lock, so no live process runs them.
func (s *Jobs) closeInterrupted(ctx context.Context, id string) error {
	_, err := s.db.pool.Exec(ctx, `UPDATE clawseed.cron_runs SET status = $2, ended = $3, output = output || $4
		WHERE job_id = $1 AND status IS NULL`, id, cron.StatusError, s.now(), interruptedNote)
	if err != nil {
		return fmt.Errorf("cron job %s: close interrupted runs: %w", id, err)
	}
	return nil
}

// claim starts a run of job id at start (cron.Claim) and writes its open
// run row, in one transaction with the job's row locked. A scheduled run
// is for the job's next run, which must be due (when given) and not run
// yet: otherwise cron.ErrNotDue. It returns the job as claimed and the
// run row's seq.
func (s *Jobs) claim(ctx context.Context, id, trigger string, due *time.Time, start time.Time) (cron.Job, int64, error) {
	var (
		j       cron.Job
		seq     int64
		already bool
	)
	err := pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		already = false
		var err error
		j, err = scanJob(tx.QueryRow(ctx, `SELECT `+jobColumns+` FROM clawseed.cron_jobs WHERE id = $1 FOR UPDATE`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w %q", cron.ErrNotFound, id)
		}
		if err != nil {
			return fmt.Errorf("claim cron job: %w", err)
		}
		var dueAt *time.Time
		if trigger == cron.TriggerSchedule {
			if due != nil && !j.NextRun.Equal(*due) {
				return cron.ErrNotDue // run, or rescheduled, since
			}
			next := j.NextRun
			dueAt = &next
		}
		if err := cron.Claim(&j, trigger, start); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE clawseed.cron_jobs SET next_run = $2, last_run = $3 WHERE id = $1",
			id, j.NextRun.Truncate(time.Microsecond), start); err != nil {
			return fmt.Errorf("claim cron job: %w", err)
		}
		err = tx.QueryRow(ctx, `INSERT INTO clawseed.cron_runs (job_id, trigger, due, started) VALUES ($1, $2, $3, $4)
			ON CONFLICT (job_id, due) DO NOTHING RETURNING seq`, id, trigger, dueAt, start).Scan(&seq)
		if errors.Is(err, pgx.ErrNoRows) {
			// This due time ran already; the next run moves on (committed)
			// so the job does not stay due for a time that is done.
			already = true
			return nil
		}
		if err != nil {
			return fmt.Errorf("claim cron job: %w", err)
		}
		return nil
	})
	switch {
	case err != nil:
		return cron.Job{}, 0, err
	case already:
		return cron.Job{}, 0, cron.ErrNotDue
	}
	return j, seq, nil
}

// record closes run row seq with r, sets the job's last status and keeps
// the last cron.KeepRuns runs. A job removed while it ran keeps nothing.
func (s *Jobs) record(ctx context.Context, seq int64, r cron.Run) error {
	return pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE clawseed.cron_runs SET ended = $3, status = $4, session = $5, output = $6
			WHERE job_id = $1 AND seq = $2`, r.Job, seq, r.End, r.Status, r.Session, r.Output)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE clawseed.cron_jobs SET last_status = $2 WHERE id = $1", r.Job, r.Status); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM clawseed.cron_runs WHERE job_id = $1 AND status IS NOT NULL AND seq <=
			(SELECT seq FROM clawseed.cron_runs WHERE job_id = $1 AND status IS NOT NULL ORDER BY seq DESC OFFSET $2 LIMIT 1)`,
			r.Job, cron.KeepRuns)
		return err
	})
}
