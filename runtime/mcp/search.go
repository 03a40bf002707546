package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

// SearchToolName is the tool that finds deferred MCP tools.
const SearchToolName = "mcp_tool_search"

const searchSchema = `{"type":"object","properties":{"query":{"type":"string","description":"words to look for in tool names and descriptions, or a tool's full name"},"server":{"type":"string","description":"only this server's tools"},"limit":{"type":"integer","minimum":1,"maximum":50,"description":"most tools to return (default 10)"}},"required":["query"],"additionalProperties":false}`

// searchTool is mcp_tool_search: with the tools deferred, it is the one MCP
// tool in the tools array, and the way the model loads the others.
type searchTool struct{ m *Manager }

func (t *searchTool) Spec() providers.ToolSpec {
	t.m.mu.Lock()
	servers := t.m.serverNote
	t.m.mu.Unlock()
	return providers.ToolSpec{
		Name: SearchToolName,
		Description: "Find tools of the connected MCP servers. Their schemas are not in your tools list, to save tokens: " +
			"search by words (or a full tool name), and every tool found is added to your tools, callable from your next step on, for the rest of the session. " +
			"Tools are named mcp__<server>__<tool>. Servers: " + servers + ".",
		Schema: json.RawMessage(searchSchema),
	}
}

// Class is read: it looks at lists the client already holds.
func (t *searchTool) Class() permissions.Class { return permissions.ClassRead }

type searchArgs struct {
	Query  string `json:"query"`
	Server string `json:"server"`
	Limit  int    `json:"limit"`
}

func (t *searchTool) Run(_ context.Context, raw json.RawMessage) providers.ToolResult {
	var args searchArgs
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&args); err != nil {
		return errorResult("Invalid arguments for %s: %v", SearchToolName, err)
	}
	if strings.TrimSpace(args.Query) == "" {
		return errorResult("Invalid arguments for %s: query is empty", SearchToolName)
	}
	limit := args.Limit
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, 50)
	t.m.mu.Lock()
	all := t.m.connectedTools()
	t.m.mu.Unlock()
	hits := rank(all, args.Query, args.Server)
	if len(hits) == 0 {
		return providers.ToolResult{Content: fmt.Sprintf("No MCP tool matches %q. Servers: %s.", args.Query, t.m.serverSummary())}
	}
	more := len(hits) - limit
	hits = hits[:min(limit, len(hits))]
	var b strings.Builder
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = h.spec.Name
		fmt.Fprintf(&b, "%s — %s\n", h.spec.Name, FirstLine(h.spec.Description, 160))
	}
	if more > 0 {
		fmt.Fprintf(&b, "(%d more match; narrow the query or raise limit)\n", more)
	}
	b.WriteString("These tools are now in your tools list: call them from your next step.")
	t.m.markFound(names...)
	return providers.ToolResult{Content: b.String()}
}

// rank scores tools by the query's words: a full-name match first, then
// words found in the name (2 points each) and in the description (1).
func rank(all []*Tool, query, server string) []*Tool {
	query = strings.ToLower(strings.TrimSpace(query))
	words := strings.FieldsFunc(query, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
	type hit struct {
		t     *Tool
		score int
	}
	var hits []hit
	for _, t := range all {
		if server != "" && t.Server() != server {
			continue
		}
		name, desc := strings.ToLower(t.spec.Name), strings.ToLower(t.spec.Description)
		score := 0
		if name == query || strings.ToLower(t.remote) == query {
			score += 100
		}
		for _, w := range words {
			if strings.Contains(name, w) {
				score += 2
			} else if strings.Contains(desc, w) {
				score++
			}
		}
		if query == "*" {
			score = 1
		}
		if score > 0 {
			hits = append(hits, hit{t, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(b.score, a.score) })
	out := make([]*Tool, len(hits))
	for i, h := range hits {
		out[i] = h.t
	}
	return out
}

// serverSummary names the connected servers with their tool counts.
func (m *Manager) serverSummary() string {
	var parts []string
	for _, st := range m.Status() {
		if st.State == StateConnected {
			parts = append(parts, st.Label())
		}
	}
	if len(parts) == 0 {
		return "none connected"
	}
	return strings.Join(parts, ", ")
}

// FirstLine returns the first line of s, at most n bytes (a description
// in a listing).
func FirstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}
