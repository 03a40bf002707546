package app

import (
	"os"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/runtime/instructions"
	"github.com/clawseed/clawseed/skills"
)

// What a session discovers besides the workspace (issue 30): the folders
// added to it (--add-dir, [workspace].add_dirs), the repository's parent
// folders, the managed skill folders, --skill PATH, and --bare. The skill
// roots they make, in their order of precedence, are skills.Layout's; the
// folders a session's tools reach, and the nested skill folders found
// then, are the skill reloader's (skillreload.go, nestedskills.go).

// managedDirEnv names a managed skills folder besides
// [skills.ManagedSkillsDir]: an administrator's (or a test's) policy
// folder, read by every session like /etc/clawseed/skills.
const managedDirEnv = "CLAWSEED_MANAGED_DIR"

// addDirs are the folders added to the workspace: --add-dir and
// [workspace].add_dirs resolved, without those forbidden_paths covers (a
// folder the file tools may not read cannot be added to them).
func addDirs(cfg *config.Config) []string {
	dirs := cfg.AddDirs()
	if len(dirs) == 0 {
		return nil
	}
	forbidden := confine.NewForbidden(cfg.Autonomy.ForbiddenPaths, cfg.Workspace, homeDir())
	out := dirs[:0]
	for _, d := range dirs {
		if !forbidden.Covers(d) {
			out = append(out, d)
		}
	}
	return out
}

// managedSkillDirs are the managed skill folders: /etc/clawseed/skills,
// then $CLAWSEED_MANAGED_DIR when set.
func managedSkillDirs() []string {
	dirs := []string{skills.ManagedSkillsDir}
	if d := os.Getenv(managedDirEnv); d != "" {
		dirs = append(dirs, d)
	}
	return dirs
}

// skillLayout is where cfg's skill folders are.
func skillLayout(cfg *config.Config) skills.Layout {
	l := skills.Layout{
		Workspace:    cfg.Workspace,
		ClawseedHome: cfg.Home,
		Home:         homeDir(),
		Extra:        cfg.Skills.ExtraRoots,
		AddDirs:      addDirs(cfg),
		Managed:      managedSkillDirs(),
		Explicit:     cfg.ExplicitSkills(),
		Bare:         cfg.Bare,
	}
	if !cfg.Bare && cfg.Workspace != "" {
		l.Repo = instructions.RepositoryRoot(cfg.Workspace)
	}
	return l
}
