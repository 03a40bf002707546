package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/pgtest"
	"github.com/clawseed/clawseed/runtime/cron"
	"github.com/clawseed/clawseed/runtime/cronriver"
	"github.com/clawseed/clawseed/runtime/pgstore"
)

// TestStartJobsPostgres: on the postgres backend StartJobs refuses a
// database without River's tables, and once MigrateStorage made them runs
// a due job of the database through the runner it is given (the serve
// replica's path; runtime/cronriver tests three replicas at once).
func TestStartJobsPostgres(t *testing.T) {
	srv := pgtest.New()
	t.Cleanup(srv.Stop)
	url := srv.Database(t)
	ctx := t.Context()
	cfg := config.Default()
	cfg.Home, cfg.Workspace = t.TempDir(), t.TempDir()
	cfg.Storage.Backend, cfg.Storage.PostgresURL = config.StoragePostgres, url
	p := &Process{}
	t.Cleanup(p.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ran := make(chan cron.Job, 10)
	o := jobsOptions{tick: time.Second, run: func(_ context.Context, j cron.Job) cron.Result {
		ran <- j
		return cron.Result{Status: cron.StatusOK, Output: "done"}
	}}

	if _, err := startJobs(ctx, cfg, p, log, o); !errors.As(err, new(*StoreError)) || !errors.Is(err, pgstore.ErrNotMigrated) {
		t.Fatalf("StartJobs on a new database: %v, want a StoreError saying to migrate", err)
	}
	// clawseed's tables without River's (as an older clawseed's
	// migrations left them, if it had this schema version).
	raw, err := pgstore.Open(ctx, url, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if _, err := startJobs(ctx, cfg, p, log, o); !errors.As(err, new(*StoreError)) || !errors.Is(err, cronriver.ErrNotMigrated) {
		t.Fatalf("StartJobs without River's tables: %v, want a StoreError saying to migrate", err)
	}
	names, err := MigrateStorage(ctx, cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || !strings.HasPrefix(names[0], "river_001-") {
		t.Errorf("migrations applied: %q", names)
	}
	if names, err := MigrateStorage(ctx, cfg, p); err != nil || len(names) != 0 {
		t.Errorf("migrating again: %q, %v", names, err)
	}

	// A job added two hours ago, due an hour ago.
	db, err := p.database(ctx, cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	past := db.Jobs()
	past.Now = func() time.Time { return time.Now().Add(-2 * time.Hour) }
	j, err := past.Add(ctx, cron.Job{Name: "late", Schedule: "every 1h", Kind: cron.KindShell, Command: "x", Workspace: cfg.Workspace})
	if err != nil {
		t.Fatal(err)
	}
	stop, err := startJobs(ctx, cfg, p, log, o)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-ran:
		if got.ID != j.ID {
			t.Errorf("ran %+v", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the due job did not run")
	}
	stop()
	store, err := OpenCronStore(ctx, cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	got, runs, err := store.Runs(ctx, j.ID, "", 0)
	if err != nil || len(runs) != 1 || runs[0].Output != "done" || !got.NextRun.After(time.Now()) {
		t.Errorf("after the run: job %+v, runs %+v, %v", got, runs, err)
	}
}

// TestStartJobsOff: [cron].enabled = false starts nothing on either
// backend (not even a database connection).
func TestStartJobsOff(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Cron.Enabled = false
	cfg.Storage.Backend, cfg.Storage.PostgresURL = config.StoragePostgres, "postgres://nobody@127.0.0.1:1/none"
	stop, err := StartJobs(t.Context(), cfg, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	stop()
}
