package skills

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// No SKILL.md may go unloaded without a diagnostic saying why. The walk does
// not search some folders (hidden ones, node_modules, those deeper than
// maxWalkDepth, a skill's own folder); each one it passes over is noted, and after the root's
// walk its SKILL.md files are counted, so that one diagnostic per passed-over
// folder says how many were not loaded and by which rule. The count runs
// after the walk so that a file loaded after all through a symbolic link (a
// skill directory the walk reached) is not reported. It does not follow
// links, and never enters `.git` (it holds no checked-out files). It reads
// at most walkLimits.scanDirs folders per root, with a diagnostic when it
// stops early.

// defaultMaxScanDirs bounds the count per root; it is separate from the
// walk's cap so that a large node_modules never stops discovery.
const defaultMaxScanDirs = 10000

// gitDirName is git's own folder, which holds no checked-out files.
const gitDirName = ".git"

// A skipRule is why the walk did not search a folder.
type skipRule struct {
	severity Severity
	// where says where the files are, relative to the diagnostic's path.
	where  string
	reason string
}

var (
	skipHidden = skipRule{SeverityInfo, "in this hidden folder",
		"folders whose names start with '.' are not searched"}
	skipNodeModules = skipRule{SeverityInfo, "in this node_modules folder",
		"node_modules folders are not searched"}
	skipDepth = skipRule{SeverityWarning, "below this folder",
		fmt.Sprintf("skills are searched at most %d folders below a root", maxWalkDepth)}
	skipInSkill = skipRule{SeverityWarning, "inside this skill's folder",
		"a skill's folder is not searched for more skills"}
	skipCommandDepth = skipRule{SeverityWarning, "below this folder",
		fmt.Sprintf("commands are searched at most %d folders deep", maxCommandDepth)}
)

// A passedOver folder group is reported by one diagnostic at path: the
// SKILL.md files in dirs (and below) that were not loaded, by rule.
type passedOver struct {
	path string
	dirs []scanDir
	rule skipRule
}

type scanDir struct{ path, real string }

// skipRuleFor returns the rule that makes the walk pass over a child folder
// by its name alone, if any.
func skipRuleFor(name string) (skipRule, bool) {
	switch {
	case strings.HasPrefix(name, "."):
		return skipHidden, true
	case name == "node_modules":
		return skipNodeModules, true
	}
	return skipRule{}, false
}

// passOver notes that the walk does not search child, a directory entry of
// dir (real path dirReal), by rule. Links are not followed: what they lead to
// inside the root is reached by its own path.
func (w *walker) passOver(rw *rootWalk, dir, dirReal string, e fs.DirEntry, rule skipRule) {
	if !e.IsDir() || e.Name() == gitDirName {
		return
	}
	child := joinPath(dir, e.Name())
	rw.passed = append(rw.passed, passedOver{path: child, dirs: []scanDir{{child, joinPath(dirReal, e.Name())}}, rule: rule})
}

// passOverChildren notes that the walk does not search any sub-folder of dir
// (not even those the skip rules name: rule says why none is), except those
// named in keep; one diagnostic at dir reports them.
func (w *walker) passOverChildren(rw *rootWalk, dir, dirReal string, entries []fs.DirEntry, rule skipRule, keep func(name string) bool) {
	var dirs []scanDir
	for _, e := range entries {
		if !e.IsDir() || e.Name() == gitDirName || (keep != nil && keep(e.Name())) {
			continue
		}
		dirs = append(dirs, scanDir{joinPath(dir, e.Name()), joinPath(dirReal, e.Name())})
	}
	if len(dirs) > 0 {
		rw.passed = append(rw.passed, passedOver{path: dir, dirs: dirs, rule: rule})
	}
}

// reportPassedOver counts the SKILL.md files in the folders the root's walk
// passed over and reports those it did not load.
func (w *walker) reportPassedOver(ctx context.Context, rw *rootWalk) {
	if rw.capped || w.stop {
		return // the cap's or the interruption's diagnostic says it all
	}
	left := w.lim.scanDirs
	for _, p := range rw.passed {
		c := skillFileCount{}
		for _, d := range p.dirs {
			w.countSkillFiles(ctx, rw, d.path, d.real, &c, &left)
		}
		if c.n > 0 {
			w.diag(p.path, p.rule.severity, c.message(p.path, p.rule))
		}
		if left < 0 {
			w.diag(rw.root.Path, SeverityWarning, fmt.Sprintf("stopped counting unloaded SKILL.md files after %d folders that are not searched; some are not reported", w.lim.scanDirs))
			return
		}
	}
}

type skillFileCount struct {
	n     int
	first string
}

func (c skillFileCount) message(base string, rule skipRule) string {
	first := c.first
	if rel, err := filepath.Rel(base, first); err == nil {
		first = filepath.ToSlash(rel)
	}
	if c.n == 1 {
		return fmt.Sprintf("1 SKILL.md file %s not loaded (%s): %s", rule.where, first, rule.reason)
	}
	return fmt.Sprintf("%d SKILL.md files %s not loaded (first: %s): %s", c.n, rule.where, first, rule.reason)
}

// countSkillFiles adds the SKILL.md files in dir and below to c, in name
// order, reading at most *left more folders (*left goes below zero when it
// stops early). A folder is counted once, and not at all when the walk went
// through it after all (reached through a link): the walk dealt with its
// files, and noted what it passed over there itself.
func (w *walker) countSkillFiles(ctx context.Context, rw *rootWalk, dir, real string, c *skillFileCount, left *int) {
	if rw.visited[real] || rw.scanned[real] {
		return
	}
	if _, ok := w.seenSkill[real]; ok {
		return // a skill of an earlier root
	}
	if *left <= 0 {
		*left = -1
		return
	}
	if ctx.Err() != nil {
		// The count is cut short: the walk's diagnostics are not what
		// an uninterrupted one gives, and must not be replayed.
		w.cache.opaque("discovery interrupted")
		return
	}
	*left--
	if rw.scanned == nil {
		rw.scanned = map[string]bool{}
	}
	rw.scanned[real] = true
	entries, err := w.cache.readDir(dir)
	if err != nil {
		return // not searched either way; nothing to name
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			if name != gitDirName {
				w.countSkillFiles(ctx, rw, joinPath(dir, name), joinPath(real, name), c, left)
				if *left < 0 {
					return
				}
			}
			continue
		}
		if name == skillFileName {
			if c.n == 0 {
				c.first = joinPath(dir, name)
			}
			c.n++
		}
	}
}
