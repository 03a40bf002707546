package app

import (
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/tools"
)

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
	level, _ := permissions.ParseLevel(cfg.Autonomy.Level) // validated by the configuration
	return append(tools.MemoryTools(store), tools.NewKnowledge(store, tools.KnowledgeOptions{ReadOnly: level == permissions.ReadOnly}))
}
