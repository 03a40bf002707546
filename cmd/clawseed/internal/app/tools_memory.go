package app

import (
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/tools"
)

// memoryTools returns the memory_* tools and knowledge when [memory].enabled
// and the store opened (§8), with the memory_store of [memory].mode (a
// topic file, or a note in today's log); knowledge offers only its read
// actions at read_only autonomy. They use the store of env.memory, shared with the
// prompt's index and automatic recall, whose opener closes it.
//
// The daily logs and the knowledge graph are the files' only (the logs
// are files, the graph lives in index.db): with [storage].backend =
// "postgres" the configuration refuses daily_log mode, and knowledge is
// not registered, rather than kept on one replica's disk where the
// others would not see it.
func memoryTools(env toolEnv) []tools.Tool {
	cfg := env.cfg
	store := env.memory
	if !cfg.Memory.Enabled || store == nil {
		return nil
	}
	files := memoryFiles(store)
	list := tools.MemoryTools(store)
	if cfg.Memory.Mode == config.MemoryModeDailyLog && files != nil {
		list = tools.DailyLogMemoryTools(files)
	}
	if files == nil {
		return list
	}
	level, _ := permissions.ParseLevel(cfg.Autonomy.Level) // validated by the configuration
	return append(list, tools.NewKnowledge(files, tools.KnowledgeOptions{ReadOnly: level == permissions.ReadOnly}))
}
