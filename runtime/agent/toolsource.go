package agent

import (
	"context"
	"slices"
	"strings"

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
	// Appended follow the sorted tools array in this order, so that adding
	// one leaves the bytes before it unchanged (deferred tools, found by a
	// search, §9.2).
	Appended []Tool
	// Hidden may be called but are not in the tools array.
	Hidden []Tool
}

// syncTools installs the source's tools when they changed since the last
// request; after the first install, a change is reported as an event.
func (a *Agent) syncTools(ctx context.Context) {
	if a.opts.ToolSource == nil {
		return
	}
	set := a.opts.ToolSource.Tools(ctx)
	if a.extraSynced && set.Version == a.extra.Version {
		return
	}
	before := a.ToolNames()
	first := !a.extraSynced
	a.extra, a.extraSynced = set, true
	a.rebuildTools()
	a.buildBase()
	if first {
		return
	}
	if diff := nameDiff(before, a.ToolNames()); diff != "" {
		a.opts.Sink(Event{Type: EventToolsChanged, Text: diff})
	}
}

// rebuildTools recomputes the callable tools and the tools array from the
// registered tools, the Skill tool and the source's set. A source tool
// the policy hides, or whose name a registered tool has, is left out.
func (a *Agent) rebuildTools() {
	a.tools = make(map[string]Tool, len(a.own))
	for name, t := range a.own {
		a.tools[name] = t
	}
	sorted := slices.Clone(a.ownSpecs)
	if a.skillTool {
		sorted = append(sorted, skillToolSpec(a.skillSearchable))
	}
	if a.agentTool {
		sorted = append(sorted, a.agentSpec)
	}
	add := func(t Tool) (providers.ToolSpec, bool) {
		spec := t.Spec()
		if _, dup := a.tools[spec.Name]; dup || spec.Name == skillToolName || spec.Name == agentToolName || !a.opts.Policy.Visible(spec.Name, t.Class()) {
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
	slices.SortFunc(sorted, func(x, y providers.ToolSpec) int { return strings.Compare(x.Name, y.Name) })
	for _, t := range a.extra.Appended {
		if spec, ok := add(t); ok {
			sorted = append(sorted, spec)
		}
	}
	for _, t := range a.extra.Hidden {
		add(t)
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
