package permissions

import (
	"strings"
)

// claudeToolNames maps Claude Code's tool names, used in `allowed-tools`
// frontmatter of skills written for Claude Code, to this runtime's tools.
var claudeToolNames = map[string]string{
	"Read":      "file_read",
	"Write":     "file_write",
	"Edit":      "file_edit",
	"MultiEdit": "file_edit",
	"Bash":      "shell",
	"Glob":      "glob_search",
	"Grep":      "content_search",
	"WebFetch":  "web_fetch",
	"WebSearch": "web_search",
}

// AllowedToolsCover reports whether a skill's `allowed-tools` entries
// pre-approve a call of tool described by summary (the shell command, the
// path). Entries are tool names or globs (`file_read`, `memory_*`), Claude Code
// names (`Read`, `Bash`), or a name with a pattern: `Bash(git:*)` or
// `shell(git status:*)` approves shell commands starting with that prefix,
// `Bash(make test)` exactly that command, and for other tools the pattern is a
// glob over the summary (`Write(docs/*)`).
//
// A shell command containing control operators, substitutions or redirections
// is never pre-approved by a prefix pattern: `git status && rm -rf ~` must not
// pass as `git`.
//
// A network tool is pre-approved only by an entry that names it (`web_fetch`,
// `WebFetch`, `web_fetch(...)`), never by a glob such as `*` or `web_*`:
// reaching the network must be a decision about that tool. The one glob
// allowed is over one MCP server's tools, `mcp__github__*` or Claude
// Code's `mcp__github`, since it names the server whose tools it approves.
func AllowedToolsCover(entries []string, tool, summary string) bool {
	return allowedToolsCover(entries, tool, summary, false)
}

// AllowedToolsCoverClass is [AllowedToolsCover] for a tool of class c.
func AllowedToolsCoverClass(entries []string, tool, summary string, c Class) bool {
	return allowedToolsCover(entries, tool, summary, c == ClassNetwork)
}

func allowedToolsCover(entries []string, tool, summary string, exact bool) bool {
	for _, e := range entries {
		name, pattern, hasPattern := splitEntry(strings.TrimSpace(e))
		if mapped, ok := claudeToolNames[name]; ok {
			name = mapped
		}
		if exact && name != tool && !serverGlob(name, tool) {
			continue
		}
		if !MatchGlob(name, tool) && !serverGlob(name, tool) {
			continue
		}
		if !hasPattern || pattern == "*" {
			return true
		}
		if tool == "shell" {
			if shellPatternMatches(pattern, summary) {
				return true
			}
			continue
		}
		if MatchGlob(pattern, summary) {
			return true
		}
	}
	return false
}

func splitEntry(e string) (name, pattern string, ok bool) {
	open := strings.IndexByte(e, '(')
	if open <= 0 || !strings.HasSuffix(e, ")") {
		return e, "", false
	}
	return e[:open], strings.TrimSpace(e[open+1 : len(e)-1]), true
}

func shellPatternMatches(pattern, command string) bool {
	command = strings.TrimSpace(command)
	if command == "" || strings.ContainsAny(command, ";&|`$<>()\n\r") {
		return false
	}
	if prefix, ok := strings.CutSuffix(pattern, ":*"); ok {
		prefix = strings.TrimSpace(prefix)
		return command == prefix || strings.HasPrefix(command, prefix+" ")
	}
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(command, prefix)
	}
	return command == pattern
}

// NamesTool reports whether one of a skill's `allowed-tools` entries names
// tool (a tool of class c), whatever pattern it carries: `Bash(git:*)`
// names shell. A fork skill's sub-agent is given exactly the tools its
// entries name (§4.10). As for pre-approval, a network tool is named only
// by an entry that spells it, never by a glob.
func NamesTool(entries []string, tool string, c Class) bool {
	for _, e := range entries {
		name, _, _ := splitEntry(strings.TrimSpace(e))
		if mapped, ok := claudeToolNames[name]; ok {
			name = mapped
		}
		if c == ClassNetwork && name != tool && !serverGlob(name, tool) {
			continue
		}
		if MatchGlob(name, tool) || serverGlob(name, tool) {
			return true
		}
	}
	return false
}

// serverGlob reports whether entry covers the tools of the MCP server tool
// belongs to (see SplitMCPName): `mcp__<server>` (Claude Code's rule for
// all of a server's tools) or a glob `mcp__<server>__<pattern>`, with no
// glob character in the server part, whose pattern matches the tool's own
// name.
func serverGlob(entry, tool string) bool {
	server, name, ok := SplitMCPName(tool)
	if !ok {
		return false
	}
	if entry == MCPPrefix+server {
		return true
	}
	pattern, ok := strings.CutPrefix(entry, MCPPrefix+server+"__")
	return ok && MatchGlob(pattern, name)
}

// DescribeAllowedTools returns allowed-tools entries as this runtime names
// their tools, for showing what a skill pre-approves: `Bash(git:*)` is
// `shell(git:*)`, `Write` is `file_write`; other entries are unchanged.
func DescribeAllowedTools(entries []string) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		e = strings.TrimSpace(e)
		name, pattern, hasPattern := splitEntry(e)
		if mapped, ok := claudeToolNames[name]; ok {
			e = mapped
			if hasPattern {
				e += "(" + pattern + ")"
			}
		}
		out = append(out, e)
	}
	return out
}
