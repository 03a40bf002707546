package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/clawseed/clawseed/permissions"
)

// Prefix starts the name of every MCP tool and prompt command.
const Prefix = permissions.MCPPrefix

// maxNameLen is the longest tool name every provider accepts (OpenAI:
// ^[a-zA-Z0-9_-]{1,64}$).
const maxNameLen = 64

// ToolName is the name a server's tool has in clawseed:
// mcp__<server>__<tool>, with characters providers refuse replaced by "_",
// and shortened with a hash of the original when it would exceed 64
// characters, so two long names stay distinct.
func ToolName(server, tool string) string {
	name := Prefix + server + "__" + sanitize(tool)
	if len(name) <= maxNameLen && name == Prefix+server+"__"+tool {
		return name
	}
	sum := sha256.Sum256([]byte(tool))
	suffix := "_" + hex.EncodeToString(sum[:4])
	if len(name)+len(suffix) > maxNameLen {
		name = name[:maxNameLen-len(suffix)]
	}
	return name + suffix
}

// sanitize replaces every character outside [A-Za-z0-9_-] with "_".
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// SplitName splits mcp__<server>__<tool> into its server and tool parts
// (permissions.SplitMCPName, the one reading of the name the permission
// checks use too); ok is false for a name without the prefix or the
// separator. It finds the tool's real server because no server starts
// under a name permissions.MCPServerNameProblem refuses (newServer).
func SplitName(name string) (server, tool string, ok bool) {
	return permissions.SplitMCPName(name)
}
