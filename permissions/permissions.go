// Package permissions owns the pure policy decisions about tools: which tool
// names satisfy a skill's permission names (§4.7), which tools are visible under
// the allowed/denied globs and the autonomy level, and whether a call must be
// approved first (§9).
//
// It performs no I/O and never prompts; the REPL's approver asks the user when
// [Policy.Decide] says [Ask].
package permissions

import (
	"sort"
	"strings"
)

// table maps a permission name to the real tool names that satisfy it.
// ClawSeed mapped web_search and git to tools named web_search_tool and
// git_operations, which made both permissions unsatisfiable; here the names are
// the tools' real names.
var table = map[string][]string{
	"file_read":      {"file_read"},
	"file_write":     {"file_write", "file_edit"},
	"shell_exec":     {"shell"},
	"web_search":     {"web_search"},
	"web_fetch":      {"web_fetch"},
	"http_request":   {"http_request"},
	"memory":         {"memory_store", "memory_recall", "memory_export", "memory_forget", "memory_purge"},
	"knowledge":      {"knowledge"},
	"calculator":     {"calculator"},
	"git":            {"git"},
	"cron":           {"cron_add", "cron_list", "cron_remove", "cron_run", "cron_runs", "cron_update"},
	"backup":         {"backup"},
	"glob_search":    {"glob_search"},
	"content_search": {"content_search"},
	"llm_task":       {"llm_task"},
	"pdf_read":       {"pdf_read"},
}

// Tools returns the tool names that satisfy permission. An unknown permission
// name is satisfied only by a tool of exactly that name (so
// mcp__server__tool names one MCP tool). A permission naming an MCP server
// (see [MCPServer]) gives the one pseudo-name "mcp:<server>": the caller's
// allowed func answers whether that server is connected with a tool the
// session may call.
func Tools(permission string) []string {
	if tools, ok := table[permission]; ok {
		return append([]string(nil), tools...)
	}
	if server, ok := MCPServer(permission); ok {
		return []string{"mcp:" + server}
	}
	return []string{permission}
}

// MCPServer reports whether permission names an MCP server rather than a
// tool — mcp:<server>, or Claude Code's mcp__<server> — and which.
func MCPServer(permission string) (string, bool) {
	if server, ok := strings.CutPrefix(permission, "mcp:"); ok && server != "" {
		return server, true
	}
	if server, ok := strings.CutPrefix(permission, "mcp__"); ok && server != "" && !strings.Contains(server, "__") {
		return server, true
	}
	return "", false
}

// Known returns the permission names of the table, sorted.
func Known() []string {
	names := make([]string, 0, len(table))
	for name := range table {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Satisfied reports whether any tool mapped to permission is allowed.
func Satisfied(permission string, allowed func(tool string) bool) bool {
	for _, tool := range Tools(permission) {
		if allowed(tool) {
			return true
		}
	}
	return false
}

// FirstMissing returns the first permission of perms that no allowed tool
// satisfies, and false; or "" and true when all are satisfied.
func FirstMissing(perms []string, allowed func(tool string) bool) (string, bool) {
	for _, p := range perms {
		if !Satisfied(p, allowed) {
			return p, false
		}
	}
	return "", true
}

// Check returns "" when every permission of perms is satisfied by an allowed
// tool, else the §4.5 row-7 sentence for the first one that is not:
// `Skill '<skill>' requires permission '<p>' but no matching tool is available.`
func Check(skill string, perms []string, allowed func(tool string) bool) string {
	if p, ok := FirstMissing(perms, allowed); !ok {
		return "Skill '" + skill + "' requires permission '" + p + "' but no matching tool is available."
	}
	return ""
}

// AllowedSet returns a membership function over names, for use with [Check].
func AllowedSet(names []string) func(string) bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return func(tool string) bool { return set[tool] }
}
