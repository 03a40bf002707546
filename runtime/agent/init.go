package agent

import (
	_ "embed"
	"strings"
)

//go:embed init.md
var initPrompt string

// InitPrompt is the user message of `/init` and `clawseed init` (as Claude
// Code's /init): the model surveys the repository and writes a first
// AGENTS.md, or improves the AGENTS.md or CLAUDE.md it finds. focus, when
// not empty, is what the user asked to pay attention to.
func InitPrompt(focus string) string {
	p := strings.TrimSpace(initPrompt)
	if focus = strings.TrimSpace(focus); focus != "" {
		p += "\n\nThe user also asks: " + focus
	}
	return p
}
