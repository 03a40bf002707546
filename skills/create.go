package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"

	"github.com/clawseed/clawseed/internal/atomicfile"
)

// newSkillVersion is the version written by [Create].
const newSkillVersion = "0.1.0"

// NewSkill is the input of [Create]: the parameters of the skill_create tool
// and of `clawseed skills new`.
type NewSkill struct {
	Name        string
	Description string
	// Content is the Markdown body of SKILL.md, without frontmatter.
	Content     string
	Triggers    []string
	Permissions []string
}

// An ExistsError is returned by [Create] when the skill's directory exists
// and overwrite is not set. Its text says only that: the remedy depends on
// the caller (the skill_create tool's `overwrite: true`, the CLI's
// `--force`), which adds it.
type ExistsError struct {
	Name, Dir string
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("skill %q already exists at %s", e.Name, e.Dir)
}

// Create writes the skill s to <root>/<name>/: SKILL.md (YAML frontmatter with
// name and description, a blank line, then the content) and manifest.toml
// ([skill] name, version "0.1.0", description, permissions, triggers). Both
// files are produced by the YAML and TOML encoders and written atomically.
// It refuses an invalid name, an empty description or content, and an
// existing skill directory unless overwrite is set (an [*ExistsError]). It
// returns the skill directory.
//
// The content is normalised as the loader would read it back: CRLF becomes
// LF, leading blank lines and trailing whitespace are dropped. Empty
// triggers and permissions are dropped.
func Create(root string, s NewSkill, overwrite bool) (string, error) {
	s, err := checkNewSkill(s)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, s.Name)
	fi, err := os.Lstat(dir)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return "", fmt.Errorf("create skill %q: %s is a symbolic link; refusing to write through it", s.Name, dir)
	case err == nil && !fi.IsDir():
		return "", fmt.Errorf("create skill %q: %s exists and is not a directory", s.Name, dir)
	case err == nil && !overwrite:
		return "", &ExistsError{Name: s.Name, Dir: dir}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("create skill %q: %w", s.Name, err)
	}

	skillMD, err := encodeSkillMD(s)
	if err != nil {
		return "", fmt.Errorf("create skill %q: %w", s.Name, err)
	}
	manifest, err := encodeManifest(s)
	if err != nil {
		return "", fmt.Errorf("create skill %q: %w", s.Name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create skill %q: %w", s.Name, err)
	}
	// SKILL.md first: if we stop half-way, a SKILL.md alone is still a skill.
	if err := atomicfile.Write(filepath.Join(dir, skillFileName), skillMD, 0o644); err != nil {
		return "", fmt.Errorf("create skill %q: %w", s.Name, err)
	}
	if err := atomicfile.Write(filepath.Join(dir, manifestFileName), manifest, 0o644); err != nil {
		return "", fmt.Errorf("create skill %q: %w", s.Name, err)
	}
	return dir, nil
}

// checkNewSkill validates and normalises the input of Create.
func checkNewSkill(s NewSkill) (NewSkill, error) {
	if s.Name == "" {
		return s, errors.New("skill name is required")
	}
	if !ValidName(s.Name) {
		return s, fmt.Errorf("invalid skill name %q: use letters, digits, '.', '_', ':' and '-', starting with a letter or digit, at most %d characters (e.g. \"release-checklist\")", s.Name, maxNameLen)
	}
	s.Description = strings.TrimSpace(s.Description)
	if s.Description == "" {
		return s, errors.New("skill description is required")
	}
	if n := utf8.RuneCountInString(s.Description); n > maxDescriptionLen {
		return s, fmt.Errorf("skill description has %d characters; the limit is %d", n, maxDescriptionLen)
	}
	s.Content = cleanBody(strings.ReplaceAll(s.Content, "\r\n", "\n"))
	if s.Content == "" {
		return s, errors.New("skill content (the SKILL.md body) is required")
	}
	s.Triggers = nonEmpty(s.Triggers)
	s.Permissions = nonEmpty(s.Permissions)
	for _, v := range slices.Concat([]string{s.Description, s.Content}, s.Triggers, s.Permissions) {
		if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
			return s, errors.New("skill text must be valid UTF-8 without NUL characters")
		}
	}
	return s, nil
}

func nonEmpty(in []string) []string {
	out := []string{}
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// encodeSkillMD renders SKILL.md; the frontmatter comes from the YAML encoder
// so that no value can break out of it.
func encodeSkillMD(s NewSkill) ([]byte, error) {
	front := struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}{s.Name, s.Description}
	y, err := yaml.Marshal(front)
	if err != nil {
		return nil, fmt.Errorf("encode frontmatter: %w", err)
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(y)
	b.WriteString("---\n\n")
	b.WriteString(s.Content)
	b.WriteString("\n")
	return b.Bytes(), nil
}

// encodeManifest renders manifest.toml with the TOML encoder (ClawSeed built
// it with string formatting, which broke on quotes and backslashes).
func encodeManifest(s NewSkill) ([]byte, error) {
	type skillTable struct {
		Name        string   `toml:"name"`
		Version     string   `toml:"version"`
		Description string   `toml:"description"`
		Permissions []string `toml:"permissions"`
		Triggers    []string `toml:"triggers"`
	}
	doc := struct {
		Skill skillTable `toml:"skill"`
	}{skillTable{s.Name, newSkillVersion, s.Description, s.Permissions, s.Triggers}}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(doc); err != nil {
		return nil, fmt.Errorf("encode manifest.toml: %w", err)
	}
	return b.Bytes(), nil
}
