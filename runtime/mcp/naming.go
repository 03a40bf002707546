package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Prefix starts the name of every MCP tool and prompt command.
const Prefix = "mcp__"

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

// SplitName splits mcp__<server>__<tool> into its server and tool parts;
// ok is false for a name without the prefix or the separator. Server names
// never contain "__" (the config refuses them), so the first separator
// after the prefix ends the server name.
func SplitName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	return server, tool, ok && server != "" && tool != ""
}
