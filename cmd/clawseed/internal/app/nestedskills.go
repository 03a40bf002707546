package app

import (
	"context"
	"path/filepath"

	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/skills"
)

// nestedSkills is the agent's [agent.NestedSkills]: the project skill
// folders between the workspace and a path a tool reached
// ([skills.NestedRoots]: the same walker, limits and trust as the
// workspace's own folders, hidden and gitignored folders passed by), each
// looked at once per session. A new folder is a root of every later
// discovery of the session (hot reload, /reload); the catalog is
// rediscovered with it at once, and its skills the model may activate are
// returned for the agent's notice.
func (r *skillReloader) nestedSkills(ctx context.Context, path string) (*skills.Catalog, []agent.NestedSkillFolder) {
	if !r.cfg.Skills.Enabled || r.cfg.Bare {
		return nil, nil
	}
	var fresh []skills.Root
	r.mu.Lock()
	for _, root := range skills.NestedRoots(r.cfg.Workspace, path) {
		if r.nestedSeen[root.Path] {
			continue
		}
		if r.nestedSeen == nil {
			r.nestedSeen = map[string]bool{}
		}
		r.nestedSeen[root.Path] = true
		r.nested = append(r.nested, root)
		fresh = append(fresh, root)
	}
	r.mu.Unlock()
	if len(fresh) == 0 {
		return nil, nil
	}
	cat := r.discover(ctx)
	r.rewatch(true)
	folders := make([]agent.NestedSkillFolder, 0, len(fresh))
	for _, root := range fresh {
		f := agent.NestedSkillFolder{Dir: root.Nested + "/"}
		if rel, err := filepath.Rel(r.cfg.Workspace, root.Path); err == nil {
			f.Path = filepath.ToSlash(rel)
		}
		for _, s := range cat.Skills {
			if s.Root == root.Path && s.Status == skills.StatusListed {
				f.Skills = append(f.Skills, s)
			}
		}
		folders = append(folders, f)
	}
	return cat, folders
}

// nestedRoots are the nested skill folders the session found, in the
// order found: a later folder's skill takes the qualified name when an
// earlier one has the name, so the names the model was told stay.
func (r *skillReloader) nestedRoots() []skills.Root {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]skills.Root(nil), r.nested...)
}
