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
// gets (Agent, Skill, skill_create), and the session's memory tools unless
// `tools` names them (memory is the session's; a subagent with its own
// memory gets its own memory tools instead: [Definition.AllowsOwnMemory]).
func (d *Definition) Allows(tool string, c permissions.Class) bool {
	if d.readOnly && c != permissions.ClassRead {
		return false
	}
	if d.Tools != nil && !permissions.NamesTool(d.Tools, tool, c) {
		return false
	}
	// A deny list narrows, so a glob removes network tools too: the
	// exact-name rule exists so that a glob does not grant the network.
	return !permissions.NamesTool(d.DisallowedTools, tool, permissions.ClassRead)
}

// AllowsOwnMemory reports whether a subagent with its own memory (a
// `memory` scope) gets its own memory tool tool, of class c: its `memory`
// asks for them, so its `tools` need not name them; its `disallowedTools`
// still remove them, and a read-only subagent gets only those that read.
// The caller offers them only in place of the session's own tools of the
// same names, so a definition never gets a tool the session lacks.
func (d *Definition) AllowsOwnMemory(tool string, c permissions.Class) bool {
	if d.readOnly && c != permissions.ClassRead {
		return false
	}
	return !permissions.NamesTool(d.DisallowedTools, tool, permissions.ClassRead)
}

// ReadOnly reports whether the definition is limited to the session's
// read-class tools (the built-in Explore and Plan).
func (d *Definition) ReadOnly() bool { return d.readOnly }

// The built-in subagents: general-purpose (every tool of the session but
// Agent and memory), and Claude Code's read-only Explore and Plan, so that skills
// written for Claude Code with `agent: Explore` or `agent: Plan` run. A
// definition of the same name replaces one.
func builtins() []*Definition {
	return []*Definition{
		{
			Name:        GeneralPurpose,
			Description: "General-purpose agent for research, code search and multi-step tasks; it has your tools except Agent and memory.",
			Prompt:      generalPurposePrompt,
			Source:      skills.SourceBuiltin,
		},
		{
			Name:        "Explore",
			Description: "Fast read-only agent for exploring a codebase: finds files, searches code and reads it to answer a question. Say how thorough to be.",
			Prompt:      explorePrompt,
			Source:      skills.SourceBuiltin,
			readOnly:    true,
		},
		{
			Name:        "Plan",
			Description: "Read-only research agent that gathers the context a plan needs and proposes a step-by-step implementation plan.",
			Prompt:      planPrompt,
			Source:      skills.SourceBuiltin,
			readOnly:    true,
		},
	}
}

const reportRules = `

Your final message is all the main agent will see of your work. Make it a concise report with the file paths, names and details that matter to the task. Do not ask questions: nobody can answer them. If you could not finish, say what is missing and why.`

const generalPurposePrompt = `You are a subagent: the main agent gave you one task, and you work on it alone with the tools you have. Do the task completely: search and read as widely as it needs, run what it needs, and change files only when the task asks for it.` + reportRules

const explorePrompt = `You are a read-only subagent exploring a codebase for the main agent: find files by name and pattern, search their contents, read what matters, and answer the question you were given. You cannot change anything. Search broadly first, then narrow down; match your effort to the thoroughness asked for.` + reportRules

const planPrompt = `You are a read-only planning subagent: gather the context the main agent's task needs (the files and code paths involved, conventions, constraints, risks) and propose a concrete step-by-step implementation plan. You cannot change anything.` + reportRules
