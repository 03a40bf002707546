package agent

import (
	"strings"

	"github.com/clawseed/clawseed/skills"
)

// InitPrompt is the user message of `/init` and `clawseed init` (as Claude
// Code's /init): the model surveys the repository and writes a first
// AGENTS.md, or improves the AGENTS.md or CLAUDE.md it finds. focus, when
// not empty, is what the user asked to pay attention to. The text is the
// built-in init skill's body (skills/builtin/init/SKILL.md): one text for
// the command and the skill.
func InitPrompt(focus string) string {
	p := strings.TrimSpace(skills.BuiltinBody("init"))
	if focus = strings.TrimSpace(focus); focus != "" {
		p += "\n\nThe user also asks: " + focus
	}
	return p
}
