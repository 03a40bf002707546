package agent

import (
	"context"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

// A ToolSource supplies tools that come and go during a session: the MCP
// servers' tools (§9.2). The agent asks before each model request, so the
// tools array changes only between requests, when the set's Version does.
type ToolSource interface {
	// Tools returns the current set. It may block while the source gets
	// ready (servers starting, bounded by their start-up deadline).
	Tools(ctx context.Context) ToolSet
	// Has reports whether the source offers name, in the tools array or
	// not (a deferred tool), or the source's own permission pseudo-name
	// (mcp:<server>, see permissions.Tools): what a skill's `permissions`
	// may ask for beyond the tools array ([SkillPermissions]). It may block
	// like Tools.
	Has(name string) bool
}

// A ToolSet is a tool source's tools at one moment.
type ToolSet struct {
	// Version changes whenever the set does.
	Version uint64
	// Listed join the registered tools in the tools array, sorted by name.
	Listed []Tool
	// Deferred may be called but are in the tools array only once found
	// (toolsearch.go): tool_search searches them with the registered
	// deferred tools.
	Deferred []Tool
	// DeferredNote describes Deferred in a sentence for tool_search's
	// description ("MCP servers: github (12 tools)."); it should change
	// seldom, as it is part of the tools array.
	DeferredNote string
}

// syncTools installs the source's tools when they changed since the last
// request, and the deferred tools found since (a search, a direct call, an
// active skill that needs them); after the first install, a change is
// reported as an event.
func (a *Agent) syncTools(ctx context.Context) {
	var set ToolSet
	if a.opts.ToolSource != nil {
		set = a.opts.ToolSource.Tools(ctx)
	}
	a.found.add(a.skillNeeds(a.deferred)...)
	if a.extraSynced && set.Version == a.extra.Version && !a.found.changed() {
		return
	}
	before := a.ToolNames()
	first := !a.extraSynced
	a.extra, a.extraSynced = set, true
	a.rebuildTools()
	// Tools of the source that arrived deferred may be needed by a skill
	// already active.
	if a.found.add(a.skillNeeds(a.deferred)...) {
		a.rebuildTools()
	}
	a.buildBase()
	if first {
		return
	}
	if diff := nameDiff(before, a.ToolNames()); diff != "" {
		a.opts.Sink(Event{Type: EventToolsChanged, Text: diff})
	}
}

// rebuildTools recomputes the callable tools and the tools array from the
// registered tools, the Skill tool and the source's set: the sorted list
// (registered tools not deferred, Skill, Agent, the source's listed tools,
// tool_search when a tool is deferred), then the deferred tools found so
// far, in the order found. A source tool the policy hides, or whose name a
// registered tool has, is left out.
func (a *Agent) rebuildTools() {
	a.tools = make(map[string]Tool, len(a.own))
	a.deferred = map[string]Tool{}
	for name, t := range a.own {
		a.tools[name] = t
	}
	var sorted []providers.ToolSpec
	var ownDeferred []string
	for _, spec := range a.ownSpecs {
		if slices.Contains(a.opts.Deferred, spec.Name) {
			a.deferred[spec.Name] = a.own[spec.Name]
			ownDeferred = append(ownDeferred, spec.Name)
			continue
		}
		sorted = append(sorted, spec)
	}
	if a.skillTool {
		sorted = append(sorted, skillToolSpec(a.skillSearchable))
	}
	if a.agentTool {
		sorted = append(sorted, a.agentSpec)
	}
	if a.todoTool {
		sorted = append(sorted, todoToolSpec())
	}
	if a.planTool {
		sorted = append(sorted, exitPlanSpec())
	}
	add := func(t Tool) (providers.ToolSpec, bool) {
		spec := t.Spec()
		if _, dup := a.tools[spec.Name]; dup || spec.Name == skillToolName || spec.Name == agentToolName || spec.Name == toolSearchName || spec.Name == todoToolName || spec.Name == exitPlanToolName || !a.opts.Policy.Visible(spec.Name, t.Class()) {
			return spec, false
		}
		a.tools[spec.Name] = t
		return spec, true
	}
	for _, t := range a.extra.Listed {
		if spec, ok := add(t); ok {
			sorted = append(sorted, spec)
		}
	}
	for _, t := range a.extra.Deferred {
		if spec, ok := add(t); ok {
			a.deferred[spec.Name] = t
		}
	}
	found := a.found.take()
	if len(a.deferred) > 0 && a.opts.Policy.Visible(toolSearchName, permissions.ClassRead) {
		slices.Sort(ownDeferred)
		search := &toolSearch{spec: toolSearchSpec(ownDeferred, a.extra.DeferredNote), found: &a.found}
		for name, t := range a.deferred {
			if !slices.Contains(found, name) {
				search.deferred = append(search.deferred, t.Spec())
			}
		}
		slices.SortFunc(search.deferred, func(x, y providers.ToolSpec) int { return strings.Compare(x.Name, y.Name) })
		a.tools[toolSearchName] = search
		sorted = append(sorted, search.spec)
	}
	slices.SortFunc(sorted, func(x, y providers.ToolSpec) int { return strings.Compare(x.Name, y.Name) })
	for _, name := range found {
		if t, ok := a.deferred[name]; ok {
			sorted = append(sorted, t.Spec())
		}
	}
	a.specs = sorted
}

// nameDiff renders what changed between two name lists: "+new, -gone".
func nameDiff(before, after []string) string {
	var parts []string
	for _, n := range after {
		if !slices.Contains(before, n) {
			parts = append(parts, "+"+n)
		}
	}
	for _, n := range before {
		if !slices.Contains(after, n) {
			parts = append(parts, "-"+n)
		}
	}
	return strings.Join(parts, ", ")
}
