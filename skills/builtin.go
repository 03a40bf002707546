package skills

import (
	"embed"
	"io/fs"
	"path"
	"slices"
	"sort"
)

// builtinFS holds the skills compiled into the binary, one directory each.
// They are read from here, never copied into the workspace.
//
//go:embed builtin
var builtinFS embed.FS

// builtinNames lists the built-in skill directories in sorted order.
func builtinNames() []string {
	entries, err := fs.ReadDir(builtinFS, "builtin")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// builtinSource returns the files of the built-in skill in directory name.
func builtinSource(name string) (skillSource, bool) {
	dir := path.Join("builtin", name)
	src := skillSource{
		dirName:      name,
		diagPath:     "builtin:" + name,
		skillPath:    "builtin:" + name + "/" + skillFileName,
		manifestPath: "builtin:" + name + "/" + manifestFileName,
	}
	var found bool
	if b, err := fs.ReadFile(builtinFS, path.Join(dir, skillFileName)); err == nil {
		src.skillData, found = b, true
	}
	if b, err := fs.ReadFile(builtinFS, path.Join(dir, manifestFileName)); err == nil {
		src.manifestData, found = b, true
	}
	return src, found
}

// loadBuiltin parses one built-in skill. Its Dir, Root, SkillPath and
// ManifestPath are empty: it has no files on disk.
func loadBuiltin(name string) (*Skill, []Diagnostic) {
	src, ok := builtinSource(name)
	if !ok {
		return nil, []Diagnostic{{Path: "builtin:" + name, Severity: SeverityError, Message: "built-in skill has no files"}}
	}
	s, diags := buildSkill(src)
	if s != nil {
		s.Source = SourceBuiltin
		s.SkillPath, s.ManifestPath = "", ""
	}
	return s, diags
}

// BuiltinSkills are the built-in skills, parsed: a quarter of a
// millisecond's work that a session does once, while it waits for the
// skill cache, rather than at every discovery ([Options.BuiltinSet]).
// Each discovery claims copies.
type BuiltinSkills struct {
	skills []*Skill // in name order; nil where a skill did not parse
	diags  [][]Diagnostic
}

// ParseBuiltins parses the built-in skills.
func ParseBuiltins() *BuiltinSkills {
	names := builtinNames()
	b := &BuiltinSkills{skills: make([]*Skill, len(names)), diags: make([][]Diagnostic, len(names))}
	for i, name := range names {
		b.skills[i], b.diags[i] = loadBuiltin(name)
	}
	return b
}

// len is the number of built-in skills (0 for none).
func (b *BuiltinSkills) len() int {
	if b == nil {
		return 0
	}
	return len(b.skills)
}

// each calls f with a copy of each built-in skill (nil where it did not
// parse) and of its diagnostics, in name order: the copies a parse would
// give, so that no two catalogs share a skill's lists or metadata.
func (b *BuiltinSkills) each(f func(s *Skill, diags []Diagnostic)) {
	for i, s := range b.skills {
		f(cloneSkill(s), slices.Clone(b.diags[i]))
	}
}

// BuiltinBody returns the instructions (the SKILL.md body, without its
// frontmatter) of the built-in skill called name, "" when there is none.
// `/init` and `clawseed init` send the init skill's body, so the command
// and the skill are one text.
func BuiltinBody(name string) string {
	s, _ := loadBuiltin(name)
	if s == nil {
		return ""
	}
	return s.Body
}
