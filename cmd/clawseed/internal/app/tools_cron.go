package app

import (
	"context"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/cron"
	"github.com/clawseed/clawseed/runtime/tools"
)

// OpenCronStore returns the job store cfg configures: the files of
// [cron].dir, or with [storage].backend = "postgres" the database's
// (migrated; errors as [OpenSessionStore]'s), where every `clawseed serve`
// replica sees the same jobs and runs each due time once ([StartJobs]).
func OpenCronStore(ctx context.Context, cfg *config.Config, p *Process) (cron.Jobs, error) {
	if cfg.Storage.Backend != config.StoragePostgres {
		return cronFiles(cfg), nil
	}
	db, err := p.database(ctx, cfg, true)
	if err != nil {
		return nil, err
	}
	return db.Jobs(), nil
}

// cronFiles is the job store of [cron].dir.
func cronFiles(cfg *config.Config) cron.Files {
	return cron.Files{Store: &cron.Store{Dir: cfg.CronDir()}}
}

// cronTools returns the cron_* tools when [cron] is enabled. cron_run is
// left out when this binary cannot find itself to run a job.
func cronTools(env toolEnv) []tools.Tool {
	if !env.cfg.Cron.Enabled {
		return nil
	}
	run, _ := NewJobRunner(env.cfg.Home)
	var store cron.Jobs = cronFiles(env.cfg)
	note := ""
	if env.cfg.Storage.Backend == config.StoragePostgres {
		store = lazyJobs{cfg: env.cfg, p: env.proc}
		note = "Jobs run on the `clawseed serve` replicas that share this database (each due time once), or from the system crontab with `clawseed cron run-due`."
	}
	return tools.CronTools(tools.CronOptions{
		Store:           store,
		Workspace:       env.cfg.Workspace,
		Run:             run,
		AllowedCommands: env.cfg.Autonomy.AllowedCommands,
		Sandbox:         env.sb,
		RunNote:         note,
	})
}

// lazyJobs is the database's job store for the cron tools, opened at each
// call through the process, which opens the database once: tools are
// built without a context, and a session that never schedules a job never
// needs the database for it.
type lazyJobs struct {
	cfg *config.Config
	p   *Process
}

func (l lazyJobs) List(ctx context.Context, workspace string) ([]cron.Job, error) {
	s, err := OpenCronStore(ctx, l.cfg, l.p)
	if err != nil {
		return nil, err
	}
	return s.List(ctx, workspace)
}

func (l lazyJobs) Get(ctx context.Context, ref, workspace string) (cron.Job, error) {
	s, err := OpenCronStore(ctx, l.cfg, l.p)
	if err != nil {
		return cron.Job{}, err
	}
	return s.Get(ctx, ref, workspace)
}

func (l lazyJobs) Add(ctx context.Context, j cron.Job) (cron.Job, error) {
	s, err := OpenCronStore(ctx, l.cfg, l.p)
	if err != nil {
		return cron.Job{}, err
	}
	return s.Add(ctx, j)
}

func (l lazyJobs) Update(ctx context.Context, ref, workspace string, change func(*cron.Job) error) (cron.Job, error) {
	s, err := OpenCronStore(ctx, l.cfg, l.p)
	if err != nil {
		return cron.Job{}, err
	}
	return s.Update(ctx, ref, workspace, change)
}

func (l lazyJobs) Remove(ctx context.Context, ref, workspace string) (cron.Job, error) {
	s, err := OpenCronStore(ctx, l.cfg, l.p)
	if err != nil {
		return cron.Job{}, err
	}
	return s.Remove(ctx, ref, workspace)
}

func (l lazyJobs) Runs(ctx context.Context, ref, workspace string, limit int) (cron.Job, []cron.Run, error) {
	s, err := OpenCronStore(ctx, l.cfg, l.p)
	if err != nil {
		return cron.Job{}, nil, err
	}
	return s.Runs(ctx, ref, workspace, limit)
}

func (l lazyJobs) RunJob(ctx context.Context, ref, workspace, trigger string, run cron.Runner) (cron.Run, error) {
	s, err := OpenCronStore(ctx, l.cfg, l.p)
	if err != nil {
		return cron.Run{}, err
	}
	return s.RunJob(ctx, ref, workspace, trigger, run)
}

func (l lazyJobs) RunDue(ctx context.Context, run cron.Runner) ([]cron.Outcome, error) {
	s, err := OpenCronStore(ctx, l.cfg, l.p)
	if err != nil {
		return nil, err
	}
	return s.RunDue(ctx, run)
}
