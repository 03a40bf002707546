package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LoadDir loads the one skill in dir (used by `clawseed skills validate DIR`),
// applying the same rules as [Discover], including gating and exclusion from
// opts (opts.Roots and opts.Builtins are ignored). It returns nil and at least
// one error diagnostic when dir is not a valid skill. dir itself is the root:
// symbolic links inside it must not leave it. The skill's Root and Dir are
// dir made absolute; its Source is empty (not a configured root).
func LoadDir(dir string, opts Options) (*Skill, []Diagnostic) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, []Diagnostic{{Path: dir, Severity: SeverityError, Message: fmt.Sprintf("cannot resolve path: %v", err)}}
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, []Diagnostic{{Path: abs, Severity: SeverityError, Message: "cannot read skill directory: " + describeErr(err)}}
	}
	if !hasSkillFile(entries, true) {
		return nil, []Diagnostic{{Path: abs, Severity: SeverityError, Message: "not a skill: no SKILL.md or manifest.toml"}}
	}
	dirReal, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, []Diagnostic{{Path: abs, Severity: SeverityError, Message: "cannot resolve path: " + describeErr(err)}}
	}
	s, diags := loadSkillDir(abs, entries, dirReal, fileLimit(opts.MaxFileBytes))
	if s == nil {
		return nil, diags
	}
	s.Root = abs
	g := newGate(opts)
	diags = append(diags, g.decide(s)...)
	return s, diags
}

// Reread reads a discovered skill again with the same rules (built-ins from
// the files compiled into the binary, a command from its one file, a plugin's
// skill under its plugin's name), keeping its Source, Root, Dir, Status
// and Reason. It fails when the skill is gone, now invalid, or now has
// another name; the error text is a lower-case reason meant for
// `Failed to load skill '<n>': <reason>`.
func Reread(s *Skill, maxFileBytes int64) (*Skill, error) {
	if s == nil {
		return nil, errors.New("no skill")
	}
	if s.Remote != nil {
		// Its SKILL.md was verified against the server's listing when
		// the listing was read; a later listing is a new catalog.
		cp := *s
		return &cp, nil
	}
	limit := fileLimit(maxFileBytes)
	var (
		n     *Skill
		diags []Diagnostic
	)
	if s.Source == SourceBuiltin {
		if _, ok := builtinSource(s.Name); !ok {
			return nil, fmt.Errorf("built-in skill %q does not exist", s.Name)
		}
		n, diags = loadBuiltin(s.Name)
	} else {
		reread := rereadDir
		if s.Command {
			reread = rereadCommand
		}
		var err error
		n, diags, err = reread(s, limit)
		if err != nil {
			return nil, err
		}
	}
	if n == nil {
		return nil, errors.New(firstError(diags))
	}
	if s.Plugin != "" && !s.Command {
		n.Name = s.Plugin + ":" + n.Name // n is new: not shared with a cache
	}
	n.Plugin, n.PluginDir = s.Plugin, s.PluginDir
	if s.Nested != "" && n.Name != s.Name && nestedName(s.Nested, n.Name) == s.Name {
		n.Name = s.Name // a nested folder's skill under its qualified name
	}
	n.Nested = s.Nested
	if n.Name != s.Name {
		return nil, fmt.Errorf("its name is now %q", n.Name)
	}
	n.Source, n.Root, n.Dir, n.RealDir = s.Source, s.Root, s.Dir, s.RealDir
	n.Status, n.Reason = s.Status, s.Reason
	return n, nil
}

func rereadDir(s *Skill, limit int64) (*Skill, []Diagnostic, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("skill directory %s no longer exists", s.Dir)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read skill directory %s: %s", s.Dir, describeErr(err))
	}
	if !hasSkillFile(entries, true) {
		return nil, nil, fmt.Errorf("no SKILL.md or manifest.toml in %s any more", s.Dir)
	}
	bound, err := skillBound(s)
	if err != nil {
		return nil, nil, err
	}
	dirReal, err := filepath.EvalSymlinks(s.Dir)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot resolve skill directory %s: %s", s.Dir, describeErr(err))
	}
	if !within(bound, dirReal) {
		return nil, nil, fmt.Errorf("skill directory %s now resolves to %s, outside its root", s.Dir, dirReal)
	}
	n, diags := loadSkillDir(s.Dir, entries, bound, limit)
	return n, diags, nil
}

