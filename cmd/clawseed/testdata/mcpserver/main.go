// Command mcpserver is the test MCP server (runtime/mcp/mcptest) as a
// program of its own, for the start-up benchmark with an MCP server.
package main

import (
	"os"

	"github.com/clawseed/clawseed/runtime/mcp/mcptest"
)

func main() { os.Exit(mcptest.Main()) }
