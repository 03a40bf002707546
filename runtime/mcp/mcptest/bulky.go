package mcptest

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bulkyTopics give the bulky tools distinct words, so a tool search has
// something to find: tool_NNN is about bulkyTopics[NNN % len].
var bulkyTopics = []string{
	"weather", "calendar", "invoices", "tickets", "deployments",
	"inventory", "payroll", "shipments", "contracts", "telemetry",
}

// BulkyTopic is the topic word in the description of bulky tool i.
func BulkyTopic(i int) string { return bulkyTopics[i%len(bulkyTopics)] }

// BulkyName is the name of bulky tool i: tool_000, tool_001, ...
func BulkyName(i int) string { return fmt.Sprintf("tool_%03d", i) }

// bulkyIn is wide on purpose: real servers' tools carry schemas of this
// size, and the deferred mode exists because of them.
type bulkyIn struct {
	Query           string `json:"query" jsonschema:"the search query: words, quoted phrases and field:value filters"`
	Limit           int    `json:"limit,omitempty" jsonschema:"the most records to return, 1 to 100 (default 20)"`
	Sort            string `json:"sort,omitempty" jsonschema:"relevance, newest or oldest (default relevance)"`
	IncludeArchived bool   `json:"include_archived,omitempty" jsonschema:"also search archived records"`
}

// addBulkyTools adds n tools tool_000.. with ~400-byte descriptions and
// ~450-byte schemas, each answering "tool_NNN: <query>".
func addBulkyTools(s *mcp.Server, n int) {
	for i := range n {
		name := BulkyName(i)
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: bulkyDescription(i, n)},
			func(_ context.Context, _ *mcp.CallToolRequest, in bulkyIn) (*mcp.CallToolResult, any, error) {
				return textResult(name + ": " + in.Query), nil, nil
			})
	}
}

func bulkyDescription(i, n int) string {
	return fmt.Sprintf("Search the %s records (%s, one of %d bulky test tools). ", BulkyTopic(i), BulkyName(i), n) +
		"Returns the matching records as a list, one per line, each with its identifier, " +
		"title, owner, creation date and a short excerpt of its body. Use the query to " +
		"narrow the search, limit to bound the number of records and sort to choose " +
		"their order. Archived records are left out unless include_archived is set."
}

// lineWriter serialises log lines: handlers run concurrently, and a line
// must reach a client's stderr tail whole.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) printf(format string, args ...any) {
	// A client's tool name with a newline in it must not forge a log line.
	msg := strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, fmt.Sprintf(format, args...))
	line := "mcptest: " + msg + "\n"
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.w, line) // a log line that cannot be written must not fail the request
}