// skillBound is the real folder a discovered skill's files must stay
// inside: the bound the link rule gave it at discovery ([Skill.Bound]),
// else the real path of its root.
func skillBound(s *Skill) (string, error) {
	if s.Bound != "" {
		return s.Bound, nil
	}
	root := s.Root
	if root == "" {
		root = s.Dir
	}
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("cannot resolve skill root %s: %s", root, describeErr(err))
	}
	return rootReal, nil
}

// loadSkillDir reads and parses the skill files listed in entries. Symbolic
// links to the files are followed only when they stay inside rootReal.
func loadSkillDir(dir string, entries []fs.DirEntry, rootReal string, limit int64) (*Skill, []Diagnostic) {
	src := skillSource{dir: dir, dirName: filepath.Base(dir), diagPath: dir}
	var diags []Diagnostic
	for _, e := range entries {
		var data *[]byte
		var pathp *string
		switch e.Name() {
		case skillFileName:
			data, pathp = &src.skillData, &src.skillPath
		case manifestFileName:
			data, pathp = &src.manifestData, &src.manifestPath
		default:
			continue
		}
		path := filepath.Join(dir, e.Name())
		*pathp = path
		if msg := checkFileEntry(path, e, rootReal); msg != "" {
			diags = append(diags, Diagnostic{Path: path, Severity: SeverityError, Message: msg})
			continue
		}
		b, msg := readSkillFile(path, rootReal, limit)
		if msg != "" {
			diags = append(diags, Diagnostic{Path: path, Severity: SeverityError, Message: msg})
			continue
		}
		*data = b
	}
	if len(diags) > 0 {
		return nil, diags
	}
	s, more := buildSkill(src)
	return s, append(diags, more...)
}

// checkFileEntry refuses non-regular files (a FIFO would block the read) and
// symbolic links whose target leaves the root.
func checkFileEntry(path string, e fs.DirEntry, rootReal string) string {
	t := e.Type()
	if t.IsRegular() {
		return ""
	}
	if t&fs.ModeSymlink == 0 {
		return e.Name() + " is not a regular file"
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Sprintf("%s is a broken symbolic link: %s", e.Name(), describeErr(err))
	}
	if !within(rootReal, target) {
		return fmt.Sprintf("%s is a symbolic link to %s, outside the skill root; refused", e.Name(), target)
	}
	fi, err := os.Stat(target)
	if err != nil {
		return fmt.Sprintf("cannot read %s: %s", e.Name(), describeErr(err))
	}
	if !fi.Mode().IsRegular() {
		return e.Name() + " is not a regular file"
	}
	return ""
}

// hasSkillFile reports whether entries make their directory a skill: SKILL.md,
// or (for a skill directory below a root) manifest.toml.
func hasSkillFile(entries []fs.DirEntry, manifestCounts bool) bool {
	for _, e := range entries {
		switch e.Name() {
		case skillFileName:
			return true
		case manifestFileName:
			if manifestCounts {
				return true
			}
		}
	}
	return false
}

// within reports whether path is root or below it (both real and clean).
func within(root, path string) bool {
	if path == root {
		return true
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// fileLimit applies the default of [Options.MaxFileBytes].
func fileLimit(n int64) int64 {
	if n <= 0 {
		return DefaultMaxFileBytes
	}
	return n
}

// firstError returns the message of the first error diagnostic (messages name
// the file they concern, e.g. `manifest.toml:3: ...`).
func firstError(diags []Diagnostic) string {
	for _, d := range diags {
		if d.Severity == SeverityError {
			return d.Message
		}
	}
	return "the skill is invalid"
}
