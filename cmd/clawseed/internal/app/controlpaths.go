package app

import (
	"path/filepath"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/instructions"
	"github.com/clawseed/clawseed/runtime/tools"
)

// controlPaths are the files whose writes the agent always asks about
// (§9): the workspace's fixed ones (tools.ControlPaths), its identity
// and instruction files, the config files read, CLAWSEED_HOME, ~/.claude and ~/.agents,
// and every skill root (extra roots included).
func controlPaths(cfg *config.Config) *tools.ControlPaths {
	return tools.NewControlPaths(controlConfig(cfg, true))
}

// memoryControlPath reports whether writing in the memory folder writes a
// control path, and which, not counting CLAWSEED_HOME itself: its memory/
// folder is memory's default place and holds nothing clawseed runs or
// allows, while its skills and config are control paths of their own (the
// skill roots, the config files).
func memoryControlPath(cfg *config.Config, folder string) (string, bool) {
	return tools.NewControlPaths(controlConfig(cfg, false)).Match(filepath.Join(folder, "memory-file.md"))
}

// controlConfig lists the control paths, CLAWSEED_HOME with home.
func controlConfig(cfg *config.Config, home bool) tools.ControlConfig {
	cc := tools.ControlConfig{
		Workspace:      cfg.Workspace,
		WorkspaceFiles: append(agent.IdentityFileNames(), instructions.FileNames()...),
		Files:          cfg.Files,
		AddDirs:        addDirs(cfg),
	}
	if home {
		cc.Dirs = []string{cfg.Home}
	}
	if home := homeDir(); home != "" {
		cc.Dirs = append(cc.Dirs, filepath.Join(home, ".claude"), filepath.Join(home, ".agents"))
	}
	for _, r := range skillOptions(cfg).Roots {
		cc.Dirs = append(cc.Dirs, r.Path)
	}
	return cc
}
