package app

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/internal/sandbox"
	"github.com/clawseed/clawseed/runtime/tools"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/skills/install"
	"github.com/clawseed/clawseed/skills/lock"
)

// A SkillLock is one skills.lock and the skills root its entries are
// installed in (issue 27).
type SkillLock struct {
	// Path is the lock file, Root the folder of the skills it names.
	Path, Root string
	// Base is the workspace or CLAWSEED_HOME they are inside.
	Base string
	// Project is true for the workspace's (.clawseed/skills.lock).
	Project bool
}

// Contained fails when a folder on the way from Base to Root, or Root, is
// a symbolic link: a repository whose .clawseed/skills is a link to the
// home folder would otherwise have `skills add` write there, `skills
// remove` delete there, and every discovery hash what its lock names
// there. Missing folders are fine (nothing is installed yet).
func (l SkillLock) Contained() error {
	rel, err := filepath.Rel(l.Base, l.Root)
	if err != nil {
		return err
	}
	cur := l.Base
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		info, err := os.Lstat(cur)
		switch {
		case os.IsNotExist(err):
			return nil
		case err != nil:
			return err
		case info.Mode()&os.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link: installed skills live only in a real folder there", cur)
		case !info.IsDir():
			return fmt.Errorf("%s is not a folder", cur)
		}
	}
	return nil
}

// SkillLocks are the lock files of cfg: the project's
// (<workspace>/.clawseed/skills.lock for .clawseed/skills/) and the user's
// ($CLAWSEED_HOME/skills.lock for $CLAWSEED_HOME/skills/, when there is a
// CLAWSEED_HOME).
func SkillLocks(cfg *config.Config) []SkillLock {
	out := []SkillLock{{
		Path: filepath.Join(cfg.Workspace, ".clawseed", lock.FileName), Root: filepath.Join(cfg.Workspace, ".clawseed", "skills"),
		Base: cfg.Workspace, Project: true,
	}}
	if cfg.Home != "" {
		out = append(out, SkillLock{Path: filepath.Join(cfg.Home, lock.FileName), Root: filepath.Join(cfg.Home, "skills"), Base: cfg.Home})
	}
	return out
}

// Read reads the lock file once its root is known to be [SkillLock.Contained].
func (l SkillLock) Read() (f *lock.File, exists bool, err error) {
	if err := l.Contained(); err != nil {
		return nil, false, err
	}
	return lock.Read(l.Path)
}

// A LockedState is how an installed skill's folder compares with its
// lock entry.
type LockedState string

// The states `skills verify` prints.
const (
	LockedOK       LockedState = "ok"
	LockedModified LockedState = "modified"
	LockedMissing  LockedState = "missing"
)

// LockedCheck compares the folder of e, in root, with its hash; detail
// says what differs. hashes may be nil (hash every file).
func LockedCheck(root string, e lock.Entry, hashes *lock.HashCache) (state LockedState, hash string, detail string) {
	dir := filepath.Join(root, e.Name)
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		return LockedMissing, "", "the folder " + dir + " is missing"
	}
	h, err := hashes.TreeHash(dir)
	switch {
	case err != nil:
		return LockedModified, "", err.Error()
	case h != e.Hash:
		return LockedModified, h, fmt.Sprintf("its files hash to %s, skills.lock has %s", h, e.Hash)
	}
	return LockedOK, h, ""
}

