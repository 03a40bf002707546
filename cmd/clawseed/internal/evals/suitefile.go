package evals

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// The parsers of a suite's three files: case.yaml, prompt.md and
// graders/*.md. They check what Claude Code checks (unknown keys are
// errors, each grader type has its own keys) and say where, as
// file:line: key: message.

// A FileError is what is wrong in a file of cases (a trigger case file, a
// suite's case.yaml, prompt.md or grader): file:line: key: message, the
// line 0 and the key "" when it is the file, or the entry, as a whole.
type FileError struct {
	File string
	Line int // 0: the file as a whole
	Key  string
	Msg  string
}

func (e *FileError) Error() string {
	at := e.File
	if e.Line > 0 {
		at += ":" + strconv.Itoa(e.Line)
	}
	if e.Key != "" {
		return at + ": " + e.Key + ": " + e.Msg
	}
	return at + ": " + e.Msg
}

// caseDoc is a case's fields from case.yaml and/or prompt.md's frontmatter.
type caseDoc struct {
	SchemaVersion   string
	Name            string
	Description     string
	Tags            []string
	Plugins         []string
	Runs            int
	ExpectedOutcome string
	// execution:
	Prompt, Model, AppendSystemPrompt string
	HasPrompt                         bool
	MaxTurns, TimeoutSeconds          int
	AllowedTools                      []string
	Env                               map[string]string
	// context: (case.yaml only)
	ScaffoldScript, HistoryFile string
	AddDirs                     []string
	Graders                     []Grader
	// set records which fields were given, so prompt.md's frontmatter
	// overrides only those of case.yaml it sets.
	set map[string]bool
}

// topKeys are case.yaml's top-level keys; execKeys those under execution:
// (prompt.md's frontmatter takes execKeys but prompt, and topKeys but
// context and graders, all at its top level).
var (
	topKeys     = []string{"schema_version", "name", "description", "tags", "plugins", "runs", "expected_outcome", "context", "execution", "graders"}
	execKeys    = []string{"prompt", "model", "max_turns", "timeout_seconds", "allowed_tools", "append_system_prompt", "env"}
	contextKeys = []string{"scaffold_script", "history_file", "add_dirs"}
	promptKeys  = []string{"schema_version", "name", "description", "tags", "plugins", "runs", "expected_outcome", "model", "max_turns", "timeout_seconds", "allowed_tools", "append_system_prompt", "env"}
)

// graderKeys are the keys of each grader type beyond type, weight and arm
// (and name in case.yaml).
var graderKeys = map[string][]string{
	"regex":       {"pattern", "flags", "match", "target"},
	"tool_used":   {"tool", "input_match", "min", "max"},
	"tool_order":  {"before", "after"},
	"file_exists": {"path", "exists"},
	"llm":         {"criteria", "focus"},
	"baseline":    {"baseline_file", "criteria"},
}

// parseCaseYAML reads case.yaml.
func parseCaseYAML(file string, data []byte) (*caseDoc, error) {
	root, err := yamlRoot(file, data, 0)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, &FileError{File: file, Msg: "empty case.yaml"}
	}
	keys, err := mapping(file, root, "", topKeys)
	if err != nil {
		return nil, err
	}
	d := &caseDoc{set: map[string]bool{}}
	if err := d.top(file, keys); err != nil {
		return nil, err
	}
	if n := keys["schema_version"]; n == nil {
		return nil, &FileError{File: file, Line: root.Line, Key: "schema_version", Msg: `required ("1.1")`}
	}
	if keys["name"] == nil {
		return nil, &FileError{File: file, Line: root.Line, Key: "name", Msg: "required"}
	}
	if n := keys["execution"]; n != nil {
		ek, err := mapping(file, n, "execution.", execKeys)
		if err != nil {
			return nil, err
		}
		if err := d.exec(file, ek, "execution."); err != nil {
			return nil, err
		}
	}
	if n := keys["context"]; n != nil {
		ck, err := mapping(file, n, "context.", contextKeys)
		if err != nil {
			return nil, err
		}
		for _, f := range []struct {
			key string
			to  *string
		}{{"scaffold_script", &d.ScaffoldScript}, {"history_file", &d.HistoryFile}} {
			if n := ck[f.key]; n != nil {
				if err := decode(file, n, "context."+f.key, f.to); err != nil {
					return nil, err
				}
			}
		}
		if n := ck["add_dirs"]; n != nil {
			if err := decode(file, n, "context.add_dirs", &d.AddDirs); err != nil {
				return nil, err
			}
		}
	}
	if n := keys["graders"]; n != nil {
		if n.Kind != yaml.SequenceNode {
			return nil, &FileError{File: file, Line: n.Line, Key: "graders", Msg: "must be a list"}
		}
		names := map[string]int{}
		for i, gn := range n.Content {
			key := fmt.Sprintf("graders[%d]", i)
			g, err := parseGraderNode(file, gn, key, true)
			if err != nil {
				return nil, err
			}
			if prev, dup := names[g.Name]; dup {
				return nil, &FileError{File: file, Line: gn.Line, Key: key + ".name", Msg: fmt.Sprintf("%q is also the name of the grader at line %d", g.Name, prev)}
			}
			names[g.Name] = gn.Line
			d.Graders = append(d.Graders, g)
		}
	}
	return d, nil
}

