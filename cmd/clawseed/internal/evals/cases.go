package evals

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/clawseed/clawseed/internal/nesting"
)

// The trigger case file (SPEC "Skill supply chain"): a YAML list or JSON
// Lines, each item an object {"prompt": "...", "expect": "skill-name" |
// null} with an optional "id". Every key is checked: a misspelt "expected"
// is an error, not a case that expects nothing.

// MaxCaseFileBytes bounds a trigger case file: it is read whole.
const MaxCaseFileBytes = 8 << 20

// maxCaseErrors bounds the errors reported for one file.
const maxCaseErrors = 20

// LoadCases reads the trigger case file at path.
func LoadCases(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxCaseFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > MaxCaseFileBytes {
		return nil, &FileError{File: path, Msg: fmt.Sprintf("larger than %d bytes", MaxCaseFileBytes)}
	}
	return ParseCases(path, data)
}

// ParseCases parses a trigger case file; name is the file's name in
// errors and case ids. A file named *.jsonl or *.ndjson, or whose first
// non-blank character is "{", is JSON Lines; any other is YAML. Every bad
// entry is reported (up to 20), each as a *FileError, joined.
func ParseCases(name string, data []byte) ([]Case, error) {
	var cases []Case
	var errs []error
	if isJSONL(name, data) {
		cases, errs = parseJSONL(name, data)
	} else {
		cases, errs = parseYAML(name, data)
	}
	seen := map[string]int{}
	for _, c := range cases {
		if line, dup := seen[c.ID]; dup {
			errs = append(errs, &FileError{File: name, Line: c.Line, Key: "id", Msg: fmt.Sprintf("%q is also the id of the case at line %d", c.ID, line)})
		}
		seen[c.ID] = c.Line
	}
	if len(errs) > 0 {
		if len(errs) > maxCaseErrors {
			errs = append(errs[:maxCaseErrors], fmt.Errorf("%s: and %d more errors", name, len(errs)-maxCaseErrors))
		}
		return nil, errors.Join(errs...)
	}
	if len(cases) == 0 {
		return nil, &FileError{File: name, Msg: `no cases (want a list of {"prompt": "...", "expect": "skill-name" | null})`}
	}
	return cases, nil
}

func isJSONL(name string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".jsonl", ".ndjson":
		return true
	case ".yaml", ".yml":
		return false
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// entry is one item as read, before it becomes a Case.
type entry struct {
	line     int
	prompt   *string
	expect   *string // nil: null
	hasExp   bool
	id       string
	keyLines map[string]int
}

// toCase checks e and returns its case; default ID "FILE:LINE".
func (e entry) toCase(name string) (Case, []error) {
	var errs []error
	at := func(key string) int {
		if l, ok := e.keyLines[key]; ok {
			return l
		}
		return e.line
	}
	if e.prompt == nil {
		errs = append(errs, &FileError{File: name, Line: e.line, Key: "prompt", Msg: "missing"})
	} else if strings.TrimSpace(*e.prompt) == "" {
		errs = append(errs, &FileError{File: name, Line: at("prompt"), Key: "prompt", Msg: "empty"})
	}
	if !e.hasExp {
		errs = append(errs, &FileError{File: name, Line: e.line, Key: "expect", Msg: "missing (the skill that should activate, or null for none)"})
	} else if e.expect != nil && strings.TrimSpace(*e.expect) == "" {
		errs = append(errs, &FileError{File: name, Line: at("expect"), Key: "expect", Msg: `empty (write null when no skill should activate)`})
	}
	if len(errs) > 0 {
		return Case{}, errs
	}
	c := Case{ID: e.id, Prompt: *e.prompt, HasExpect: true, MaxTurns: 1, Line: e.line}
	if e.expect != nil {
		c.Expect = strings.TrimSpace(*e.expect)
	}
	if c.ID == "" {
		c.ID = filepath.Base(name) + ":" + strconv.Itoa(e.line)
	}
	return c, nil
}

func parseJSONL(name string, data []byte) ([]Case, []error) {
	var cases []Case
	var errs []error
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	for i, raw := range bytes.Split(data, []byte("\n")) {
		line := i + 1
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			errs = append(errs, &FileError{File: name, Line: line, Msg: `not a JSON object (each line is {"prompt": "...", "expect": "skill-name" | null})`})
			continue
		}
		e := entry{line: line}
		bad := false
		for _, k := range sortedKeys(obj) {
			v := obj[k]
			var err error
			switch k {
			case "prompt":
				var s string
				if err = json.Unmarshal(v, &s); err == nil {
					e.prompt = &s
				}
			case "expect":
				e.hasExp = true
				if string(v) != "null" {
					var s string
					if err = json.Unmarshal(v, &s); err == nil {
						e.expect = &s
					}
				}
			case "id":
				err = json.Unmarshal(v, &e.id)
			default:
				errs = append(errs, &FileError{File: name, Line: line, Key: k, Msg: "unknown key (want prompt, expect, id)"})
				bad = true
				continue
			}
			if err != nil {
				want := "a string"
				if k == "expect" {
					want = "a skill name or null"
				}
				errs = append(errs, &FileError{File: name, Line: line, Key: k, Msg: "must be " + want})
				bad = true
			}
		}
		if bad {
			continue
		}
		c, cerrs := e.toCase(name)
		if len(cerrs) > 0 {
			errs = append(errs, cerrs...)
			continue
		}
		cases = append(cases, c)
	}
	return cases, errs
}

