package app

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/cron"
	"github.com/clawseed/clawseed/runtime/cronriver"
	"github.com/clawseed/clawseed/runtime/pgstore"
)

// StartJobs runs the scheduled jobs while `clawseed serve` is up
// ([cron].enabled). On the files backend it is the chat's scheduler
// ([StartScheduler]: the jobs of [cron].dir, each run under its file
// lock). On the postgres backend it starts this replica's River client on
// the process's database (runtime/cronriver): River elects one replica to
// enqueue the ticks, and every replica's workers run due jobs, each due
// time once across the replicas, through the same runner as everywhere
// ([NewJobRunner]: a `cron exec` child). The database must be migrated,
// River's tables included ([MigrateStorage]); errors are a *config.Error
// (postgres_url) or a [StoreError]. stop cancels the runs in progress and
// waits until they are recorded: call it before [Process.Close], which
// closes the database River works on.
//
// CLAWSEED_JOBS_TICK (a Go duration, hidden) replaces River's tick, so that
// tests see a due job run in seconds rather than half a minute.
func StartJobs(ctx context.Context, cfg *config.Config, p *Process, log *slog.Logger) (stop func(), err error) {
	var o jobsOptions
	if v := os.Getenv("CLAWSEED_JOBS_TICK"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			o.tick = d
		}
	}
	return startJobs(ctx, cfg, p, log, o)
}

// jobsOptions are what tests replace in [startJobs].
type jobsOptions struct {
	run  cron.Runner   // nil = NewJobRunner's
	tick time.Duration // 0 = cronriver.DefaultTick
}

func startJobs(ctx context.Context, cfg *config.Config, p *Process, log *slog.Logger, o jobsOptions) (func(), error) {
	if !cfg.Cron.Enabled {
		return func() {}, nil
	}
	if cfg.Storage.Backend != config.StoragePostgres {
		return StartScheduler(ctx, cfg, log), nil
	}
	db, err := p.database(ctx, cfg, true)
	if err != nil {
		return nil, err
	}
	run := o.run
	if run == nil {
		if run, err = NewJobRunner(cfg.Home); err != nil {
			return nil, err
		}
	}
	stop, err := cronriver.Start(ctx, cronriver.Options{
		Pool:   db.Pool(),
		Schema: pgstore.Schema,
		Store:  db.Jobs(),
		Run:    run,
		Tick:   o.tick,
		Log:    log,
	})
	if err != nil {
		return nil, &StoreError{Err: err}
	}
	return stop, nil
}
