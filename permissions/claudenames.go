package permissions

// claudeTools are Claude Code's tool names that are one of this runtime's
// tools, each tool's own Claude Code name first (Edit before MultiEdit):
// the one table of those names, for allowed-tools entries, permission
// rules, subagents' tools and hooks' matchers and input.
var claudeTools = [...]struct{ claude, tool string }{
	{"Read", "file_read"},
	{"Write", "file_write"},
	{"Edit", "file_edit"},
	{"MultiEdit", "file_edit"},
	{"Bash", "shell"},
	{"Glob", "glob_search"},
	{"Grep", "content_search"},
	{"WebFetch", "web_fetch"},
	{"WebSearch", "web_search"},
	// Claude Code's loader of deferred tools; clawseed's takes the same
	// query forms (words, select:NAME,NAME).
	{"ToolSearch", "tool_search"},
	// The session's todo list and the end of plan mode (issue 31): the
	// same arguments (todos, plan).
	{"TodoWrite", "todo_write"},
	{"ExitPlanMode", "exit_plan_mode"},
}

// ClaudeTool returns the tool of this runtime that Claude Code's tool name
// names (Bash is shell), and whether it names one.
func ClaudeTool(name string) (string, bool) {
	for _, t := range claudeTools {
		if t.claude == name {
			return t.tool, true
		}
	}
	return "", false
}

// ClaudeName returns Claude Code's name for a tool of this runtime (shell
// is Bash), or "" when Claude Code has no such tool.
func ClaudeName(tool string) string {
	for _, t := range claudeTools {
		if t.tool == tool {
			return t.claude
		}
	}
	return ""
}
