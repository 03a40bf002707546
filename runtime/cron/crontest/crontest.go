// Package crontest is the conformance suite of the job stores (cron.Jobs):
// the files of cron.Store (through cron.Files) and the PostgreSQL store of
// runtime/pgstore run the same tests, so a job behaves the same whichever
// [storage].backend keeps it.
package crontest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/runtime/cron"
)

// An Opener opens one more handle on the store under test (as another
// process or replica would), with its clock and id source.
type Opener func(now func() time.Time, newID func() string) cron.Jobs

// Clock is a settable fake clock, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// T0 is the fake clock's start: 12:00:00 on a Monday, UTC.
var T0 = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

// Run runs the suite; newStore makes a new, empty store for a test and
// returns its opener.
func Run(t *testing.T, newStore func(t *testing.T) Opener) {
	tests := []struct {
		name string
		f    func(*testing.T, Opener)
	}{
		{"RoundTrip", testRoundTrip},
		{"Refusals", testRefusals},
		{"DueRunsOnce", testDueRunsOnce},
		{"ConcurrentRunDue", testConcurrentRunDue},
		{"StaleDueList", testStaleDueList},
		{"ManualRunKeepsSchedule", testManualRun},
		{"CancelledAndFailed", testCancelledAndFailed},
		{"HistoryKeepsLastRuns", testHistory},
		{"RemovedWhileRunning", testRemovedWhileRunning},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.f(t, newStore(t))
		})
	}
}

// open opens a handle on a fake clock at T0 with ids job1, job2, …
func open(o Opener) (cron.Jobs, *Clock) {
	c := NewClock(T0)
	var n atomic.Int32
	return o(c.Now, func() string { return fmt.Sprintf("job%d", n.Add(1)) }), c
}

// ShellJob is a shell job of workspace /ws.
func ShellJob(name, schedule, command string) cron.Job {
	return cron.Job{Name: name, Schedule: schedule, Kind: cron.KindShell, Command: command, Workspace: "/ws"}
}

func mustAdd(t *testing.T, s cron.Jobs, j cron.Job) cron.Job {
	t.Helper()
	added, err := s.Add(t.Context(), j)
	if err != nil {
		t.Fatalf("Add(%s): %v", j.Name, err)
	}
	return added
}

// counter counts runs and answers ok with the job's command.
type counter struct{ n atomic.Int32 }

func (c *counter) run(_ context.Context, j cron.Job) cron.Result {
	c.n.Add(1)
	return cron.Result{Status: cron.StatusOK, Output: "ran " + j.Command}
}

