package cronriver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/clawseed/clawseed/internal/pgtest"
	"github.com/clawseed/clawseed/runtime/cron"
	"github.com/clawseed/clawseed/runtime/pgstore"
)

// pg is the package's PostgreSQL server (internal/pgtest).
var pg = pgtest.New()

func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }

// tick is the leader's tick in these tests (River's shortest).
const tick = time.Second

// clock is a fake clock that runs scale times faster than the real one
// from base, so that a schedule in whole minutes comes due every few
// seconds.
type clock struct {
	mu    sync.Mutex
	base  time.Time
	start time.Time
	scale time.Duration
}

func newClock(base time.Time, scale time.Duration) *clock {
	return &clock{base: base, start: time.Now(), scale: scale}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base.Add(c.scale * time.Since(c.start))
}

// set restarts the clock at base.
func (c *clock) set(base time.Time, scale time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.base, c.start, c.scale = base, time.Now(), scale
}

// A run is one call of the runner: which replica ran which job, and when
// on the fake clock (the claimed job's last run).
type run struct {
	replica int
	job     string
	start   time.Time
}

// recorder is the replicas' runner: it records every call.
type recorder struct {
	mu   sync.Mutex
	runs []run
}

func (r *recorder) runner(replica int) cron.Runner {
	return func(_ context.Context, j cron.Job) cron.Result {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.runs = append(r.runs, run{replica: replica, job: j.ID, start: *j.LastRun})
		return cron.Result{Status: cron.StatusOK, Output: "ran"}
	}
}

func (r *recorder) all() []run {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.runs)
}

