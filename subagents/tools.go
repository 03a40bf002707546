package subagents

import (
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/skills"
)

// Allows reports whether the subagent may have tool, a tool of class c that
// the session has: one its `tools` name (every one when it names none),
// and none its `disallowedTools` name. Names are read as allowed-tools
// entries are ([permissions.NamesTool]): this runtime's names, Claude
// Code's (`Bash` is shell, `Read` file_read, `Grep` content_search, ...),
// globs (`memory_*`), `mcp__server` for a server's tools; a pattern
// (`Bash(git:*)`) names its whole tool and pre-approves nothing. As for
// allowed-tools, a network tool is given only by an entry that spells it.
//
// It only ever narrows: the caller asks about the session's own tools, so
// a definition, wherever it comes from, cannot give a subagent a tool the
// session does not have. The caller also leaves out the tools no subagent
// gets (Agent, Skill, skill_create).
func (d *Definition) Allows(tool string, c permissions.Class) bool {
	if d.Tools != nil && !permissions.NamesTool(d.Tools, tool, c) {
		return false
	}
	// A deny list narrows, so a glob removes network tools too: the
	// exact-name rule exists so that a glob does not grant the network.
	return !permissions.NamesTool(d.DisallowedTools, tool, permissions.ClassRead)
}

// generalPurposePrompt is the built-in subagent's system prompt.
const generalPurposePrompt = `You are a subagent: the main agent gave you one task, and you work on it alone with the tools you have. Do the task completely: search and read as widely as it needs, run what it needs, and change files only when the task asks for it.

Your final message is all the main agent will see of your work. Make it a concise report of what you found or did, with the file paths, names and details that matter to the task. Do not ask questions: nobody can answer them. If you could not finish, say what is missing and why.`

// generalPurpose is the built-in subagent: every tool of the session but
// Agent.
func generalPurpose() *Definition {
	return &Definition{
		Name:        GeneralPurpose,
		Description: "General-purpose agent for research, code search and multi-step tasks; it has all of your tools except Agent.",
		Prompt:      generalPurposePrompt,
		Source:      skills.SourceBuiltin,
	}
}
