package permissions

import (
	"fmt"
	"path"
	"slices"
)

// A Level is the autonomy level of [autonomy].level.
type Level string

// The autonomy levels.
const (
	// ReadOnly registers only read-class tools: the model never sees the others.
	ReadOnly Level = "read_only"
	// Supervised asks before write, exec and network tools unless pre-approved.
	Supervised Level = "supervised"
	// Full never asks.
	Full Level = "full"
)

// ParseLevel parses a level name; ClawSeed's spelling "readonly" is accepted.
func ParseLevel(s string) (Level, error) {
	switch s {
	case "read_only", "readonly", "read-only":
		return ReadOnly, nil
	case "supervised", "":
		return Supervised, nil
	case "full":
		return Full, nil
	}
	return "", fmt.Errorf("unknown autonomy level %q (want read_only, supervised or full)", s)
}

// Rank orders the levels by what they let run without asking: read_only
// 0, supervised 1, full 2 (an unknown level ranks as full: callers parse
// levels first).
func (l Level) Rank() int {
	switch l {
	case ReadOnly:
		return 0
	case Supervised:
		return 1
	}
	return 2
}

// Lower returns the lower of two levels: a cap on l.
func (l Level) Lower(cap Level) Level {
	if cap.Rank() < l.Rank() {
		return cap
	}
	return l
}

// A Class says what a tool can do, which decides whether it needs approval.
type Class int

// Tool classes.
const (
	// ClassRead tools only read (files, memory, the skill catalog).
	ClassRead Class = iota
	// ClassWrite tools change files or stored state.
	ClassWrite
	// ClassExec tools run programs.
	ClassExec
	// ClassNetwork tools reach the network.
	ClassNetwork
)

var classNames = [...]string{"read", "write", "exec", "network"}

// String returns "read", "write", "exec" or "network".
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// A Decision is the outcome of [Policy.Decide].
type Decision int

// Decisions.
const (
	// Allow runs the call without asking.
	Allow Decision = iota
	// Ask requires the user's approval first.
	Ask
	// Deny refuses the call.
	Deny
)

// A Policy holds the tool settings of [agent] and [autonomy].
type Policy struct {
	Level Level
	// Allowed are globs over tool names; empty allows every tool.
	Allowed []string
	// Denied are globs over tool names; a match hides the tool (deny wins).
	Denied []string
	// AutoApprove lists tools (globs) that never need approval.
	AutoApprove []string
	// AlwaysAsk lists tools (globs) that need approval under supervised
	// autonomy even when auto-approved, read-class, pre-approved or
	// sandboxed.
	AlwaysAsk []string
	// AutoApproveSandboxed is [autonomy].auto_approve_sandboxed: under
	// supervised autonomy a call that will run inside the active OS
	// sandbox with the network off, asking for nothing more
	// ([Call].Sandboxed), needs no approval.
	AutoApproveSandboxed bool
	// Plan is plan mode (issue 31): on top of the level, only what
	// [PlanAllows] lets through may run; every other call is denied,
	// whatever approves it otherwise. The tools stay visible (the tools
	// array, and so the prompt cache, does not change with the mode).
	Plan bool
	// AcceptEdits is accept-edits mode (Shift+Tab in chat): under
	// supervised autonomy a call that only edits files inside the
	// workspace ([Call].WorkspaceEdit) is allowed without asking;
	// commands, the network and every other write still ask. It widens
	// nothing else: read_only still refuses, always_ask still asks, and
	// what the caller decides before the policy (deny rules, control
	// paths, sandbox escalations) stands; the tool's own refusals
	// (forbidden_paths, paths outside its roots) apply when it runs.
	AcceptEdits bool
}

// A Call is what [Policy.DecideCall] knows of one tool call.
type Call struct {
	Tool  string
	Class Class
	// PreApproved is true when an allow rule covers the call (one of the
	// settings files, or one an "always" answer added earlier in the
	// session: [AlwaysFor]) or an active skill's allowed-tools does.
	PreApproved bool
	// Sandboxed is true when the tool reports that the call will run
	// inside the active OS sandbox with the network off and asks for
	// nothing beyond it (no network, no unsandboxed run). The caller
	// establishes it; a call that asks for more is the caller's to ask
	// about whatever this says (runtime/agent authorize).
	Sandboxed bool
	// WorkspaceEdit is true when the call only edits files inside the
	// workspace ([WorkspaceEdit]): what [Policy].AcceptEdits approves.
	WorkspaceEdit bool
}

