package agent

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/hooks"
	"github.com/clawseed/clawseed/skills"
)

// Why a skill's allowed-tools pre-approve nothing (§9.1, §9).
const (
	ignoredUntrusted = "the workspace is not trusted"
	ignoredChanged   = "its files changed since the session started and you did not approve the new content"
)

// A grantLedger is what the agent knows to decide whether a skill's
// allowed-tools count: the hashes of every skill's files when the session
// started, and the contents the user approved, seeing them, for writes to
// control paths. A fork's sub-agent shares its parent's.
type grantLedger struct {
	mu sync.Mutex
	// start holds the skills of the catalog the agent was built with,
	// whose hashes are what the session started with; once sorted is set,
	// sorted by name (stably: of two with one name, the later counts, as
	// in the catalog's order). It is the catalog's list itself, copied,
	// not a map of the hashes: a catalog's skills are not changed once
	// discovered (a parse cache shares them between catalogs), and a
	// session with 10,000 skills looks up the few it activates, if any,
	// so the list is checked for order at the first lookup, not at start.
	start  []*skills.Skill
	sorted bool
	// approved holds the [skills.FileHash] of each content the user
	// approved writing, interactively, to a control path.
	approved map[string]bool
}

// fileHashes are a skill's [skills.Skill.SkillHash] and ManifestHash.
type fileHashes struct{ skill, manifest string }

func hashesOf(s *skills.Skill) fileHashes { return fileHashes{s.SkillHash, s.ManifestHash} }

// newGrantLedger records the files of cat's skills (nil: none).
func newGrantLedger(cat *skills.Catalog) *grantLedger {
	g := &grantLedger{approved: map[string]bool{}}
	if cat != nil {
		// A copy: whoever holds the catalog may append to its list and
		// sort it in place (skills.AddRemote).
		g.start = slices.Clone(cat.Skills)
	}
	return g
}

func byName(a, b *skills.Skill) int { return strings.Compare(a.Name, b.Name) }

// started returns the hashes of the skill called name in the catalog the
// session started with (none when it had no such skill). g.mu is held.
func (g *grantLedger) started(name string) fileHashes {
	if !g.sorted {
		if !slices.IsSortedFunc(g.start, byName) { // a Catalog is sorted
			slices.SortStableFunc(g.start, byName)
		}
		g.sorted = true
	}
	i := sort.Search(len(g.start), func(i int) bool { return g.start[i].Name > name })
	if i > 0 && g.start[i-1].Name == name {
		return hashesOf(g.start[i-1])
	}
	return fileHashes{}
}

// approve records a content the user approved writing.
func (g *grantLedger) approve(hash string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.approved[hash] = true
}

// current reports whether each of s's files is as it was at session start
// or holds a content the user approved. A file that appeared or vanished
// since counts as changed; a skill that is new has no files at start.
func (g *grantLedger) current(s *skills.Skill) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	was, now := g.started(s.Name), hashesOf(s)
	ok := func(before, after string) bool {
		return after == before || after != "" && g.approved[after]
	}
	return ok(was.skill, now.skill) && ok(was.manifest, now.manifest)
}

// skillAllowedTools is the one place that decides whether a skill's
// `allowed-tools` pre-approve calls (§9): for an active skill in the main
// loop, for a fork's sub-agent, and in what activation reports. It returns
// the entries that count, or nil and why they do not:
//   - a project skill, project command or project plugin skill of an
//     untrusted workspace pre-approves nothing: the repository chose it;
//   - a skill whose SKILL.md or manifest.toml differs from what the session
//     started with (or that is new) pre-approves nothing, unless each
//     changed file holds a content the user approved writing while seeing
//     it: otherwise a model could write itself a skill that pre-approves
//     shell and activate it.
func (a *Agent) skillAllowedTools(s *skills.Skill) (entries []string, ignored string) {
	if len(s.AllowedTools) == 0 {
		return nil, ""
	}
	if a.untrustedSkill(s) {
		return nil, ignoredUntrusted
	}
	if s.Source != skills.SourceBuiltin && !a.grants.current(s) {
		return nil, ignoredChanged
	}
	return s.AllowedTools, ""
}

// skillAllows reports whether PreApproved or an active skill's
// allowed-tools (as [Agent.skillAllowedTools] lets them count) pre-approve
// the call: the permission rules' matcher, with the entries as allow
// rules.
func (a *Agent) skillAllows(subj permissions.Subject) bool {
	bases := a.ruleBases()
	if permissions.AllowedToolsCoverSubject(a.opts.PreApproved, bases, subj) {
		return true
	}
	if !a.opts.SkillsEnabled {
		return false
	}
	for _, act := range a.opts.Skills.List() {
		entries, _ := a.skillAllowedTools(act.Skill)
		if permissions.AllowedToolsCoverSubject(entries, bases, subj) {
			return true
		}
	}
	return false
}

// ruleBases are what allowed-tools path patterns are relative to.
func (a *Agent) ruleBases() permissions.RuleBases {
	if a.opts.RuleBases.Workspace != "" {
		return a.opts.RuleBases
	}
	return permissions.RuleBases{Workspace: a.opts.Prompt.Workspace}
}

// skillActivated reports an activation, and then what the skill's
// allowed-tools pre-approve or why they pre-approve nothing, so the user
// sees what activating it allowed; then the SkillActivated hooks (the
// skill's own among them) run. by says who activated it (see skillHooks).
func (a *Agent) skillActivated(ctx context.Context, name, args, by string) {
	a.opts.Sink(Event{Type: EventSkillActivated, Name: name, Args: args})
	a.reportAllowedTools(name)
	if s := a.activeSkill(name); s != nil && len(s.Hooks) > 0 && a.opts.Hooks != nil {
		if why := a.skillHooksIgnored(s); why != "" {
			a.opts.Sink(Event{Type: EventHook, Name: hooks.SkillActivated, Text: "the hooks of skill " + name + " do not run: " + why, IsError: true})
		}
	}
	a.skillHooks(ctx, hooks.SkillActivated, name, args, by, nil)
	if s := a.activeSkill(name); s != nil && s.Mode == skills.ModePlan && a.planTool {
		a.SetPlanMode(true) // `mode: plan`: the skill starts with a plan
	}
}

// skillDeactivated reports a deactivation and runs the SkillDeactivated
// hooks, the skill's own (gone, as it was active) among them.
func (a *Agent) skillDeactivated(ctx context.Context, name, by string, gone *skills.Skill) {
	a.opts.Sink(Event{Type: EventSkillDeactivated, Name: name})
	a.skillHooks(ctx, hooks.SkillDeactivated, name, "", by, gone)
}

// reportAllowedTools sends the allowed-tools event of the active skill
// called name, if it has allowed-tools.
func (a *Agent) reportAllowedTools(name string) {
	for _, act := range a.opts.Skills.List() {
		if act.Skill.Name == name {
			a.reportSkillAllowedTools(act.Skill)
			return
		}
	}
}

// reportSkillAllowedTools sends s's allowed-tools event, if it has
// allowed-tools.
func (a *Agent) reportSkillAllowedTools(s *skills.Skill) {
	if len(s.AllowedTools) == 0 {
		return
	}
	entries, ignored := a.skillAllowedTools(s)
	text := "pre-approves: " + strings.Join(permissions.DescribeAllowedTools(entries), ", ")
	if ignored != "" {
		text = "pre-approves nothing (" + ignored + "); its allowed-tools: " + strings.Join(permissions.DescribeAllowedTools(s.AllowedTools), ", ")
	}
	a.opts.Sink(Event{Type: EventSkillAllowedTools, Name: s.Name, Text: text})
}
