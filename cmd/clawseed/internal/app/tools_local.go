package app

import (
	"os"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/tools"
)

// localTools returns git, calculator and backup, each when it can work:
// git only when git is on PATH and the workspace is inside a work tree
// (with only its read actions at read_only autonomy), backup unless
// [backup].enabled is false.
func localTools(env toolEnv) []tools.Tool {
	cfg := env.cfg
	list := []tools.Tool{tools.NewCalculator()}
	level, _ := permissions.ParseLevel(cfg.Autonomy.Level) // validated by the configuration
	conf := env.confinement()
	// git runs in the sandbox like a command (it writes the repository,
	// never .git/hooks or .git/config); with [sandbox].required and no
	// sandbox it may not run, so the tool is not registered.
	if !conf.refused() {
		git, err := tools.NewGit(env.sb, tools.GitOptions{
			ReadOnly:       level == permissions.ReadOnly,
			MaxOutputChars: cfg.Agent.MaxToolOutputChars,
			EnvPassthrough: cfg.Autonomy.EnvPassthrough,
			Environ:        conf.environ(os.Environ()),
			Start:          conf.commands(),
		})
		if err == nil {
			list = append(list, git)
		}
	}
	if cfg.Backup.Enabled {
		list = append(list, tools.NewBackup(env.sb, tools.BackupOptions{
			Dir:            cfg.BackupDir(),
			Paths:          cfg.Backup.Paths,
			EnvPassthrough: cfg.Autonomy.EnvPassthrough,
			Start:          conf.readOnlyStarter(),
		}))
	}
	return list
}
