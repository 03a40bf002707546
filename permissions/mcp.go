package permissions

import "strings"

// MCP tools are named mcp__<server>__<tool> (runtime/mcp). Whatever matches
// a permission against an MCP tool (`mcp__github`, `mcp__github__*`,
// auto_approve, allowed-tools, a fork's tools) needs the server the tool
// belongs to, and takes it from the name with SplitMCPName. That is the
// tool's real server by construction: every server name is checked with
// MCPServerNameProblem, by the config for [mcp.servers] and .mcp.json and
// by runtime/mcp again before a server starts, and it admits only names
// for which the split is unique. A name ending in "_" is refused because
// server "a_" would call its tool x "mcp__a___x", which is also server
// "a"'s tool "_x": approving server a approved a_. A name with "__"
// inside would split early, and one starting with "_" would run into the
// prefix ("mcp___a").

// MCPPrefix starts the name of every MCP tool and prompt command.
const MCPPrefix = "mcp__"

// MCPServerNameProblem says what is wrong with an MCP server name, "" when
// nothing: 1 to 32 letters, digits, "_" or "-", no "__", and no "_" at
// either end.
func MCPServerNameProblem(name string) string {
	switch {
	case len(name) < 1 || len(name) > 32 || strings.IndexFunc(name, func(r rune) bool {
		return !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) >= 0:
		return "invalid server name: use 1 to 32 letters, digits, \"_\" or \"-\" (its tools are named mcp__<server>__<tool>)"
	case strings.Contains(name, "__"):
		return "invalid server name: it may not contain \"__\", which separates server and tool in MCP tool names (mcp__<server>__<tool>)"
	case strings.HasPrefix(name, "_") || strings.HasSuffix(name, "_"):
		return "invalid server name: it may not start or end with \"_\": its tool names (mcp__<server>__<tool>) would also read as another server's"
	}
	return ""
}

// SplitMCPName splits mcp__<server>__<tool> into its server and tool; ok
// is false for a name without the prefix, the separator, a server or a
// tool. The first "__" after the prefix ends the server: a server name
// holds none and does not end in "_" (MCPServerNameProblem).
func SplitMCPName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, MCPPrefix)
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	return server, tool, ok && server != "" && tool != ""
}
