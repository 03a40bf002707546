package app

import (
	"os"
	"path/filepath"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/instructions"
	"github.com/clawseed/clawseed/runtime/tools"
)

// controlPaths are the files whose writes the agent always asks about
// (§9): the workspace's and the home folder's fixed ones
// (tools.ControlPaths: ~/.claude, ~/.agents, the shells' start-up files,
// git's configuration, …), the workspace's identity and instruction files,
// the config files read, CLAWSEED_HOME, and every skill root (extra roots
// included).
func controlPaths(cfg *config.Config) *tools.ControlPaths {
	return tools.NewControlPaths(controlConfig(cfg))
}

// memoryControlPath reports whether writing in the memory folder writes one
// of the control paths, and which, not counting CLAWSEED_HOME itself: its
// memory/ folder is memory's default place and holds nothing clawseed runs
// or allows, while its skills and config are control paths of their own
// (the skill roots, the config files).
func memoryControlPath(cfg *config.Config, control *tools.ControlPaths, folder string) (string, bool) {
	return control.Without(cfg.Home).Match(filepath.Join(folder, "memory-file.md"))
}

// forbiddenRule is the session's [autonomy].forbidden_paths, resolved: the
// rule every reader Build makes applies, and what the OS sandbox denies
// commands. (The file tools' sandbox resolves it afresh at each call: the
// model may have changed links since.)
func forbiddenRule(cfg *config.Config) confine.Forbidden {
	return confine.NewForbidden(cfg.Autonomy.ForbiddenPaths, cfg.Workspace, homeDir())
}

// controlConfig lists the control paths.
func controlConfig(cfg *config.Config) tools.ControlConfig {
	cc := tools.ControlConfig{
		Workspace:      cfg.Workspace,
		WorkspaceFiles: append(agent.IdentityFileNames(), instructions.FileNames()...),
		Files:          cfg.Files,
		AddDirs:        addDirs(cfg),
	}
	if cfg.Home != "" {
		cc.Dirs = []string{cfg.Home}
	}
	cc.Home, cc.ConfigHome = homeDir(), os.Getenv("XDG_CONFIG_HOME")
	for _, r := range skillOptions(cfg).Roots {
		cc.Dirs = append(cc.Dirs, r.Path)
	}
	return cc
}
