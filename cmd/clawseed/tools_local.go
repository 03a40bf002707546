package main

import "github.com/clawseed/clawseed/runtime/tools"

// localTools returns git, calculator and backup, each when it can work.
func localTools(env toolEnv) []tools.Tool {
	return nil
}