// frontmatter splits a Markdown file into its YAML frontmatter (nil when
// there is none) and body, and returns the line the frontmatter's first
// line has in the file.
func frontmatter(file string, data []byte) (fm []byte, body string, line int, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") && text != "---" {
		return nil, text, 0, nil
	}
	rest := strings.TrimPrefix(text, "---")
	rest = strings.TrimPrefix(rest, "\n")
	end := -1
	if strings.HasPrefix(rest, "---\n") || rest == "---" {
		end = 0
	} else if i := strings.Index(rest, "\n---\n"); i >= 0 {
		end = i + 1
	} else if strings.HasSuffix(rest, "\n---") {
		end = len(rest) - 3
	}
	if end < 0 {
		return nil, "", 0, &FileError{File: file, Line: 1, Msg: "frontmatter opened with --- is never closed"}
	}
	body = strings.TrimPrefix(rest[end:], "---")
	body = strings.TrimPrefix(body, "\n")
	return []byte(rest[:end]), body, 2, nil
}

// parsePromptMD reads prompt.md: its frontmatter's case fields and its
// body, the prompt.
func parsePromptMD(file string, data []byte) (*caseDoc, error) {
	fm, body, line, err := frontmatter(file, data)
	if err != nil {
		return nil, err
	}
	d := &caseDoc{set: map[string]bool{}}
	if fm != nil {
		root, err := yamlRoot(file, fm, line-1)
		if err != nil {
			return nil, err
		}
		if root != nil {
			keys, err := mapping(file, root, "", promptKeys)
			if err != nil {
				return nil, err
			}
			if err := d.top(file, keys); err != nil {
				return nil, err
			}
			if err := d.exec(file, keys, ""); err != nil {
				return nil, err
			}
		}
	}
	d.Prompt, d.HasPrompt = strings.TrimSpace(body), true
	d.set["prompt"] = true
	return d, nil
}

// parseGraderMD reads graders/NAME.md: frontmatter type and options; the
// body is an llm or baseline grader's criteria, or a regex grader's
// pattern, when the frontmatter does not give them.
func parseGraderMD(file, name string, data []byte) (Grader, error) {
	fm, body, line, err := frontmatter(file, data)
	if err != nil {
		return Grader{}, err
	}
	if fm == nil {
		return Grader{}, &FileError{File: file, Line: 1, Key: "type", Msg: "a grader file needs frontmatter with type (regex, tool_used, tool_order, file_exists, llm, baseline)"}
	}
	root, err := yamlRoot(file, fm, line-1)
	if err != nil {
		return Grader{}, err
	}
	if root == nil {
		return Grader{}, &FileError{File: file, Line: 1, Key: "type", Msg: "required"}
	}
	g, err := parseGraderNode(file, root, "", false)
	if err != nil {
		return Grader{}, err
	}
	g.Name = name
	g.Body = strings.TrimSpace(body)
	return g, nil
}

