package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

// ResourceToolName is the tool that reads MCP resources.
const ResourceToolName = "mcp_resource_read"

const resourceSchema = `{"type":"object","properties":{"server":{"type":"string","description":"the MCP server's name"},"uri":{"type":"string","description":"the resource URI; omit it to list the server's resources"}},"required":["server"],"additionalProperties":false}`

// resourceTool is mcp_resource_read, registered while some connected
// server lists resources. Its description is fixed (the resources are
// listed by /mcp, and by the servers' own tools), so the tools array does
// not change when a server's resources do.
type resourceTool struct{ m *Manager }

func (t *resourceTool) Spec() providers.ToolSpec {
	return providers.ToolSpec{
		Name:        ResourceToolName,
		Description: "Read a resource of a connected MCP server by its URI (resources are files, records or documents a server exposes), or list a server's resources by giving no uri. Returns the resource's text.",
		Schema:      json.RawMessage(resourceSchema),
	}
}

// Class is network, like every MCP call.
func (t *resourceTool) Class() permissions.Class { return permissions.ClassNetwork }

// Summary names the resource in an approval prompt.
func (t *resourceTool) Summary(raw json.RawMessage) string {
	var args struct{ Server, URI string }
	_ = json.Unmarshal(raw, &args)
	return args.Server + " " + args.URI
}

func (t *resourceTool) Run(ctx context.Context, raw json.RawMessage) providers.ToolResult {
	var args struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&args); err != nil || args.Server == "" {
		return errorResult("Invalid arguments for %s: give server, and uri to read one resource.", ResourceToolName)
	}
	s := t.m.server(args.Server)
	if s == nil {
		return errorResult("No MCP server %q. Servers: %s.", args.Server, t.m.serverSummary())
	}
	cs, state := s.current()
	if cs == nil {
		return errorResult("MCP server %s is not connected (%s).", args.Server, state)
	}
	if args.URI == "" {
		return t.list(args.Server)
	}
	// A file of a skill is read only as its listing names it, and shown
	// only once verified against it.
	sr, held := s.skillReadOf(args.URI)
	if sr.refused != "" {
		return errorResult("MCP server %s: %s", args.Server, sr.refused)
	}
	callCtx, cancel := context.WithTimeout(ctx, s.cfg.ToolTimeout)
	defer cancel()
	res, err := cs.ReadResource(callCtx, &sdk.ReadResourceParams{URI: args.URI})
	if err != nil {
		if ctx.Err() != nil {
			return errorResult("Cancelled by user.")
		}
		return errorResult("MCP server %s: read %s: %v", args.Server, args.URI, err)
	}
	if held {
		if msg := sr.check(res); msg != "" {
			return errorResult("MCP server %s: %s", args.Server, msg)
		}
	}
	var parts []string
	for _, c := range res.Contents {
		if s := resourceText(c); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return providers.ToolResult{Content: fmt.Sprintf("(resource %s is empty)", args.URI)}
	}
	return providers.ToolResult{Content: strings.Join(parts, "\n")}
}

// list answers a call without uri: the server's resources, one a line.
func (t *resourceTool) list(server string) providers.ToolResult {
	var b strings.Builder
	for _, r := range t.m.Resources() {
		if r.Server != server {
			continue
		}
		b.WriteString(r.URI)
		if r.Name != "" {
			b.WriteString(" — " + r.Name)
		}
		if r.MIMEType != "" {
			b.WriteString(" (" + r.MIMEType + ")")
		}
		if r.Description != "" {
			b.WriteString(": " + FirstLine(r.Description, 160))
		}
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return providers.ToolResult{Content: fmt.Sprintf("MCP server %s lists no resources.", server)}
	}
	return providers.ToolResult{Content: strings.TrimRight(b.String(), "\n")}
}

// server returns the named server, nil when there is none.
func (m *Manager) server(name string) *server {
	for _, s := range m.servers {
		if s.cfg.Name == name {
			return s
		}
	}
	return nil
}

// A ResourceInfo is one resource a server lists.
type ResourceInfo struct {
	Server      string `json:"server"`
	URI         string `json:"uri"`
	Name        string `json:"name,omitempty"`
	MIMEType    string `json:"mime_type,omitempty"`
	Description string `json:"description,omitempty"`
}

// Resources lists the resources of connected servers, by server then URI.
func (m *Manager) Resources() []ResourceInfo {
	var out []ResourceInfo
	for _, s := range m.servers {
		s.mu.Lock()
		for _, r := range s.resources {
			out = append(out, ResourceInfo{Server: s.cfg.Name, URI: r.URI, Name: r.Name, MIMEType: r.MIMEType, Description: r.Description})
		}
		s.mu.Unlock()
	}
	return out
}
