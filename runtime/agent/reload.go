package agent

import (
	"context"
	"strings"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/skills"
)

// A Reloader rebuilds the skill catalog when it is due (§4.13): a skill
// file changed on disk, or — wrote is true — a write or exec call of the
// session succeeded since the last check (it may have written a skill, or a
// file some skill's `paths` wait for). It returns the new catalog and true
// when it rebuilt one.
// The agent asks before each model request, so the index changes only
// between requests, once per change.
type Reloader func(ctx context.Context, wrote bool) (*skills.Catalog, bool)

// A ReloadInfo names the skills a reload added, removed and changed, each
// sorted.
type ReloadInfo struct {
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Changed []string `json:"changed,omitempty"`
}

// String renders the info as chat shows it: "+new, -gone, ~changed".
func (r ReloadInfo) String() string {
	var parts []string
	for _, n := range r.Added {
		parts = append(parts, "+"+n)
	}
	for _, n := range r.Removed {
		parts = append(parts, "-"+n)
	}
	for _, n := range r.Changed {
		parts = append(parts, "~"+n)
	}
	return strings.Join(parts, ", ")
}

// Empty reports whether the reload changed no skill.
func (r ReloadInfo) Empty() bool {
	return len(r.Added) == 0 && len(r.Removed) == 0 && len(r.Changed) == 0
}

// maybeReload asks the reloader for a new catalog and installs it. Active
// skills keep the text they were activated with: /active marks them
// changed on disk, and /activate NAME reloads one.
func (a *Agent) maybeReload(ctx context.Context) {
	if a.opts.Reload == nil || !a.opts.SkillsEnabled {
		return
	}
	wrote := a.wrote
	a.wrote = false
	cat, ok := a.opts.Reload(ctx, wrote)
	if !ok || cat == nil {
		return
	}
	a.installCatalog(cat)
}

// ReloadSkills rebuilds the catalog now (/reload), whatever the watcher
// says, and returns what changed.
func (a *Agent) ReloadSkills(ctx context.Context) (ReloadInfo, error) {
	if a.opts.Rediscover == nil || !a.opts.SkillsEnabled {
		return ReloadInfo{}, nil
	}
	cat, err := a.opts.Rediscover(ctx)
	if err != nil {
		return ReloadInfo{}, err
	}
	return a.installCatalog(cat), nil
}

// installCatalog replaces the catalog, re-renders the index and reports
// the difference as an event when there is one.
func (a *Agent) installCatalog(cat *skills.Catalog) ReloadInfo {
	old := a.opts.Skills.Catalog()
	var info ReloadInfo
	info.Added, info.Removed, info.Changed = skills.DiffCatalogs(available(old), available(cat))
	a.SetCatalog(cat)
	if !info.Empty() {
		a.opts.Sink(Event{Type: EventSkillsReloaded, Text: info.String(), Reload: &info})
	}
	return info
}

// available returns the skills of cat that the model or the user can use:
// a reload reports what they see, so a skill whose `paths` now match is
// new (+name), one gated out is gone (-name), and a change to a hidden
// skill is not news.
func available(cat *skills.Catalog) *skills.Catalog {
	out := &skills.Catalog{}
	if cat == nil {
		return out
	}
	for _, s := range cat.Skills {
		if s.Status != skills.StatusHidden {
			out.Skills = append(out.Skills, s)
		}
	}
	return out
}

// noteWrites remembers that a call that may change the workspace ran, so
// the next reload check re-tests `paths` gating.
func (a *Agent) noteWrites(calls []providers.ToolCall, results []providers.ToolResult) {
	for i, c := range calls {
		t, ok := a.tools[c.Name]
		if !ok || results[i].IsError {
			continue
		}
		if cl := t.Class(); cl == permissions.ClassWrite || cl == permissions.ClassExec {
			a.wrote = true
			return
		}
	}
}