// parseGraderNode reads one grader's mapping; named graders (case.yaml's
// list) need a name.
func parseGraderNode(file string, n *yaml.Node, key string, named bool) (Grader, error) {
	prefix := key
	if prefix != "" {
		prefix += "."
	}
	if n.Kind != yaml.MappingNode {
		return Grader{}, &FileError{File: file, Line: n.Line, Key: key, Msg: "a grader must be a mapping"}
	}
	var kind string
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "type" {
			if err := decode(file, n.Content[i+1], prefix+"type", &kind); err != nil {
				return Grader{}, err
			}
		}
	}
	own, ok := graderKeys[kind]
	if !ok {
		msg := "required"
		if kind != "" {
			msg = fmt.Sprintf("unknown grader type %q", kind)
		}
		return Grader{}, &FileError{File: file, Line: n.Line, Key: prefix + "type", Msg: msg + " (regex, tool_used, tool_order, file_exists, llm, baseline)"}
	}
	allowed := append([]string{"type", "weight", "arm"}, own...)
	if named {
		allowed = append(allowed, "name")
	}
	keys, err := mapping(file, n, prefix, allowed)
	if err != nil {
		return Grader{}, err
	}
	g := Grader{Kind: kind, Weight: 1, Spec: map[string]any{}, lines: map[string]int{}, At: fmt.Sprintf("%s:%d", file, n.Line)}
	if named {
		if keys["name"] == nil {
			return Grader{}, &FileError{File: file, Line: n.Line, Key: prefix + "name", Msg: "required (every grader needs a name)"}
		}
		if err := decode(file, keys["name"], prefix+"name", &g.Name); err != nil {
			return Grader{}, err
		}
		if g.Name == "" {
			return Grader{}, &FileError{File: file, Line: keys["name"].Line, Key: prefix + "name", Msg: "must not be empty"}
		}
	}
	if wn := keys["weight"]; wn != nil {
		if err := decode(file, wn, prefix+"weight", &g.Weight); err != nil {
			return Grader{}, err
		}
		if !(g.Weight > 0) {
			return Grader{}, &FileError{File: file, Line: wn.Line, Key: prefix + "weight", Msg: "must be a positive number"}
		}
	}
	if an := keys["arm"]; an != nil {
		if err := decode(file, an, prefix+"arm", &g.Arm); err != nil {
			return Grader{}, err
		}
		if g.Arm != "with-only" && g.Arm != "both" {
			return Grader{}, &FileError{File: file, Line: an.Line, Key: prefix + "arm", Msg: fmt.Sprintf("%q is neither with-only nor both", g.Arm)}
		}
	}
	for _, k := range own {
		vn := keys[k]
		if vn == nil {
			continue
		}
		var v any
		if err := decode(file, vn, prefix+k, &v); err != nil {
			return Grader{}, err
		}
		g.Spec[k] = v
		g.lines[k] = vn.Line
	}
	return g, nil
}

// top decodes the top-level case fields in keys.
func (d *caseDoc) top(file string, keys map[string]*yaml.Node) error {
	fields := []struct {
		key string
		to  any
	}{
		{"schema_version", &d.SchemaVersion}, {"name", &d.Name}, {"description", &d.Description},
		{"tags", &d.Tags}, {"plugins", &d.Plugins}, {"runs", &d.Runs}, {"expected_outcome", &d.ExpectedOutcome},
	}
	for _, f := range fields {
		if n := keys[f.key]; n != nil {
			if err := decode(file, n, f.key, f.to); err != nil {
				return err
			}
			d.set[f.key] = true
		}
	}
	if d.set["schema_version"] && d.SchemaVersion != "1.1" && d.SchemaVersion != "1.0" {
		return &FileError{File: file, Line: keys["schema_version"].Line, Key: "schema_version", Msg: fmt.Sprintf("%q is not a known case format version (1.1)", d.SchemaVersion)}
	}
	if d.set["name"] && d.Name == "" {
		return &FileError{File: file, Line: keys["name"].Line, Key: "name", Msg: "must not be empty"}
	}
	if d.set["runs"] && (d.Runs < 1 || d.Runs > 50) {
		return &FileError{File: file, Line: keys["runs"].Line, Key: "runs", Msg: "must be 1 to 50"}
	}
	return nil
}

