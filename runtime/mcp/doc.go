// Package mcp is clawseed's Model Context Protocol client (§9.2), built on
// the official go-sdk: it starts the configured servers concurrently in the
// background, turns their tools into agent tools named
// mcp__<server>__<tool> (Claude Code's naming, so skills written for it
// work), their prompts into user commands and their resources into one
// mcp_resource_read tool, and follows them through crashes (one restart)
// and tools/list_changed notifications. A server that declares MCP's
// skills extension also offers skills: [Manager.Skills] returns those whose
// SKILL.md matched the server's digests (skills.go), which cmd/clawseed
// joins to the skill catalog as server:skill.
//
// The package does not import the agent: [Manager.Tools] returns values
// with the agent's Tool methods (Spec, Class, Run), and cmd/clawseed adapts
// the set to the agent's ToolSource.
//
// Tool schema economy: when the tools' schemas together exceed
// Options.MaxSchemaBytes, the tools are deferred ([ToolSet.Deferred]):
// callable, but out of the tools array until the agent's one tool_search
// (runtime/agent/toolsearch.go, which finds the deferred built-in tools
// too) finds them; each found tool then joins the tools array for the rest
// of the session, after the sorted list, in the order found, so the bytes
// before it do not change.
package mcp
