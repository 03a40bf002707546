package agent

// Tool schema economy (§9.2, issue 28): a deferred tool is registered —
// callable, and seen by every permission check — but its schema stays out
// of the tools array until the model needs it. One tool, tool_search,
// finds the deferred tools of both kinds: the registered tools the session
// defers ([Options.Deferred]: rarely used built-in tools) and the tool
// source's ([ToolSet.Deferred]: MCP tools over [mcp].max_schema_bytes). A
// tool joins the array for the rest of the session, appended after the
// sorted list in the order it joined, so the bytes of the previous
// request's tools array stay a prefix of the next one's (the provider's
// prompt cache holds), when
//   - tool_search returns it,
//   - the model calls it by name without searching (the call runs: the
//     tool validates its arguments against its schema and says what is
//     wrong, as for any call),
//   - a skill whose `permissions` or `allowed-tools` name it is active, or
//   - a resumed session had called it.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

// toolSearchName is the tool that finds deferred tools; Claude Code's
// ToolSearch (permissions.ClaudeTool maps that name to this one).
const toolSearchName = "tool_search"

const toolSearchSchema = `{"type":"object","properties":{"query":{"type":"string","description":"words to look for in tool names and descriptions, a tool's full name, or select:NAME,NAME"},"limit":{"type":"integer","minimum":1,"maximum":50,"description":"most tools to return (default 10)"}},"required":["query"],"additionalProperties":false}`

// foundTools is the deferred tools that joined the tools array, in order.
// Tool calls run on their own goroutines (a search, a direct call), so it
// has its own lock; the tools array is rebuilt from it between requests.
type foundTools struct {
	mu    sync.Mutex
	names []string
	// dirty says names grew since the tools array was last built.
	dirty bool
}

// add appends the names not yet found; it reports whether any was new.
func (f *foundTools) add(names ...string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	added := false
	for _, n := range names {
		if !slices.Contains(f.names, n) {
			f.names = append(f.names, n)
			added = true
		}
	}
	f.dirty = f.dirty || added
	return added
}

// take returns the names and clears dirty.
func (f *foundTools) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dirty = false
	return slices.Clone(f.names)
}

// changed reports whether names grew since the last take.
func (f *foundTools) changed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dirty
}

// reset forgets every name (a new session in the process, /clear).
func (f *foundTools) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.names, f.dirty = nil, true
}

// toolSearch is tool_search: it ranks the deferred tools it was built
// with (fixed between two requests) and adds those it returns to found.
type toolSearch struct {
	spec     providers.ToolSpec
	deferred []providers.ToolSpec // sorted by name
	found    *foundTools
}

func (t *toolSearch) Spec() providers.ToolSpec { return t.spec }

// Class is read: it looks at schemas the session already holds.
func (t *toolSearch) Class() permissions.Class { return permissions.ClassRead }

func (t *toolSearch) Run(_ context.Context, raw json.RawMessage) providers.ToolResult {
	var args struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&args); err != nil {
		return errorResult("Invalid arguments for %s: %v", toolSearchName, err)
	}
	if strings.TrimSpace(args.Query) == "" {
		return errorResult("Invalid arguments for %s: query is empty", toolSearchName)
	}
	limit := args.Limit
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, 50)
	hits := rankTools(t.deferred, args.Query)
	if len(hits) == 0 {
		return providers.ToolResult{Content: fmt.Sprintf("No deferred tool matches %q. Deferred tools: %s.", args.Query, summarizeDeferred(t.deferred))}
	}
	more := len(hits) - limit
	hits = hits[:min(limit, len(hits))]
	var b strings.Builder
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = h.Name
		fmt.Fprintf(&b, "%s — %s\n", h.Name, firstLine(h.Description, 160))
	}
	if more > 0 {
		fmt.Fprintf(&b, "(%d more match; narrow the query or raise limit)\n", more)
	}
	b.WriteString("These tools are now in your tools list: call them from your next step.")
	t.found.add(names...)
	return providers.ToolResult{Content: b.String()}
}