// waitRuns waits until the recorder has n runs, failing t after limit.
func (r *recorder) waitRuns(t *testing.T, n int, limit time.Duration) []run {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		runs := r.all()
		if len(runs) >= n {
			return runs
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d runs after %s, want %d: %+v", len(runs), limit, n, runs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// replica is one `clawseed serve` process's share: its own pool, job
// store and River client.
type replica struct {
	name   string
	store  *pgstore.Jobs
	cancel context.CancelFunc
	stop   func()
}

// newDatabase returns the URL of a new database with clawseed's and
// River's tables.
func newDatabase(t *testing.T) string {
	t.Helper()
	url := pg.Database(t)
	db, err := pgstore.Open(t.Context(), url, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := Check(t.Context(), db.Pool(), pgstore.Schema); !errors.Is(err, ErrNotMigrated) {
		t.Errorf("Check before River's migrations: %v, want ErrNotMigrated", err)
	}
	if _, err := Migrate(t.Context(), db.Pool(), pgstore.Schema); err != nil {
		t.Fatal(err)
	}
	return url
}

// startReplicas starts n replicas on the database at url, each running
// jobs through rec.
func startReplicas(t *testing.T, url string, n int, c *clock, rec *recorder) []*replica {
	t.Helper()
	var out []*replica
	for i := range n {
		db, err := pgstore.Open(t.Context(), url, 6)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		s := db.Jobs()
		s.Now = c.Now
		ctx, cancel := context.WithCancel(context.Background())
		name := fmt.Sprintf("replica%d", i)
		stop, err := Start(ctx, Options{Pool: db.Pool(), Schema: pgstore.Schema, Store: s, Run: rec.runner(i),
			Tick: tick, Now: c.Now, ID: name, test: true})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		t.Cleanup(func() { cancel(); stop() }) // before db.Close
		out = append(out, &replica{name: name, store: s, cancel: cancel, stop: stop})
	}
	return out
}

// minute is the start of the fake clock: a whole minute.
var minute = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

// TestDueOnceRunsOnce: three replicas, one job due once (its next due time
// an hour later) → it runs exactly once, though every replica works ticks
// and due times for several seconds.
func TestDueOnceRunsOnce(t *testing.T) {
	t.Parallel()
	url := newDatabase(t)
	c := newClock(minute, 0) // stopped while the job is added
	rec := &recorder{}
	reps := startReplicas(t, url, 3, c, rec)
	j, err := reps[0].store.Add(t.Context(), cron.Job{Name: "once", Schedule: "every 1h", Kind: cron.KindShell, Command: "x", Workspace: "/ws"})
	if err != nil {
		t.Fatal(err)
	}
	c.set(j.NextRun, 1) // due now, and not again for an hour
	runs := rec.waitRuns(t, 1, 20*time.Second)
	time.Sleep(5 * tick) // more ticks on every replica
	if runs = rec.all(); len(runs) != 1 {
		t.Fatalf("the job ran %d times, want 1: %+v", len(runs), runs)
	}
	_, hist, err := reps[2].store.Runs(t.Context(), j.ID, "", 0)
	if err != nil || len(hist) != 1 || hist[0].Status != cron.StatusOK || hist[0].Trigger != cron.TriggerSchedule {
		t.Errorf("run history = %+v, %v", hist, err)
	}
}

// scale makes a fake minute 5 real seconds: a job "every 1m" is due every
// 5 s, and 12 fake seconds pass between two ticks.
const scale = 12

// checkSequence fails t unless runs are of job id, one per fake minute,
// without a minute missing between the first and the last.
func checkSequence(t *testing.T, runs []run, id string) {
	t.Helper()
	seen := map[time.Time]int{}
	for _, r := range runs {
		if r.job != id {
			t.Errorf("run of job %s", r.job)
		}
		seen[r.start.Truncate(time.Minute)]++
	}
	var minutes []time.Time
	for m, n := range seen {
		if n > 1 {
			t.Errorf("due time %s ran %d times", m.Format(time.TimeOnly), n)
		}
		minutes = append(minutes, m)
	}
	slices.SortFunc(minutes, time.Time.Compare)
	for i := 1; i < len(minutes); i++ {
		if gap := minutes[i].Sub(minutes[i-1]); gap != time.Minute {
			t.Errorf("no run between %s and %s", minutes[i-1].Format(time.TimeOnly), minutes[i].Format(time.TimeOnly))
		}
	}
}

// TestEveryMinuteNoDuplicatesNoMisses: a job due every (fake) minute, run
// by three replicas over a window of several due times, runs each due time
// once and misses none.
func TestEveryMinuteNoDuplicatesNoMisses(t *testing.T) {
	t.Parallel()
	url := newDatabase(t)
	c := newClock(minute, 0)
	rec := &recorder{}
	reps := startReplicas(t, url, 3, c, rec)
	j, err := reps[0].store.Add(t.Context(), cron.Job{Name: "tick", Schedule: "every 1m", Kind: cron.KindShell, Command: "x", Workspace: "/ws"})
	if err != nil {
		t.Fatal(err)
	}
	c.set(minute, scale)
	const want = 5
	runs := rec.waitRuns(t, want, (want+3)*time.Minute/scale)
	checkSequence(t, runs, j.ID)
	if !runs[0].start.Truncate(time.Minute).Equal(j.NextRun) {
		t.Errorf("first run at %s, want the job's first due time %s", runs[0].start, j.NextRun)
	}
	// The runner is called before its run is stored, and the clock keeps
	// going: a run may be between the two when the runs above arrived.
	// Every runner call must be stored within a few seconds.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, hist, _ := reps[1].store.Runs(t.Context(), j.ID, "", 0)
		got := rec.all()
		if len(hist) >= len(runs) && len(hist) == len(got) {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("%d runs recorded, %d runner calls", len(hist), len(got))
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestReplicaStoppedOthersRun: the replica that leads (enqueues the ticks)
// is stopped mid-way; the others elect a leader and go on running the
// job's due times, none twice, none missed.
func TestReplicaStoppedOthersRun(t *testing.T) {
	t.Parallel()
	url := newDatabase(t)
	c := newClock(minute, 0)
	rec := &recorder{}
	reps := startReplicas(t, url, 3, c, rec)
	j, err := reps[0].store.Add(t.Context(), cron.Job{Name: "tick", Schedule: "every 1m", Kind: cron.KindShell, Command: "x", Workspace: "/ws"})
	if err != nil {
		t.Fatal(err)
	}
	c.set(minute, scale)
	rec.waitRuns(t, 2, 5*time.Minute/scale)
	leader := leaderOf(t, url, reps)
	reps[leader].cancel()
	reps[leader].stop()
	stopped := len(rec.all())
	runs := rec.waitRuns(t, stopped+3, 6*time.Minute/scale)
	checkSequence(t, runs, j.ID)
	for _, r := range runs[stopped:] {
		if r.replica == leader {
			t.Errorf("the stopped replica ran a job: %+v", r)
		}
	}
}

// leaderOf returns the index of the replica River elected, from River's
// leader table.
func leaderOf(t *testing.T, url string, reps []*replica) int {
	t.Helper()
	db, err := pgstore.Open(t.Context(), url, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var id string
	if err := db.Pool().QueryRow(t.Context(), "SELECT leader_id FROM "+pgstore.Schema+".river_leader").Scan(&id); err != nil {
		t.Fatal(err)
	}
	for i, r := range reps {
		if r.name == id {
			return i
		}
	}
	t.Fatalf("leader %q is none of the replicas", id)
	return -1
}
