package hooks

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		event, matcher, value string
		want                  bool
	}{
		// All.
		{PreToolUse, "", "shell", true},
		{PreToolUse, "*", "mcp__gh__x", true},
		{PreToolUse, "  ", "shell", true},
		// Exact names, either spelling.
		{PreToolUse, "Bash", "shell", true},
		{PreToolUse, "shell", "shell", true},
		{PreToolUse, "Bash", "file_read", false},
		{PreToolUse, "Edit", "file_edit", true},
		{PreToolUse, "MultiEdit", "file_edit", true},
		{PreToolUse, "Write", "file_write", true},
		{PreToolUse, "Read", "file_read", true},
		{PreToolUse, "Grep", "content_search", true},
		{PreToolUse, "Glob", "glob_search", true},
		{PreToolUse, "WebFetch", "web_fetch", true},
		{PreToolUse, "WebSearch", "web_search", true},
		{PreToolUse, "Skill", "Skill", true},
		{PreToolUse, "Task", "Agent", true},
		{PostToolUse, "Edit|Write", "file_write", true},
		{PostToolUse, "Edit|Write", "file_read", false},
		// An exact name is exact: no substring.
		{PreToolUse, "Edit", "file_edit_extra", false},
		{PreToolUse, "Bas", "shell", false},
		// MCP tools are named as in Claude Code.
		{PreToolUse, "mcp__github__create_issue", "mcp__github__create_issue", true},
		{PreToolUse, "mcp__github__create_issue", "mcp__github__list", false},
		{PreToolUse, "mcp__github__.*", "mcp__github__list", true},
		{PreToolUse, "mcp__.*__write.*", "mcp__fs__write_file", true},
		{PreToolUse, "mcp__my-server__tool", "mcp__my-server__tool", true},
		// Regular expressions, anywhere in either name.
		{PreToolUse, "^Ba", "shell", true},
		{PreToolUse, "^sh", "shell", true},
		{PreToolUse, "Web.*", "web_fetch", true},
		{PreToolUse, "^Web$", "web_fetch", false},
		{PreToolUse, "Notebook.*", "file_edit", false},
		// A bad expression matches nothing.
		{PreToolUse, "(", "shell", false},
		{PreToolUse, "(?=x)", "shell", false},
		// Other events match their value exactly; no tool aliases.
		{SessionStart, "startup", "startup", true},
		{SessionStart, "startup", "resume", false},
		{SessionStart, "resume|clear", "clear", true},
		{SessionStart, "compact", "compact", true},
		{PreCompact, "manual", "auto", false},
		{PreCompact, "auto", "auto", true},
		{SkillActivated, "lint", "lint", true},
		{SkillActivated, "lint", "linter", false},
		{SkillActivated, "plugin:.*", "plugin:deploy", true},
		{Notification, "permission_prompt", "permission_prompt", true},
		{SessionEnd, "Bash", "shell", false},
		// UserPromptSubmit and Stop ignore matchers, as Claude Code does.
		{UserPromptSubmit, "something", "", true},
		{Stop, "Bash", "", true},
	}
	for _, tt := range tests {
		if got := Match(tt.event, tt.matcher, tt.value); got != tt.want {
			t.Errorf("Match(%s, %q, %q) = %v, want %v", tt.event, tt.matcher, tt.value, got, tt.want)
		}
	}
}

func TestToolInputNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool, args string
		want       map[string]any
	}{
		{"shell", `{"command":"rm -rf x","timeout_secs":5}`, map[string]any{"command": "rm -rf x", "timeout_secs": 5.0}},
		{"file_read", `{"path":"a/b.go","offset":3}`, map[string]any{"file_path": "/ws/a/b.go", "offset": 3.0}},
		{"file_write", `{"path":"/abs/x","content":"c"}`, map[string]any{"file_path": "/abs/x", "content": "c"}},
		{"file_edit", `{"path":"x","old_string":"a","new_string":"b","replace_all":true}`,
			map[string]any{"file_path": "/ws/x", "old_string": "a", "new_string": "b", "replace_all": true}},
		{"content_search", `{"pattern":"p","include":"*.go","case_sensitive":false,"context_before":1,"context_after":2,"max_results":3,"output_mode":"count"}`,
			map[string]any{"pattern": "p", "glob": "*.go", "-i": true, "-B": 1.0, "-A": 2.0, "head_limit": 3.0, "output_mode": "count"}},
		{"glob_search", `{"pattern":"**/*.go"}`, map[string]any{"pattern": "**/*.go"}},
		{"mcp__x__y", `{"a":1}`, map[string]any{"a": 1.0}},
		{"shell", `not json`, map[string]any{}},
		{"shell", `null`, map[string]any{}},
	}
	for _, tt := range tests {
		got := ToolInput(tt.tool, "/ws", json.RawMessage(tt.args))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ToolInput(%s, %s) (-want +got)\n%s", tt.tool, tt.args, diff)
		}
		// Back to clawseed's names: the arguments again (paths made
		// absolute stay absolute, which the file tools accept).
		var back map[string]any
		if err := json.Unmarshal(ToolArgs(tt.tool, got), &back); err != nil {
			t.Fatal(err)
		}
		var orig map[string]any
		if json.Unmarshal([]byte(tt.args), &orig) != nil || orig == nil {
			continue
		}
		if p, ok := orig["path"].(string); ok && p[0] != '/' {
			orig["path"] = "/ws/" + p
		}
		if diff := cmp.Diff(orig, back); diff != "" {
			t.Errorf("ToolArgs(%s) does not give the arguments back (-orig +back)\n%s", tt.tool, diff)
		}
	}
}

func TestClaudeToolName(t *testing.T) {
	t.Parallel()
	for tool, want := range map[string]string{
		"shell": "Bash", "file_read": "Read", "file_edit": "Edit", "file_write": "Write",
		"content_search": "Grep", "glob_search": "Glob", "web_fetch": "WebFetch", "web_search": "WebSearch",
		"Skill": "Skill", "git": "git", "mcp__a__b": "mcp__a__b",
	} {
		if got := ClaudeToolName(tool); got != want {
			t.Errorf("ClaudeToolName(%s) = %s, want %s", tool, got, want)
		}
	}
}
