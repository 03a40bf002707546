package memory

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/clawseed/clawseed/internal/nesting"
	"go.yaml.in/yaml/v3"
)

// ParseFile parses a memory file: YAML frontmatter between "---" lines with
// name, description and type (required) and created, updated (RFC 3339,
// optional), then the Markdown body. path is only recorded in the result and
// in errors. Files are edited by hand, so every malformed input is an error
// (with path:line where known), never a panic.
func ParseFile(path string, data []byte) (Memory, error) {
	m := Memory{Path: path}
	if len(data) > maxFileBytes {
		return m, fmt.Errorf("%s: file is larger than %d bytes", path, maxFileBytes)
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return m, fmt.Errorf("%s: not a UTF-8 text file", path)
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	fm, body, ok := splitFrontmatter(text)
	if !ok {
		return m, fmt.Errorf("%s:1: missing frontmatter (the file must start with a line \"---\")", path)
	}
	fields, err := parseFrontmatter(fm)
	if err != nil {
		return m, fmt.Errorf("%s:%w", path, err)
	}
	m.Name = fields["name"].value
	m.Description = fields["description"].value
	m.Type = fields["type"].value
	m.Body = strings.TrimSpace(body)
	for _, k := range []string{"name", "description", "type"} {
		if _, ok := fields[k]; !ok {
			return m, fmt.Errorf("%s:1: frontmatter: missing key %q", path, k)
		}
	}
	for _, k := range []string{"created", "updated"} {
		f, ok := fields[k]
		if !ok || f.value == "" {
			continue
		}
		t, err := parseTime(f.value)
		if err != nil {
			return m, fmt.Errorf("%s:%d: %s: %v", path, f.line+1, k, err)
		}
		if k == "created" {
			m.Created = t
		} else {
			m.Updated = t
		}
	}
	if err := validate(m); err != nil {
		line := 1
		if f, ok := fields[fieldOf(err)]; ok {
			line = f.line + 1
		}
		return m, fmt.Errorf("%s:%d: %w", path, line, err)
	}
	return m, nil
}

// splitFrontmatter returns the text between the opening and closing "---"
// lines and the rest.
func splitFrontmatter(text string) (fm, body string, ok bool) {
	first, rest, found := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" || !found {
		return "", "", false
	}
	off := 0
	for off <= len(rest) {
		line, next, more := strings.Cut(rest[off:], "\n")
		if t := strings.TrimRight(line, " \t"); t == "---" || t == "..." {
			return rest[:off], next, true
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return "", "", false
}

type fmField struct {
	value string
	line  int // 1-based line inside the frontmatter
}

// parseFrontmatter decodes a flat mapping of scalars. It walks the node tree
// itself instead of decoding into a struct so aliases are refused, not
// expanded (no "billion laughs"), and the nesting pre-check keeps the YAML
// library's recursion bounded, as for skills.
func parseFrontmatter(src string) (fields map[string]fmField, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("1: frontmatter: yaml: internal error: %v", r)
		}
	}()
	if err := nesting.CheckYAML([]byte(src)); err != nil {
		return nil, fmt.Errorf("2: frontmatter: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, fmt.Errorf("1: frontmatter: %v", err)
	}
	fields = map[string]fmField{}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return fields, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%d: frontmatter is not a mapping of keys to values", root.Line+1)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%d: frontmatter: keys must be plain words", k.Line+1)
		}
		if _, dup := fields[k.Value]; dup {
			return nil, fmt.Errorf("%d: frontmatter: key %q appears twice", k.Line+1, k.Value)
		}
		if v.Kind != yaml.ScalarNode {
			if knownKey(k.Value) {
				return nil, fmt.Errorf("%d: frontmatter: %s: must be a single line of text", v.Line+1, k.Value)
			}
			continue // unknown keys are the user's business
		}
		val := v.Value
		if v.Tag == "!!null" {
			val = ""
		}
		fields[k.Value] = fmField{value: val, line: k.Line}
	}
	return fields, nil
}

func knownKey(k string) bool {
	switch k {
	case "name", "description", "type", "created", "updated":
		return true
	}
	return false
}

// parseTime accepts RFC 3339 and, for hand-written files, a bare date or a
// date and time without zone (taken as UTC).
func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time like 2006-01-02T15:04:05Z", s)
}

// A fieldError names the field that failed validation, so ParseFile can
// point at its line.
type fieldError struct {
	field, msg string
}

func (e *fieldError) Error() string { return e.field + ": " + e.msg }
func (e *fieldError) Unwrap() error { return ErrInvalid }

func fieldOf(err error) string {
	if fe, ok := err.(*fieldError); ok {
		return fe.field
	}
	return ""
}

// validate checks the fields the model or a hand-edit supplies. Names and
// descriptions end up as MEMORY.md lines in the system prompt, so they must
// be one short line.
func validate(m Memory) error {
	if err := checkLine("name", m.Name, MaxNameLen); err != nil {
		return err
	}
	if err := checkLine("description", m.Description, MaxDescriptionLen); err != nil {
		return err
	}
	if ScopeOf(m.Type) == "" {
		return &fieldError{"type", fmt.Sprintf("%q is not one of user, feedback, project, reference", m.Type)}
	}
	if len(m.Body) > MaxBodyBytes {
		return &fieldError{"content", fmt.Sprintf("longer than %d bytes", MaxBodyBytes)}
	}
	return nil
}

func checkLine(field, v string, max int) error {
	switch {
	case strings.TrimSpace(v) == "":
		return &fieldError{field, "must not be empty"}
	case utf8.RuneCountInString(v) > max:
		return &fieldError{field, fmt.Sprintf("longer than %d characters", max)}
	case strings.IndexFunc(v, unicode.IsControl) >= 0:
		return &fieldError{field, "must be one line without control characters"}
	case strings.TrimSpace(v) != v:
		return &fieldError{field, "must not start or end with spaces"}
	}
	return nil
}

// render is the file text of m; ParseFile(render(m)) gives m back.
func render(m Memory) ([]byte, error) {
	fm := struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Type        string `yaml:"type"`
		Created     string `yaml:"created"`
		Updated     string `yaml:"updated"`
	}{m.Name, m.Description, m.Type, m.Created.UTC().Format(time.RFC3339), m.Updated.UTC().Format(time.RFC3339)}
	y, err := yaml.Marshal(&fm)
	if err != nil {
		return nil, fmt.Errorf("memory %q: encode frontmatter: %w", m.Name, err)
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(y)
	b.WriteString("---\n\n")
	if m.Body != "" {
		b.WriteString(m.Body)
		b.WriteString("\n")
	}
	return b.Bytes(), nil
}

// check trims m's name, description and body and validates them, as every
// store does before saving.
func check(m Memory) (Memory, error) {
	m.Name = strings.TrimSpace(m.Name)
	m.Description = strings.TrimSpace(m.Description)
	m.Body = strings.TrimSpace(m.Body)
	if err := validate(m); err != nil {
		return Memory{}, fmt.Errorf("memory %q: %w", m.Name, err)
	}
	return m, nil
}
