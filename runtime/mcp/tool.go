package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

// maxDescription caps a tool description a server sends: the model reads
// it in every request, and servers have sent pages.
const maxDescription = 2048

// A Tool is one tool of a connected server, as the agent calls it.
type Tool struct {
	srv    *server
	remote string // the server's name for it
	spec   providers.ToolSpec
	size   int // bytes of spec in the tools array

	once     sync.Once
	resolved *jsonschema.Resolved // nil when the schema cannot be resolved: the server validates
}

func newTool(srv *server, t *sdk.Tool) *Tool {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	if len(desc) > maxDescription {
		desc = strings.ToValidUTF8(desc[:maxDescription], "") + "…"
	}
	spec := providers.ToolSpec{
		Name:        ToolName(srv.cfg.Name, t.Name),
		Description: desc,
		Schema:      normalizeSchema(t.InputSchema),
	}
	return &Tool{srv: srv, remote: t.Name, spec: spec, size: specBytes(spec)}
}

// emptySchema is the schema of a tool whose own schema providers would
// refuse.
const emptySchema = `{"type":"object","properties":{}}`

// normalizeSchema returns the tool's input schema as providers accept it:
// an object schema (a missing type or properties is added). Anything else
// — not a JSON object, or a top-level type other than "object", which
// both wires refuse for the whole request — becomes the empty object
// schema: one server's bad schema must not break every request. Keys are
// re-encoded in sorted order, so the bytes do not depend on the server's
// map order.
func normalizeSchema(in any) json.RawMessage {
	b, err := json.Marshal(in)
	var m map[string]any
	if err != nil || json.Unmarshal(b, &m) != nil || m == nil {
		return json.RawMessage(emptySchema)
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if m["type"] != "object" {
		return json.RawMessage(emptySchema)
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(emptySchema)
	}
	return out
}

// Spec is the tool as the model sees it.
func (t *Tool) Spec() providers.ToolSpec { return t.spec }

// Class is network: an MCP tool reaches another program or host, whose
// effects clawseed cannot see (§9.2).
func (t *Tool) Class() permissions.Class { return permissions.ClassNetwork }

// Server is the name of the tool's server.
func (t *Tool) Server() string { return t.srv.cfg.Name }

// Remote is the server's own name for the tool.
func (t *Tool) Remote() string { return t.remote }

// Timeout lets a call run for the server's tool_timeout_secs, even when it
// is longer than the agent's per-call limit.
func (t *Tool) Timeout(json.RawMessage) time.Duration { return t.srv.cfg.ToolTimeout }

// Run validates the arguments against the server's schema and calls the
// tool. Every failure is a result the model can read.
func (t *Tool) Run(ctx context.Context, args json.RawMessage) providers.ToolResult {
	if msg := t.validate(args); msg != "" {
		return errorResult("Invalid arguments for %s: %s", t.spec.Name, msg)
	}
	cs, state := t.srv.current()
	if cs == nil {
		return errorResult("MCP server %s is not connected (%s).", t.srv.cfg.Name, state)
	}
	timeout := t.srv.cfg.ToolTimeout
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := cs.CallTool(callCtx, &sdk.CallToolParams{Name: t.remote, Arguments: args})
	switch {
	case err == nil:
		return convertResult(res)
	case ctx.Err() != nil:
		return errorResult("Cancelled by user.")
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		return errorResult("MCP tool %s timed out after %s ([mcp.servers.%s].tool_timeout_secs).", t.spec.Name, timeout, t.srv.cfg.Name)
	case t.srv.ended(cs):
		return errorResult("MCP server %s stopped during the call (%v); it is restarted once per session: call the tool again if the call had no effect.", t.srv.cfg.Name, err)
	default:
		return errorResult("MCP server %s: %v", t.srv.cfg.Name, err)
	}
}

// validate checks args against the input schema; "" when they pass (or
// the schema is one the validator cannot resolve: the server checks then).
func (t *Tool) validate(args json.RawMessage) string {
	t.once.Do(func() {
		var s jsonschema.Schema
		if json.Unmarshal(t.spec.Schema, &s) != nil {
			return
		}
		if r, err := s.Resolve(nil); err == nil {
			t.resolved = r
		}
	})
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return "not valid JSON"
	}
	if _, ok := v.(map[string]any); !ok {
		return "arguments must be a JSON object"
	}
	if t.resolved == nil {
		return ""
	}
	if err := t.resolved.Validate(v); err != nil {
		return err.Error()
	}
	return ""
}

func errorResult(format string, args ...any) providers.ToolResult {
	return providers.ToolResult{Content: fmt.Sprintf(format, args...), IsError: true}
}

// convertResult turns a tool result into text: text as is, images and
// audio as a short note (the model cannot see them through a tool result
// here), resources as their text, structured content as JSON when there is
// nothing else; isError carries over.
func convertResult(res *sdk.CallToolResult) providers.ToolResult {
	var parts []string
	for _, c := range res.Content {
		if s := contentText(c); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	text := strings.Join(parts, "\n")
	if text == "" {
		text = "(no output)"
	}
	return providers.ToolResult{Content: text, IsError: res.IsError}
}

// contentText renders one content block.
func contentText(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes, not shown]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes, not shown]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.ResourceLink:
		s := "[resource link: " + c.URI
		if c.Name != "" {
			s += " (" + c.Name + ")"
		}
		return s + "]"
	case *sdk.EmbeddedResource:
		return resourceText(c.Resource)
	case nil:
		return ""
	default:
		return fmt.Sprintf("[%T content, not shown]", c)
	}
}

// resourceText renders resource contents: the text, or a note for a blob.
func resourceText(r *sdk.ResourceContents) string {
	switch {
	case r == nil:
		return ""
	case r.Text != "" || r.Blob == nil:
		return r.Text
	default:
		return fmt.Sprintf("[resource %s: %s, %d bytes of binary data, not shown]", r.URI, orUnknown(r.MIMEType), len(r.Blob))
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}