func parseYAML(name string, data []byte) ([]Case, []error) {
	if err := nesting.CheckYAML(data); err != nil {
		return nil, []error{&FileError{File: name, Msg: err.Error()}}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, []error{yamlError(name, err)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode {
		return nil, []error{&FileError{File: name, Line: list.Line, Msg: `not a list (want a list of {prompt: "...", expect: skill-name | null})`}}
	}
	var cases []Case
	var errs []error
	for _, item := range list.Content {
		if item.Kind != yaml.MappingNode {
			errs = append(errs, &FileError{File: name, Line: item.Line, Msg: "not a mapping (want prompt: and expect:)"})
			continue
		}
		e := entry{line: item.Line, keyLines: map[string]int{}}
		bad := false
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, v := item.Content[i], item.Content[i+1]
			e.keyLines[k.Value] = v.Line
			isNull := v.Kind == yaml.ScalarNode && v.Tag == "!!null"
			switch {
			case k.Value != "prompt" && k.Value != "expect" && k.Value != "id":
				errs = append(errs, &FileError{File: name, Line: k.Line, Key: k.Value, Msg: "unknown key (want prompt, expect, id)"})
				bad = true
			case k.Value == "expect" && isNull:
				e.hasExp = true
			case v.Kind != yaml.ScalarNode || isNull:
				want := "a string"
				if k.Value == "expect" {
					want = "a skill name or null"
				}
				errs = append(errs, &FileError{File: name, Line: v.Line, Key: k.Value, Msg: "must be " + want})
				bad = true
			case k.Value == "prompt":
				s := v.Value
				e.prompt = &s
			case k.Value == "expect":
				s := v.Value
				e.expect, e.hasExp = &s, true
			default:
				e.id = v.Value
			}
		}
		if bad {
			continue
		}
		c, cerrs := e.toCase(name)
		if len(cerrs) > 0 {
			errs = append(errs, cerrs...)
			continue
		}
		cases = append(cases, c)
	}
	return cases, errs
}

// yamlError turns the parser's "yaml: line N: msg" into file:N: msg.
func yamlError(name string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if n, convErr := strconv.Atoi(num); convErr == nil {
				return &FileError{File: name, Line: n, Msg: text}
			}
		}
	}
	return &FileError{File: name, Msg: msg}
}

// CheckExpected reports the cases that expect a skill known says is not in
// the catalog, each as a *FileError naming it (joined); nil when all are.
func CheckExpected(name string, cases []Case, known func(string) bool) error {
	var errs []error
	for _, c := range cases {
		if c.Expect != "" && !known(c.Expect) {
			errs = append(errs, &FileError{File: name, Line: c.Line, Key: "expect", Msg: fmt.Sprintf("no skill %q in the catalog (see clawseed skills list)", c.Expect)})
		}
	}
	if len(errs) > maxCaseErrors {
		errs = append(errs[:maxCaseErrors], fmt.Errorf("%s: and %d more unknown skills", name, len(errs)-maxCaseErrors))
	}
	return errors.Join(errs...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
