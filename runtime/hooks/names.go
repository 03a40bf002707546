package hooks

import (
	"encoding/json"
	"path/filepath"
	"slices"

	"github.com/clawseed/clawseed/permissions"
)

// Claude Code's tool names and clawseed's: a hook written for Claude Code
// matches `Bash` and tests `tool_name == "Bash"`, so its names are aliases of
// clawseed's tools in matchers, tool_name carries Claude Code's name when
// the tool has one (clawseed_tool_name always carries clawseed's), and
// tool_input uses Claude Code's argument names where they differ.

// ClaudeToolName is the name hooks are told for a clawseed tool: Claude
// Code's when it has one (shell is Bash; permissions.ClaudeName), else the
// tool's own (Skill, mcp__server__tool, git).
func ClaudeToolName(tool string) string {
	if n := permissions.ClaudeName(tool); n != "" {
		return n
	}
	return tool
}

// toolNames are the names a matcher term may use for tool: clawseed's and
// Claude Code's.
func toolNames(tool string) []string {
	if n := permissions.ClaudeName(tool); n != "" {
		return []string{tool, n}
	}
	return []string{tool}
}

// termMatchesTool reports whether an exact matcher term names tool, by
// either name (permissions.ClaudeTool: MultiEdit is Edit's many-edits
// form); Task is the Agent tool's old name.
func termMatchesTool(term, tool string) bool {
	if term == tool || term == ClaudeToolName(tool) || term == "Task" && tool == "Agent" {
		return true
	}
	mapped, ok := permissions.ClaudeTool(term)
	return ok && mapped == tool
}

// renames are the argument names that differ, per tool: clawseed's name →
// Claude Code's. Arguments not listed keep their name.
var renames = map[string][][2]string{
	"file_read":  {{"path", "file_path"}},
	"file_edit":  {{"path", "file_path"}},
	"file_write": {{"path", "file_path"}},
	"content_search": {
		{"include", "glob"}, {"context_before", "-B"}, {"context_after", "-A"}, {"max_results", "head_limit"},
	},
}

// pathArgs are the tools whose file_path hooks get absolute, as Claude
// Code gives it.
var pathArgs = []string{"file_read", "file_edit", "file_write"}

// ToolInput is the tool_input hooks get for a call of tool with args:
// the arguments with Claude Code's names where they differ (file tools'
// `path` is `file_path`, absolute; content_search's `include` is `glob`,
// `case_sensitive: false` is `-i: true`, context_before/after are -B/-A,
// max_results is head_limit). Arguments that are not a JSON object are
// given as {}.
func ToolInput(tool, workspace string, args json.RawMessage) map[string]any {
	in := map[string]any{}
	_ = json.Unmarshal(args, &in)
	if in == nil {
		in = map[string]any{}
	}
	for _, r := range renames[tool] {
		if v, ok := in[r[0]]; ok {
			delete(in, r[0])
			in[r[1]] = v
		}
	}
	if tool == "content_search" {
		if v, ok := in["case_sensitive"].(bool); ok {
			delete(in, "case_sensitive")
			in["-i"] = !v
		}
	}
	if slices.Contains(pathArgs, tool) && workspace != "" {
		if p, ok := in["file_path"].(string); ok && p != "" && !filepath.IsAbs(p) && p[0] != '~' {
			in["file_path"] = filepath.Join(workspace, p)
		}
	}
	return in
}

// ToolArgs turns a hook's updatedInput back into tool's arguments: Claude
// Code's names become clawseed's (clawseed's own names are accepted as
// they are). The tool validates the result against its schema as it
// validates the model's arguments.
func ToolArgs(tool string, in map[string]any) json.RawMessage {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	for _, r := range renames[tool] {
		if v, ok := out[r[1]]; ok {
			delete(out, r[1])
			out[r[0]] = v
		}
	}
	if tool == "content_search" {
		if v, ok := out["-i"].(bool); ok {
			delete(out, "-i")
			out["case_sensitive"] = !v
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}