// checkSkillLocks applies the lock files to a discovered catalog, on every
// discovery path (chat, run, serve, the skills commands, hot reload): a
// locked skill whose folder no longer matches its hash gets a warning
// "modified since install" (and that reason in the list), a locked skill
// whose folder is gone a warning; with [skills].require_lock, a project
// skill that is not the locked folder of its name is hidden with reason
// "not in skills.lock". User and built-in skills are never hidden.
//
// Cost: without lock files, one failed open each; otherwise one read of
// the lock and, per locked skill, a walk with a stat of each file, and a
// read of all its files when hashes does not know them by those stats
// (the first discovery of a process, or after a change).
func checkSkillLocks(cfg *config.Config, cat *skills.Catalog, hashes *lock.HashCache) {
	for _, l := range SkillLocks(cfg) {
		f, _, err := l.Read()
		if err != nil {
			cat.Diagnostics = append(cat.Diagnostics, skills.Diagnostic{Path: l.Path, Severity: skills.SeverityError, Message: "skills.lock not used: " + err.Error()})
			f = &lock.File{}
		}
		checks := lockedChecks(l.Root, f.Entries, hashes)
		for i, e := range f.Entries {
			state, detail := checks[i].state, checks[i].detail
			dir := filepath.Join(l.Root, e.Name)
			switch state {
			case LockedMissing:
				cat.Diagnostics = append(cat.Diagnostics, skills.Diagnostic{Path: dir, Severity: skills.SeverityWarning,
					Message: "locked in " + l.Path + " but not installed (clawseed skills add, or skills remove " + e.Name + ")"})
			case LockedModified:
				cat.Diagnostics = append(cat.Diagnostics, skills.Diagnostic{Path: dir, Severity: skills.SeverityWarning,
					Message: "modified since install: " + detail})
				if s := cat.Lookup(e.Name); s != nil && s.Dir == dir && s.Reason == "" {
					s.Reason = "modified since install"
				}
			}
		}
		if l.Project && cfg.Skills.RequireLock {
			for _, s := range cat.Skills {
				if s.Source.Project() && !lockedHere(f, l.Root, s) {
					s.Status, s.Reason = skills.StatusHidden, "not in skills.lock"
				}
			}
		}
	}
}

// lockedCheck is one [LockedCheck] result.
type lockedCheck struct {
	state  LockedState
	detail string
}

// lockedChecks runs [LockedCheck] for entries, a few at a time: hashing
// is mostly waiting for reads.
func lockedChecks(root string, entries []lock.Entry, hashes *lock.HashCache) []lockedCheck {
	out := make([]lockedCheck, len(entries))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))
	for i, e := range entries {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i].state, _, out[i].detail = LockedCheck(root, e, hashes)
		}()
	}
	wg.Wait()
	return out
}

// lockedHere reports whether s is the folder the lock installed under its
// name in root.
func lockedHere(f *lock.File, root string, s *skills.Skill) bool {
	return s.Source == skills.SourceProject && f.Lookup(s.Name) != nil && s.Dir == filepath.Join(root, s.Name) && s.Plugin == "" && !s.Command
}

// SkillFetchGit is the git of `skills add` and `skills update`, confined
// like every process clawseed starts for a repository (issue 21): it
// reads what commands read (not forbidden_paths, nor CLAWSEED_HOME or the
// sessions), writes only the fetch's temporary folder, and has the
// network. Its environment is the commands' scrub. When the sandbox is
// off or missing git runs unconfined, unless [sandbox].required refuses
// it; note then says so ("" when confined). Call done when finished.
func SkillFetchGit(cfg *config.Config) (g install.Git, note string, done func()) {
	c := newConfinement(cfg, nil)
	g.Env = tools.ScrubbedEnv(os.Environ(), cfg.Autonomy.EnvPassthrough)
	switch {
	case c.box == nil:
		note = "git runs without the sandbox (" + c.off + ")"
	case !c.refused() && !c.active():
		note = "git runs without the sandbox: " + c.status().String()
	}
	g.Confine = func(tmp string) (install.Starter, error) {
		switch {
		case c.refused():
			return nil, c.errRequired()
		case !c.active():
			return nil, nil
		}
		pol := sandbox.Policy{Deny: c.deny, Keep: c.keep, Writable: []string{tmp}, Network: true}
		return func(ctx context.Context, cmd *exec.Cmd) (func() error, error) { return c.box.Start(ctx, cmd, pol) }, nil
	}
	return g, note, func() { c.close() }
}
