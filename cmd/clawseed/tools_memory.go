package main

import (
	"context"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/memory"
	"github.com/clawseed/clawseed/runtime/tools"
)

// openMemory opens the memory store of the configuration: [memory].dir,
// with this workspace's project folder. Opening creates nothing; folders
// and index.db appear on first use.
func openMemory(ctx context.Context, cfg *config.Config) (*memory.Store, error) {
	return memory.Open(ctx, memory.Options{Dir: cfg.MemoryDir(), Workspace: cfg.Workspace})
}

// memoryTools returns the memory_* tools and knowledge when [memory].enabled
// and the store opened (§8); knowledge offers only its read actions at
// read_only autonomy. They use the store of env.memory, shared with the
// prompt's index and automatic recall, whose opener closes it.
func memoryTools(env toolEnv) []tools.Tool {
	cfg := env.cfg
	store := env.memory
	if !cfg.Memory.Enabled || store == nil {
		return nil
	}
	level, _ := permissions.ParseLevel(cfg.Autonomy.Level) // validated by buildApp
	return append(tools.MemoryTools(store), tools.NewKnowledge(store, tools.KnowledgeOptions{ReadOnly: level == permissions.ReadOnly}))
}