// evalEnvKey is the form Claude Code requires of an env key.
var evalEnvKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^EVAL_[A-Z0-9_]*$`) })

// exec decodes the execution fields in keys (under prefix in the key
// names of errors).
func (d *caseDoc) exec(file string, keys map[string]*yaml.Node, prefix string) error {
	fields := []struct {
		key string
		to  any
	}{
		{"model", &d.Model}, {"max_turns", &d.MaxTurns}, {"timeout_seconds", &d.TimeoutSeconds},
		{"allowed_tools", &d.AllowedTools}, {"append_system_prompt", &d.AppendSystemPrompt}, {"env", &d.Env},
	}
	if prefix != "" {
		fields = append(fields, struct {
			key string
			to  any
		}{"prompt", &d.Prompt})
	}
	for _, f := range fields {
		if n := keys[f.key]; n != nil {
			if err := decode(file, n, prefix+f.key, f.to); err != nil {
				return err
			}
			d.set[f.key] = true
		}
	}
	d.HasPrompt = d.set["prompt"]
	if n := keys["max_turns"]; n != nil && (d.MaxTurns < 1 || d.MaxTurns > 200) {
		return &FileError{File: file, Line: n.Line, Key: prefix + "max_turns", Msg: "must be 1 to 200"}
	}
	if n := keys["timeout_seconds"]; n != nil && (d.TimeoutSeconds < 1 || d.TimeoutSeconds > 3600) {
		return &FileError{File: file, Line: n.Line, Key: prefix + "timeout_seconds", Msg: "must be 1 to 3600"}
	}
	for k := range d.Env {
		if !evalEnvKey().MatchString(k) {
			return &FileError{File: file, Line: keys["env"].Line, Key: prefix + "env." + k, Msg: "keys must match EVAL_[A-Z0-9_]*"}
		}
	}
	return nil
}

// yamlRoot parses data as one YAML document and returns its root node (nil
// for an empty document); lineOffset is added to the lines of errors (the
// frontmatter's place in its file).
func yamlRoot(file string, data []byte, lineOffset int) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, suiteYAMLError(file, "", err, lineOffset)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	shift(&doc, lineOffset)
	return doc.Content[0], nil
}

// shift moves every node's line by off.
func shift(n *yaml.Node, off int) {
	if off == 0 {
		return
	}
	n.Line += off
	for _, c := range n.Content {
		shift(c, off)
	}
}

// yamlLine finds "line N: " in a YAML error.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+): `) })

// suiteYAMLError turns a YAML error into a FileError at its line.
func suiteYAMLError(file, key string, err error, lineOffset int) error {
	msg := err.Error()
	if te, ok := errors.AsType[*yaml.TypeError](err); ok && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 0
	if m := yamlLine().FindStringSubmatchIndex(msg); m != nil {
		line, _ = strconv.Atoi(msg[m[2]:m[3]])
		line += lineOffset
		msg = msg[:m[0]] + msg[m[1]:]
	}
	return &FileError{File: file, Line: line, Key: key, Msg: msg}
}

// mapping returns the keys of a mapping node, refusing keys not in
// allowed (as Claude Code's strict schema does) and duplicates.
func mapping(file string, n *yaml.Node, prefix string, allowed []string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, &FileError{File: file, Line: n.Line, Key: strings.TrimSuffix(prefix, "."), Msg: "must be a mapping"}
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !contains(allowed, k.Value) {
			return nil, &FileError{File: file, Line: k.Line, Key: prefix + k.Value, Msg: "unknown key (known: " + strings.Join(allowed, ", ") + ")"}
		}
		if _, dup := out[k.Value]; dup {
			return nil, &FileError{File: file, Line: k.Line, Key: prefix + k.Value, Msg: "given twice"}
		}
		out[k.Value] = n.Content[i+1]
	}
	return out, nil
}

// decode decodes a node into v, with the node's line on a type error.
func decode(file string, n *yaml.Node, key string, v any) error {
	if err := n.Decode(v); err != nil {
		e := suiteYAMLError(file, key, err, 0)
		if le, ok := e.(*FileError); ok && le.Line == 0 {
			le.Line = n.Line
		}
		return e
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
