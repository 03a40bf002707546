package skills

import (
	"errors"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SetDescription returns SKILL.md text src with the frontmatter's
// description set to desc, and nothing else changed: the lines of the
// description key (its value's continuation lines too) are replaced, or
// a description line is added after the name line (or first) when there
// is none; every other byte stays. The result is read back: unless the
// frontmatter then has exactly desc as its description and every other
// key as before, it is an error, and so is a file without frontmatter,
// with the key written twice, or a description that is not text
// (`skills eval --suggest`, issue 27).
func SetDescription(src []byte, desc string) ([]byte, error) {
	desc = strings.TrimSpace(desc)
	if desc == "" {
		return nil, errors.New("empty description")
	}
	if msg := checkText("SKILL.md", src); msg != "" {
		return nil, errors.New(msg)
	}
	text := string(src)
	bom := ""
	if strings.HasPrefix(text, "\ufeff") {
		bom, text = "\ufeff", text[len("\ufeff"):]
	}
	crlf := strings.Contains(text, "\r\n")
	if crlf {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	fm, _, ok := splitFrontmatter(text)
	if !ok {
		return nil, errors.New("SKILL.md has no frontmatter (--- lines) to hold a description")
	}
	start := strings.Index(text, "\n") + 1 // fm begins after the opening fence
	line, err := yamlLine("description", desc)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(fm, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	from, to, err := keyLines(lines, "description")
	if err != nil {
		return nil, err
	}
	if from < 0 {
		// None yet: after the name key's lines, else first.
		nFrom, nTo, _ := keyLines(lines, "name")
		from, to = 0, 0
		if nFrom >= 0 {
			from, to = nTo, nTo
		}
	}
	out := strings.Join(lines[:from], "") + line + strings.Join(lines[to:], "")
	result := text[:start] + out + text[start+len(fm):]
	if err := sameButDescription(text, result, desc); err != nil {
		return nil, err
	}
	if crlf {
		result = strings.ReplaceAll(result, "\n", "\r\n")
	}
	return []byte(bom + result), nil
}

// yamlLine is `key: value` as YAML writes it, quoted or as a block scalar
// when it must be, ending in a newline.
func yamlLine(key, value string) (string, error) {
	b, err := yaml.Marshal(map[string]string{key: value})
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// keyLines returns the lines [from, to) of a top-level key of frontmatter
// lines: its line and the lines after it that continue its value
// (indented, or blank and followed by an indented one); -1 when the key is
// not there. A key written twice is an error.
func keyLines(lines []string, key string) (from, to int, err error) {
	from = -1
	for i, l := range lines {
		if !isKeyLine(l, key) {
			continue
		}
		if from >= 0 {
			return 0, 0, errors.New("the frontmatter has " + key + " twice")
		}
		from, to = i, i+1
		for j := i + 1; j < len(lines); j++ {
			if indented(lines[j]) {
				to = j + 1
				continue
			}
			if strings.TrimSpace(lines[j]) != "" {
				break
			}
		}
	}
	return from, to, nil
}

func isKeyLine(l, key string) bool {
	rest, ok := strings.CutPrefix(l, key)
	if !ok {
		for _, q := range []string{`"`, `'`} {
			if r, ok2 := strings.CutPrefix(l, q+key+q); ok2 {
				rest, ok = r, true
			}
		}
	}
	return ok && strings.HasPrefix(strings.TrimLeft(rest, " \t"), ":")
}

func indented(l string) bool { return l != "" && (l[0] == ' ' || l[0] == '\t') }

// sameButDescription checks that after has desc as its description and
// every other frontmatter entry of before, in order.
func sameButDescription(before, after, desc string) error {
	old, _, oldNotes := parseMarkdown(before)
	now, _, notes := parseMarkdown(after)
	if len(notes) > len(oldNotes) {
		return errors.New("the frontmatter would not read back cleanly: " + notes[len(notes)-1].msg)
	}
	var got string
	var oldRest, newRest []any
	for _, e := range now {
		if e.key == "description" {
			s, _ := asString(e.val)
			got = s
			continue
		}
		newRest = append(newRest, e.key, e.val)
	}
	for _, e := range old {
		if e.key != "description" {
			oldRest = append(oldRest, e.key, e.val)
		}
	}
	if strings.TrimSpace(got) != desc {
		return errors.New("the new description would not read back as written")
	}
	if !reflect.DeepEqual(oldRest, newRest) {
		return errors.New("setting the description would change other frontmatter keys")
	}
	return nil
}