// Visible reports whether a tool of this name and class is registered for the
// model at all: it must pass the allowed/denied globs, and read-only autonomy
// hides everything but read-class tools.
func (p Policy) Visible(name string, class Class) bool {
	if matchAny(p.Denied, name) {
		return false
	}
	if len(p.Allowed) > 0 && !matchAny(p.Allowed, name) {
		return false
	}
	if p.Level == ReadOnly && class != ClassRead {
		return false
	}
	return true
}

// Decide says whether a call to a visible tool may run; see [Policy.DecideCall].
func (p Policy) Decide(name string, class Class, preApproved bool) Decision {
	return p.DecideCall(Call{Tool: name, Class: class, PreApproved: preApproved})
}

// DecideCall says whether a call to a visible tool may run. The precedence,
// first match wins:
//
//  0. plan mode denies what [PlanAllows] does not let through;
//  1. full autonomy allows everything;
//  2. read_only allows read-class calls and denies the rest;
//  3. supervised: always_ask asks;
//  4. a read-class, pre-approved or auto-approved call is allowed, and
//     in accept-edits mode a workspace edit;
//  5. a sandboxed call is allowed when AutoApproveSandboxed is on;
//  6. anything else asks.
//
// Denied tools never get here: [Policy.Visible] hides them.
func (p Policy) DecideCall(c Call) Decision {
	if p.Plan && !PlanAllows(c.Tool, c.Class) {
		return Deny
	}
	switch p.Level {
	case Full:
		return Allow
	case ReadOnly:
		if c.Class == ClassRead {
			return Allow
		}
		return Deny
	}
	if matchAny(p.AlwaysAsk, c.Tool) {
		return Ask
	}
	if c.Class == ClassRead || c.PreApproved || p.autoApproved(c.Tool, c.Class) || p.AcceptEdits && c.WorkspaceEdit {
		return Allow
	}
	if c.Sandboxed && p.AutoApproveSandboxed {
		return Allow
	}
	return Ask
}

// planFetchTools are the network tools plan mode lets run: they only
// fetch (a GET of a page, a search, an MCP server's resource).
// http_request (any method) and MCP tools (which may change things
// elsewhere) are refused with the writes.
var planFetchTools = []string{"mcp_resource_read", "web_fetch", "web_search"}

// PlanAllows reports whether a call of this tool, of this per-call class,
// may run in plan mode: reads (files, search, memory recall, git's read
// actions, the agent's own todo list and plan tools) and fetches. It is
// the one rule of plan mode; the level still decides whether such a call
// is asked about.
func PlanAllows(tool string, class Class) bool {
	return class == ClassRead || class == ClassNetwork && slices.Contains(planFetchTools, tool)
}

// AlwaysAsks reports whether [autonomy].always_ask names the tool: under
// supervised autonomy its calls are asked whatever pre-approves them, so
// an "always" answer would change nothing and is not offered.
func (p Policy) AlwaysAsks(tool string) bool { return matchAny(p.AlwaysAsk, tool) }

// autoApproved reports whether auto_approve covers the tool. A network tool
// must be named there: a glob (`*`) that happens to match it does not send
// data out without asking. The one glob allowed names an MCP server:
// `mcp__github__*` approves that server's tools.
func (p Policy) autoApproved(name string, class Class) bool {
	if class == ClassNetwork {
		return slices.ContainsFunc(p.AutoApprove, func(e string) bool { return e == name || serverGlob(e, name) })
	}
	return matchAny(p.AutoApprove, name)
}

// MatchGlob reports whether a tool name matches a glob (`*`, `?`, `[...]`, as
// in path.Match). A malformed pattern matches only itself.
func MatchGlob(pattern, name string) bool {
	if pattern == name {
		return true
	}
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}

func matchAny(patterns []string, name string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return MatchGlob(p, name) })
}
