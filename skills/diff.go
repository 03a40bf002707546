package skills

import (
	"reflect"
	"sort"
)

// DiffCatalogs compares two catalogs by effective name: added and removed
// names, and changed ones, whose content differs (any field: body,
// description, manifest values, where it was found, status or reason;
// StatusActive counts as StatusListed, since only callers set it). Each list
// is sorted. A nil catalog is empty. It is what a reload reports
// (`↻ skills reloaded: +new, -gone, ~changed`).
func DiffCatalogs(old, new *Catalog) (added, removed, changed []string) {
	var oldSkills, newSkills []*Skill
	if old != nil {
		oldSkills = old.Skills
	}
	if new != nil {
		newSkills = new.Skills
	}
	before := make(map[string]*Skill, len(oldSkills))
	for _, s := range oldSkills {
		before[s.Name] = s
	}
	for _, s := range newSkills {
		o, ok := before[s.Name]
		if !ok {
			added = append(added, s.Name)
			continue
		}
		delete(before, s.Name)
		if !sameContent(o, s) {
			changed = append(changed, s.Name)
		}
	}
	for name := range before {
		removed = append(removed, name)
	}
	sort.Strings(added)
	sort.Strings(removed)
	sort.Strings(changed)
	return added, removed, changed
}

// sameContent compares every exported field (StatusActive as StatusListed).
// reflect.DeepEqual covers fields added to Skill later; strings shared with
// the parse cache compare by pointer.
func sameContent(a, b *Skill) bool {
	x, y := *a, *b
	if x.Status == StatusActive {
		x.Status = StatusListed
	}
	if y.Status == StatusActive {
		y.Status = StatusListed
	}
	return reflect.DeepEqual(x, y)
}
