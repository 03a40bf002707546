package skills

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Claude Code commands (SPEC §4.2): every `*.md` file below a commands
// directory (<workspace>/.claude/commands, ~/.claude/commands, a plugin's
// commands/) is a skill named after its path without `.md`, sub-folders
// joined with ':' (frontend/lint.md → frontend:lint). Its frontmatter is read
// like SKILL.md's; its name always comes from the path.
//
// A command without a description is user-only: `/name` activates it, but it
// is not in the index. Claude Code lists such commands by their first line;
// clawseed keeps the index frugal instead, as every listed entry is paid for
// on every request.
//
// A command loses every name clash with a real skill (of any root, built-ins
// included); between commands, the project's beats the home folder's.

// maxCommandDepth caps the components of a command name (a:b:c:d).
const maxCommandDepth = 4

// commandSuffix is the extension of command files.
const commandSuffix = ".md"

// commandUserOnlyReason is the Reason of a command without a description.
const commandUserOnlyReason = "command without a description (invoke it as /name)"

// walkCommands visits the files and sub-folders of dir, a directory at depth
// below the commands directory base, in name order.
func (w *walker) walkCommands(ctx context.Context, rw *rootWalk, base, dir, dirReal string, entries []fs.DirEntry, depth int) {
	for _, e := range entries {
		if w.stop || rw.capped {
			return
		}
		if err := ctx.Err(); err != nil {
			w.stop = true
			w.diag(rw.root.Path, SeverityWarning, "discovery interrupted: "+err.Error())
			return
		}
		name := e.Name()
		if rule, skip := skipRuleFor(name); skip {
			w.passOver(rw, dir, dirReal, e, rule)
			continue
		}
		if strings.HasSuffix(name, commandSuffix) && !w.isDirEntry(joinPath(dir, name), e) {
			w.addCommand(rw, base, dir, dirReal, e)
			continue
		}
		if depth+1 >= maxCommandDepth {
			// Its files would have too long a name.
			w.passOver(rw, dir, dirReal, e, skipCommandDepth)
			continue
		}
		child, childReal, childEntries, ok := w.enter(rw, dir, dirReal, e)
		if !ok {
			continue
		}
		w.walkCommands(ctx, rw, base, child, childReal, childEntries, depth+1)
	}
}

// isDirEntry reports whether e is a directory or a link to one.
func (w *walker) isDirEntry(path string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	w.cache.opaque("a symbolic link")
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// addCommand queues the command file e of dir (below base) for a worker.
func (w *walker) addCommand(rw *rootWalk, base, dir, dirReal string, e fs.DirEntry) {
	path := joinPath(dir, e.Name())
	real := joinPath(dirReal, e.Name())
	if e.Type()&fs.ModeSymlink != 0 {
		w.cache.opaque("a symbolic link")
		if r, err := filepath.EvalSymlinks(path); err == nil {
			real = r
		}
		if !w.linkNotForbidden(rw, path, real) {
			return
		}
	}
	if first, ok := w.seenSkill[real]; ok {
		w.diag(path, SeverityInfo, "same command file as "+first+"; skipped")
		return
	}
	w.seenSkill[real] = path
	name := commandName(base, path)
	if rw.plugin != "" {
		name = rw.plugin + ":" + name
	}
	bound, _ := rw.boundOf(dirReal) // dirReal passed the link rule on the way here
	c := &candidate{
		root: rw.root, rootReal: bound, dir: dir, dirReal: dirReal,
		entries: []fs.DirEntry{e}, plugin: rw.plugin, pluginDir: rw.pluginDir, cmdPath: path, cmdName: name, cmdType: e.Type(),
	}
	w.events = append(w.events, walkEvent{cand: c})
	w.jobs <- c
}

// commandName is the path of file below base without `.md`, its folders
// joined with ':'.
func commandName(base, file string) string {
	rel, err := filepath.Rel(base, file)
	if err != nil {
		rel = filepath.Base(file)
	}
	rel = strings.TrimSuffix(filepath.ToSlash(rel), commandSuffix)
	return strings.ReplaceAll(rel, "/", ":")
}

// parseCommand runs on a worker.
func (w *walker) parseCommand(ctx context.Context, c *candidate) {
	if ctx.Err() != nil {
		c.dropped = true
		return
	}
	c.skill, c.diags = loadCommand(c.cmdPath, c.dir, c.cmdName, c.entries[0], c.rootReal, w.maxBytes)
	c.entries = nil
	if c.skill != nil {
		c.skill.Root = c.root.Path
		c.skill.RealDir = c.dirReal
		c.skill.Bound = c.rootReal
		c.skill.Source = c.root.Source
		c.skill.Plugin = c.plugin
		c.skill.PluginDir = c.pluginDir
	}
}

// loadCommand reads and parses one command file. A symbolic link to it is
// followed only when it stays inside rootReal.
func loadCommand(path, dir, name string, e fs.DirEntry, rootReal string, limit int64) (*Skill, []Diagnostic) {
	fail := func(msg string) (*Skill, []Diagnostic) {
		return nil, []Diagnostic{{Path: path, Severity: SeverityError, Message: msg}}
	}
	if !ValidName(name) {
		return fail(fmt.Sprintf("command name %q (from the file's path) is not a valid skill name (want letters, digits, '.', '_', ':' or '-', at most %d characters)", name, maxNameLen))
	}
	if msg := checkFileEntry(path, e, rootReal); msg != "" {
		return fail(msg)
	}
	data, msg := readSkillFile(path, rootReal, limit)
	if msg != "" {
		return fail(msg)
	}
	s, diags := buildSkill(skillSource{
		dir: dir, dirName: name, skillPath: path, skillData: data,
		diagPath: path, mdName: filepath.Base(path),
	})
	if s == nil {
		return nil, diags
	}
	s.Name = name
	s.Command = true
	return s, diags
}

// commandStatus makes a listed command without a description user-only.
func commandStatus(s *Skill) {
	if s.Command && s.Status == StatusListed && strings.TrimSpace(s.Description) == "" {
		s.Status, s.Reason = StatusUserOnly, commandUserOnlyReason
	}
}

// origin is where a skill came from, for diagnostics: a command's file,
// else its directory (see diagPathOf).
func origin(s *Skill) string {
	if s.Command && s.SkillPath != "" {
		return s.SkillPath
	}
	return diagPathOf(s)
}

// rereadCommand reads a discovered command's file again, refusing it when
// its folder now resolves outside the root.
func rereadCommand(s *Skill, limit int64) (*Skill, []Diagnostic, error) {
	rootReal, err := skillBound(s)
	if err != nil {
		return nil, nil, err
	}
	fi, err := os.Lstat(s.SkillPath)
	if os.IsNotExist(err) {
		return nil, nil, fmt.Errorf("command file %s no longer exists", s.SkillPath)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read command file %s: %s", s.SkillPath, describeErr(err))
	}
	dirReal, err := filepath.EvalSymlinks(filepath.Dir(s.SkillPath))
	if err != nil {
		return nil, nil, fmt.Errorf("cannot resolve %s: %s", filepath.Dir(s.SkillPath), describeErr(err))
	}
	if !within(rootReal, dirReal) {
		return nil, nil, fmt.Errorf("command folder %s now resolves to %s, outside its root", filepath.Dir(s.SkillPath), dirReal)
	}
	n, diags := loadCommand(s.SkillPath, s.Dir, s.Name, fs.FileInfoToDirEntry(fi), rootReal, limit)
	return n, diags, nil
}