func testRoundTrip(t *testing.T, o Opener) {
	ctx := t.Context()
	s, _ := open(o)
	a := mustAdd(t, s, ShellJob("backup", "every 10m", "tar czf b.tgz src"))
	b := mustAdd(t, s, cron.Job{Name: "digest", Schedule: "TZ=UTC 0 9 * * 1-5", Kind: cron.KindPrompt, Prompt: "Summarise.", Skills: []string{"news"}, Workspace: "/other"})
	c := mustAdd(t, s, cron.Job{Name: "distill", Schedule: "@daily", Kind: cron.KindClawseed, Args: []string{"memory", "distill"}, Workspace: "/ws"})
	if a.ID != "job1" || !a.Enabled || !a.Created.Equal(T0) || !a.NextRun.Equal(T0.Add(10*time.Minute)) {
		t.Errorf("added job = %+v", a)
	}
	if want := time.Date(2025, 3, 11, 9, 0, 0, 0, time.UTC); !b.NextRun.Equal(want) {
		t.Errorf("next run of %s = %s, want %s", b.Name, b.NextRun, want)
	}
	other, _ := open(o)
	all, err := other.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]cron.Job{a, b, c}, all, cmp.Comparer(time.Time.Equal)); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	if mine, _ := other.List(ctx, "/ws"); len(mine) != 2 || mine[0].ID != a.ID || mine[1].ID != c.ID {
		t.Errorf("List(/ws) = %+v", mine)
	}
	for _, ref := range []string{"job1", "backup", " backup "} {
		if got, err := other.Get(ctx, ref, "/ws"); err != nil || got.ID != a.ID {
			t.Errorf("Get(%q) = %v, %v", ref, got.ID, err)
		}
	}
	if _, err := other.Get(ctx, "digest", "/ws"); !errors.Is(err, cron.ErrNotFound) {
		t.Errorf("Get of another workspace's job = %v, want ErrNotFound", err)
	}
	u, err := s.Update(ctx, "backup", "/ws", func(j *cron.Job) error {
		j.Command, j.Enabled = "make backup", false
		j.Workspace = "/elsewhere" // not changeable
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if u.Command != "make backup" || u.Enabled || !u.NextRun.Equal(a.NextRun) || u.Workspace != "/ws" {
		t.Errorf("updated = %+v", u)
	}
	if got, _ := other.Get(ctx, a.ID, ""); got.Command != "make backup" || got.Enabled {
		t.Errorf("update not stored: %+v", got)
	}
	if _, err := s.Update(ctx, "backup", "/ws", func(*cron.Job) error { return errors.New("no") }); err == nil {
		t.Error("a failing change was stored")
	}
	if r, err := s.Remove(ctx, a.ID, "/ws"); err != nil || r.ID != a.ID {
		t.Fatalf("Remove = %+v, %v", r, err)
	}
	if all, _ = other.List(ctx, ""); len(all) != 2 {
		t.Errorf("after Remove: %+v", all)
	}
	if _, err := s.Remove(ctx, a.ID, "/ws"); !errors.Is(err, cron.ErrNotFound) {
		t.Errorf("second Remove = %v", err)
	}
}

func testRefusals(t *testing.T, o Opener) {
	ctx := t.Context()
	s, _ := open(o)
	mustAdd(t, s, ShellJob("dup", "every 1h", "ls"))
	mustAdd(t, s, ShellJob("other", "every 1h", "ls"))
	for _, tt := range []struct {
		name string
		job  cron.Job
		want string
	}{
		{"bad schedule", ShellJob("x", "every 10s", "ls"), "at least 1m"},
		{"no name", ShellJob(" ", "every 1h", "ls"), "name must not be empty"},
		{"same name", ShellJob("dup", "every 1h", "ls"), `a job named "dup" exists already in this workspace (id job1)`},
		{"shell without command", ShellJob("x", "every 1h", " "), "needs a command"},
		{"bad kind", cron.Job{Name: "x", Schedule: "every 1h", Kind: "python", Workspace: "/ws"}, "kind must be"},
		{"relative workspace", cron.Job{Name: "x", Schedule: "every 1h", Kind: cron.KindShell, Command: "ls", Workspace: "ws"}, "not an absolute path"},
	} {
		if _, err := s.Add(ctx, tt.job); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Add = %v, want %q", tt.name, err, tt.want)
		}
	}
	// The same name in another workspace is another job.
	mustAdd(t, s, cron.Job{Name: "dup", Schedule: "every 1h", Kind: cron.KindShell, Command: "ls", Workspace: "/w2"})
	if _, err := s.Get(ctx, "dup", ""); err == nil || !strings.Contains(err.Error(), "2 jobs are named") {
		t.Errorf("ambiguous name: %v", err)
	}
	if _, err := s.Update(ctx, "other", "/ws", func(j *cron.Job) error { j.Name = "dup"; return nil }); err == nil {
		t.Error("renamed onto a taken name")
	}
	if _, err := s.Update(ctx, "other", "/ws", func(j *cron.Job) error { j.Schedule = "every"; return nil }); err == nil {
		t.Error("stored a bad schedule")
	}
	if j, _ := s.Get(ctx, "other", "/ws"); j.Name != "other" || j.Schedule != "every 1h" {
		t.Errorf("refused updates changed the job: %+v", j)
	}
}

