package app

import (
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/cron"
	"github.com/clawseed/clawseed/runtime/tools"
)

// CronStore is the job store of the configuration ([cron].dir).
func CronStore(cfg *config.Config) *cron.Store { return &cron.Store{Dir: cfg.CronDir()} }

// cronTools returns the cron_* tools when [cron] is enabled. cron_run is
// left out when this binary cannot find itself to run a job.
func cronTools(env toolEnv) []tools.Tool {
	if !env.cfg.Cron.Enabled {
		return nil
	}
	run, _ := NewJobRunner(env.cfg.Home)
	return tools.CronTools(tools.CronOptions{
		Store:           CronStore(env.cfg),
		Workspace:       env.cfg.Workspace,
		Run:             run,
		AllowedCommands: env.cfg.Autonomy.AllowedCommands,
		Sandbox:         env.sb,
	})
}
