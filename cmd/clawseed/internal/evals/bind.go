package evals

import (
	"fmt"
	"path/filepath"

	"github.com/clawseed/clawseed/skills"
)

// BindSkills names each suite case's skills under test as the catalog
// names them (a plugin's skill is plugin:skill there), finding each by its
// folder, so the baseline arm leaves out exactly those skills. A skill
// under test the catalog does not have, or hides, is an error: its with arm
// could not use it, and a lift measured without it would mean nothing.
func BindSkills(cases []Case, cat *skills.Catalog) error {
	byDir := map[string]*skills.Skill{}
	for _, s := range cat.Skills {
		for _, d := range []string{s.Dir, s.RealDir} {
			if d != "" {
				byDir[d] = s
			}
		}
	}
	for ci := range cases {
		c := &cases[ci]
		for i, dir := range c.SkillDirs {
			real, err := filepath.EvalSymlinks(dir)
			if err != nil {
				real = dir
			}
			s := byDir[real]
			if s == nil {
				s = byDir[dir]
			}
			if s == nil {
				return fmt.Errorf("%s: the skill under test %s (%s) is not in this workspace's catalog, so a run could not use it: run from the workspace that discovers it, or add it under .clawseed/skills/", c.File, c.Skills[i], dir)
			}
			if s.Status == skills.StatusHidden {
				return fmt.Errorf("%s: the skill under test %s is hidden (%s), so a run could not use it", c.File, s.Name, s.Reason)
			}
			c.Skills[i] = s.Name
		}
	}
	return nil
}