// testDueRunsOnce: on a fake clock a job is not due before its time, runs
// once when due, records the run, and is not due again until its next
// time, counted from the minute the run started.
func testDueRunsOnce(t *testing.T, o Opener) {
	ctx := t.Context()
	s, c := open(o)
	j := mustAdd(t, s, ShellJob("tick", "every 10m", "date"))
	r := &counter{}
	c.Set(T0.Add(9*time.Minute + 59*time.Second))
	if outs, err := s.RunDue(ctx, r.run); err != nil || len(outs) != 0 {
		t.Fatalf("before its time: %+v, %v", outs, err)
	}
	due := T0.Add(10*time.Minute + 20*time.Second)
	c.Set(due)
	outs, err := s.RunDue(ctx, r.run)
	if err != nil || len(outs) != 1 || outs[0].Err != nil {
		t.Fatalf("when due: %+v, %v", outs, err)
	}
	if got := outs[0].Run; got.Status != cron.StatusOK || got.Output != "ran date" || got.Trigger != cron.TriggerSchedule || !got.Start.Equal(due) {
		t.Errorf("run = %+v", got)
	}
	if outs, _ := s.RunDue(ctx, r.run); len(outs) != 0 {
		t.Errorf("ran again at once: %+v", outs)
	}
	got, _ := s.Get(ctx, j.ID, "")
	if got.LastRun == nil || !got.LastRun.Equal(due) || got.LastStatus != cron.StatusOK {
		t.Errorf("job after run: last run %v, status %q", got.LastRun, got.LastStatus)
	}
	if want := T0.Add(20 * time.Minute); !got.NextRun.Equal(want) {
		t.Errorf("next run = %s, want %s", got.NextRun, want)
	}
	_, runs, err := s.Runs(ctx, j.Name, "", 0)
	if err != nil || len(runs) != 1 || runs[0].Output != "ran date" || !runs[0].Start.Equal(due) || runs[0].Job != j.ID {
		t.Errorf("history = %+v, %v", runs, err)
	}
	c.Set(T0.Add(20 * time.Minute))
	if outs, _ := s.RunDue(ctx, r.run); len(outs) != 1 || r.n.Load() != 2 {
		t.Errorf("second period: %+v, %d runs", outs, r.n.Load())
	}
	// A paused job is never due.
	if _, err := s.Update(ctx, j.ID, "", func(j *cron.Job) error { j.Enabled = false; return nil }); err != nil {
		t.Fatal(err)
	}
	c.Set(T0.Add(5 * time.Hour))
	if outs, _ := s.RunDue(ctx, r.run); len(outs) != 0 {
		t.Errorf("a paused job ran: %+v", outs)
	}
}

