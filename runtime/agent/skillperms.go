package agent

import (
	"sync/atomic"

	"github.com/clawseed/clawseed/permissions"
)

// SkillPermissions is the permission check of a session's skills
// ([skills.ActiveConfig.CheckPermissions], §4.7): a skill's `permissions`
// are met by the tools of the agent it is given to ([Options.SkillPermissions])
// — every tool it can call (the registered tools the policy leaves visible,
// deferred or not, Skill, the tool source's tools) — or by what the tool
// source has beyond them ([ToolSource.Has]: an MCP tool of a server not
// yet ready, mcp:<server>).
//
// The active set is made before the agent that holds it, so the check
// exists before the agent does: make it first, give [SkillPermissions.Check]
// to the set and the check to [New], which connects it. Before that, no
// permission is met. It is safe for concurrent use.
type SkillPermissions struct {
	agent atomic.Pointer[Agent]
}

// Check returns "" when the agent has a tool for each of perms, else the
// sentence of [permissions.Check].
func (p *SkillPermissions) Check(skill string, perms []string) string {
	a := p.agent.Load()
	var callable map[string]Tool
	if a != nil {
		callable = a.tools
	}
	return permissions.Check(skill, perms, func(t string) bool {
		// Every callable tool counts, deferred ones included: a deferred
		// tool joins the tools array as the skill activates.
		_, ok := callable[t]
		return ok || a != nil && a.opts.ToolSource != nil && a.opts.ToolSource.Has(t)
	})
}
