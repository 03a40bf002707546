package main

import "github.com/clawseed/clawseed/runtime/tools"

// cronTools returns the cron_* tools when [cron] is enabled.
func cronTools(env toolEnv) []tools.Tool {
	return nil
}

// llmTools returns llm_task.
func llmTools(env toolEnv) []tools.Tool {
	return nil
}