// rankTools scores specs by the query: `select:a,b` names tools exactly
// (Claude Code's form); else a full name (or an MCP tool's own name, the
// part after its server) first, then each word found in the name (2
// points) or the description (1); "*" lists all.
func rankTools(specs []providers.ToolSpec, query string) []providers.ToolSpec {
	query = strings.ToLower(strings.TrimSpace(query))
	if sel, ok := strings.CutPrefix(query, "select:"); ok {
		var out []providers.ToolSpec
		for _, n := range strings.Split(sel, ",") {
			i := slices.IndexFunc(specs, func(s providers.ToolSpec) bool { return strings.ToLower(s.Name) == strings.TrimSpace(n) })
			if i >= 0 && !slices.ContainsFunc(out, func(s providers.ToolSpec) bool { return s.Name == specs[i].Name }) {
				out = append(out, specs[i])
			}
		}
		return out
	}
	words := strings.FieldsFunc(query, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
	type hit struct {
		spec  providers.ToolSpec
		score int
	}
	var hits []hit
	for _, s := range specs {
		name, desc := strings.ToLower(s.Name), strings.ToLower(s.Description)
		score := 0
		if _, own, ok := permissions.SplitMCPName(s.Name); name == query || ok && strings.ToLower(own) == query {
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
			hits = append(hits, hit{s, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(b.score, a.score) })
	out := make([]providers.ToolSpec, len(hits))
	for i, h := range hits {
		out[i] = h.spec
	}
	return out
}

// toolSearchSpec is tool_search's specification. Its description names
// the deferred built-in tools (a fixed list for the session) and what the
// tool source says of its deferred tools (frozen when they were deferred),
// so it changes only when the source first defers.
func toolSearchSpec(own []string, sourceNote string) providers.ToolSpec {
	var b strings.Builder
	b.WriteString("Load deferred tools: their schemas are left out of your tools list to save tokens. " +
		"Search by words, a full name, or select:NAME,NAME; every tool found joins your tools, callable from your next step on, for the rest of the session.")
	if len(own) > 0 {
		b.WriteString(" Deferred: " + strings.Join(own, ", ") + ".")
	}
	if sourceNote != "" {
		b.WriteString(" " + sourceNote)
	}
	return providers.ToolSpec{Name: toolSearchName, Description: b.String(), Schema: json.RawMessage(toolSearchSchema)}
}

// summarizeDeferred names the deferred tools briefly: the built-in ones
// by name, MCP tools counted per server.
func summarizeDeferred(specs []providers.ToolSpec) string {
	var names []string
	servers := map[string]int{}
	var order []string
	for _, s := range specs {
		if server, _, ok := permissions.SplitMCPName(s.Name); ok {
			if servers[server] == 0 {
				order = append(order, server)
			}
			servers[server]++
			continue
		}
		names = append(names, s.Name)
	}
	for _, server := range order {
		names = append(names, fmt.Sprintf("%s (%d MCP tools)", server, servers[server]))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// firstLine returns the first line of s, at most n bytes.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

// skillNeeds returns the deferred tools among candidates that the active
// skills ask for — by `permissions` (through the permission table) or by
// `allowed-tools` entries — in activation order: they join the tools
// array as the skill activates.
func (a *Agent) skillNeeds(candidates map[string]Tool) []string {
	if a.opts.Skills == nil || len(candidates) == 0 {
		return nil
	}
	names := make([]string, 0, len(candidates))
	for n := range candidates {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []string
	for _, act := range a.opts.Skills.List() {
		for _, p := range act.Skill.Permissions {
			for _, n := range permissions.Tools(p) {
				if _, ok := candidates[n]; ok {
					out = append(out, n)
				}
			}
		}
		for _, n := range names {
			if permissions.NamesTool(act.Skill.AllowedTools, n, candidates[n].Class()) {
				out = append(out, n)
			}
		}
	}
	return out
}

// noteCall adds a deferred tool the model called by name to the tools
// array (see the file comment).
func (a *Agent) noteCall(name string) {
	if _, ok := a.deferred[name]; ok {
		a.found.add(name)
	}
}

// DeferredSpecs returns the specifications of the deferred tools not in
// the tools array, sorted by name (`config show --tools`).
func (a *Agent) DeferredSpecs() []providers.ToolSpec {
	var out []providers.ToolSpec
	for name, t := range a.deferred {
		if !slices.ContainsFunc(a.specs, func(s providers.ToolSpec) bool { return s.Name == name }) {
			out = append(out, t.Spec())
		}
	}
	slices.SortFunc(out, func(x, y providers.ToolSpec) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// calledTools returns the tools history called, in order of first call: a
// resumed session's deferred tools are in its tools array again.
func calledTools(history []providers.Message) []string {
	var out []string
	for _, m := range history {
		for _, c := range m.ToolCalls() {
			if !slices.Contains(out, c.Name) {
				out = append(out, c.Name)
			}
		}
	}
	return out
}

// allSpecs returns the tools array and then the deferred tools not in it:
// every tool a sub-agent may be given.
func (a *Agent) allSpecs() []providers.ToolSpec {
	return append(slices.Clone(a.specs), a.DeferredSpecs()...)
}

// childDeferred returns the tools a sub-agent given tools defers: those
// the session defers, unless its definition's or skill's tool entries
// (named) name them, sorted; none when their schemas weigh less than
// tool_search's own, which deferring them would add.
func (a *Agent) childDeferred(named []string, given []Tool) []string {
	var out []string
	size := 0
	for _, t := range given {
		spec := t.Spec()
		if _, ok := a.deferred[spec.Name]; !ok || permissions.NamesTool(named, spec.Name, t.Class()) {
			continue
		}
		out = append(out, spec.Name)
		size += specBytes(spec)
	}
	slices.Sort(out)
	if size <= specBytes(toolSearchSpec(out, "")) {
		return nil
	}
	return out
}

// specBytes is the size of spec in the tools array.
func specBytes(spec providers.ToolSpec) int {
	b, _ := json.Marshal(spec)
	return len(b)
}

// CallableNames returns the names of every tool the model can call, sorted:
// the tools array's and the deferred tools' (stream-json's init message
// lists them all, as Claude Code's lists its deferred tools).
func (a *Agent) CallableNames() []string {
	names := make([]string, 0, len(a.tools)+2)
	for _, s := range a.allSpecs() {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return names
}
