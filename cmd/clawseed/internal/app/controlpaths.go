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
	cc := tools.ControlConfig{
		Workspace:      cfg.Workspace,
		WorkspaceFiles: append(agent.IdentityFileNames(), instructions.FileNames()...),
		Files:          cfg.Files,
		Dirs:           []string{cfg.Home},
	}
	if home := homeDir(); home != "" {
		cc.Dirs = append(cc.Dirs, filepath.Join(home, ".claude"), filepath.Join(home, ".agents"))
	}
	for _, r := range skillOptions(cfg).Roots {
		cc.Dirs = append(cc.Dirs, r.Path)
	}
	return tools.NewControlPaths(cc)
}