// testConcurrentRunDue: two passes at once, on two handles (two processes
// or replicas), run a due job once; a manual run while it runs is refused.
func testConcurrentRunDue(t *testing.T, o Opener) {
	s, c := open(o)
	j := mustAdd(t, s, ShellJob("slow", "every 10m", "sleep"))
	c.Set(T0.Add(10 * time.Minute))
	started, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	runner := func(ctx context.Context, j cron.Job) cron.Result {
		if calls.Add(1) == 1 {
			close(started)
		}
		<-release
		return cron.Result{Status: cron.StatusOK}
	}
	var wg sync.WaitGroup
	var first []cron.Outcome
	wg.Go(func() { first, _ = s.RunDue(context.Background(), runner) })
	<-started
	other := o(c.Now, nil)
	second, err := other.RunDue(context.Background(), runner)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range second {
		if !out.Skipped() {
			t.Errorf("second pass ran the job: %+v", out)
		}
	}
	if _, err := other.RunJob(context.Background(), j.ID, "", cron.TriggerManual, runner); !errors.Is(err, cron.ErrRunning) {
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
	if _, runs, _ := s.Runs(t.Context(), "slow", "", 0); len(runs) != 1 {
		t.Errorf("%d runs recorded, want 1", len(runs))
	}
}

// testStaleDueList: a pass that read the due list before another pass ran
// the job must not run it again.
func testStaleDueList(t *testing.T, o Opener) {
	ctx := t.Context()
	s, c := open(o)
	j := mustAdd(t, s, ShellJob("once", "every 10m", "date"))
	c.Set(T0.Add(10 * time.Minute))
	r := &counter{}
	if _, err := s.RunDue(ctx, r.run); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RunJob(ctx, j.ID, "", cron.TriggerSchedule, r.run); !errors.Is(err, cron.ErrNotDue) {
		t.Errorf("late pass: %v, want ErrNotDue", err)
	}
	if n := r.n.Load(); n != 1 {
		t.Errorf("ran %d times, want 1", n)
	}
}

func testManualRun(t *testing.T, o Opener) {
	ctx := t.Context()
	s, c := open(o)
	j := mustAdd(t, s, ShellJob("m", "every 1h", "date"))
	c.Set(T0.Add(5 * time.Minute))
	r := &counter{}
	run, err := s.RunJob(ctx, "m", "/ws", cron.TriggerManual, r.run)
	if err != nil || run.Trigger != cron.TriggerManual || run.Status != cron.StatusOK {
		t.Fatalf("manual run: %+v, %v", run, err)
	}
	got, _ := s.Get(ctx, j.ID, "")
	if !got.NextRun.Equal(j.NextRun) || got.LastRun == nil || !got.LastRun.Equal(T0.Add(5*time.Minute)) {
		t.Errorf("after a manual run: next %s (want %s), last %v", got.NextRun, j.NextRun, got.LastRun)
	}
	if _, err := s.RunJob(ctx, "m", "/elsewhere", cron.TriggerManual, r.run); !errors.Is(err, cron.ErrNotFound) {
		t.Errorf("run from another workspace: %v", err)
	}
	if _, err := s.RunJob(ctx, "m", "", cron.TriggerSchedule, r.run); !errors.Is(err, cron.ErrNotDue) {
		t.Errorf("scheduled run before its time: %v, want ErrNotDue", err)
	}
}

func testCancelledAndFailed(t *testing.T, o Opener) {
	s, _ := open(o)
	mustAdd(t, s, ShellJob("c", "every 1h", "sleep"))
	ctx, cancel := context.WithCancel(t.Context())
	run, err := s.RunJob(ctx, "c", "", cron.TriggerManual, func(ctx context.Context, j cron.Job) cron.Result {
		cancel()
		<-ctx.Done()
		return cron.Result{Status: cron.StatusOK, Output: "partial"}
	})
	if err != nil || run.Status != cron.StatusCancelled {
		t.Errorf("cancelled run: %+v, %v", run, err)
	}
	run, _ = s.RunJob(t.Context(), "c", "", cron.TriggerManual, func(context.Context, cron.Job) cron.Result { return cron.Result{Output: "no status"} })
	if run.Status != cron.StatusError {
		t.Errorf("a run without a status is %q, want error", run.Status)
	}
	j, runs, _ := s.Runs(t.Context(), "c", "", 0)
	if j.LastStatus != cron.StatusError || len(runs) != 2 || runs[0].Status != cron.StatusCancelled || runs[0].Output != "partial" {
		t.Errorf("last status %q, runs %+v", j.LastStatus, runs)
	}
}

func testHistory(t *testing.T, o Opener) {
	ctx := t.Context()
	s, _ := open(o)
	mustAdd(t, s, ShellJob("h", "every 1h", "x"))
	long := strings.Repeat("x", cron.OutputTail+500) + "END"
	for i := range cron.KeepRuns + 5 {
		out := fmt.Sprint("run ", i)
		if i == cron.KeepRuns+4 {
			out = long
		}
		if _, err := s.RunJob(ctx, "h", "", cron.TriggerManual, func(context.Context, cron.Job) cron.Result {
			return cron.Result{Status: cron.StatusOK, Output: out}
		}); err != nil {
			t.Fatal(err)
		}
	}
	_, runs, _ := s.Runs(ctx, "h", "", 0)
	if len(runs) != cron.KeepRuns || runs[0].Output != "run 5" {
		t.Fatalf("%d runs kept (first %q), want %d from run 5", len(runs), runs[0].Output, cron.KeepRuns)
	}
	last := runs[len(runs)-1].Output
	if !strings.HasSuffix(last, "END") || !strings.HasPrefix(last, "[... earlier output cut ...]") {
		t.Errorf("long output not cut to its tail: %.60q…", last)
	}
	if _, some, _ := s.Runs(ctx, "h", "", 3); len(some) != 3 || some[2].Output != last {
		t.Errorf("limit 3 gave %d", len(some))
	}
	if _, err := s.Remove(ctx, "h", ""); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, ShellJob("h", "every 1h", "x"))
	if _, runs, _ := s.Runs(ctx, "h", "", 0); len(runs) != 0 {
		t.Errorf("a new job of the same name has %d runs", len(runs))
	}
}

// testRemovedWhileRunning: the run is not recorded and nothing fails.
func testRemovedWhileRunning(t *testing.T, o Opener) {
	s, _ := open(o)
	mustAdd(t, s, ShellJob("gone", "every 1h", "x"))
	_, err := s.RunJob(t.Context(), "gone", "", cron.TriggerManual, func(context.Context, cron.Job) cron.Result {
		if _, err := s.Remove(t.Context(), "gone", ""); err != nil {
			t.Error(err)
		}
		return cron.Result{Status: cron.StatusOK}
	})
	if err != nil {
		t.Errorf("RunJob = %v", err)
	}
	if all, _ := s.List(t.Context(), ""); len(all) != 0 {
		t.Errorf("job came back: %+v", all)
	}
}
