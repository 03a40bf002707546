package evals

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/clawseed/clawseed/runtime/hooks"
)

// The six grader types of Claude Code's suites, each a pass/fail check of
// one run. regex, tool_used and tool_order are decided here; llm and
// baseline ask the judge (judge.go); file_exists and the targets that read
// the run's workspace (files, {source: file}) or mocked MCP calls
// (mock_calls) have nothing to look at in a clawseed run, which never
// writes the workspace and starts no plugin MCP server: a case with such a
// grader is skipped, with that reason, rather than scored without it.

// A target is what a regex grader (target) or an llm grader (focus) reads.
type target struct {
	kind string // last_message, trace, files, file, mock_calls
	path string // for file
}

// A toolRef names the calls a tool_used or tool_order grader counts.
type toolRef struct {
	tool  string
	input *jsRegex // nil: any input
}

// graderSpec is a grader's options, checked and compiled.
type graderSpec struct {
	target   target
	pattern  *jsRegex
	match    string // contains, not_contains, count
	count    int
	tool     toolRef // tool_used
	min, max int     // max < 0: no maximum
	before   toolRef
	after    toolRef
	criteria string
	// baseline is the reference transcript of a baseline grader.
	baselineFile, baseline string
	// unsupported says why the grader cannot be decided in a clawseed run.
	unsupported string
}

// buildSpec checks g's options as Claude Code's schema does and compiles
// them; file is where g is defined, for errors. readCaseFile reads a file
// of the case folder (a baseline grader's transcript).
func buildSpec(file string, g *Grader, readCaseFile func(rel string) (string, error)) error {
	s := &graderSpec{max: -1, min: 1, match: "contains", target: target{kind: "last_message"}}
	bad := func(key, msg string) error {
		return &FileError{File: file, Line: g.lines[key], Key: key, Msg: msg}
	}
	str := func(key string, required bool) (string, error) {
		v, ok := g.Spec[key]
		if !ok {
			if required {
				return "", &FileError{File: file, Line: lineOf(g.At), Key: key, Msg: "required for a " + g.Kind + " grader"}
			}
			return "", nil
		}
		sv, ok := v.(string)
		if !ok {
			return "", bad(key, "must be a string")
		}
		return sv, nil
	}
	regex := func(key string, required bool, flags string) (*jsRegex, error) {
		p, err := str(key, required)
		if err != nil || p == "" && !required {
			return nil, err
		}
		re, err := compileJS(p, flags)
		if err != nil {
			return nil, bad(key, err.Error())
		}
		return re, nil
	}
	var err error
	switch g.Kind {
	case "regex":
		flags, err := str("flags", false)
		if err != nil {
			return err
		}
		if _, ok := g.Spec["pattern"]; !ok && g.Body != "" {
			g.Spec["pattern"] = g.Body // the .md layout's body is the pattern
		}
		if s.pattern, err = regex("pattern", true, flags); err != nil {
			return err
		}
		if s.target, err = targetOf(g, "target", bad); err != nil {
			return err
		}
		m, err := str("match", false)
		if err != nil {
			return err
		}
		switch {
		case m == "" || m == "contains" || m == "not_contains":
			s.match = cmpOr(m, "contains")
		case strings.HasPrefix(m, "count:"):
			n, err := strconv.Atoi(strings.TrimPrefix(m, "count:"))
			if err != nil || n < 0 {
				return bad("match", fmt.Sprintf("%q: count:N needs a whole number N", m))
			}
			s.match, s.count = "count", n
		default:
			return bad("match", fmt.Sprintf("%q is none of contains, not_contains, count:N", m))
		}
	case "tool_used":
		if _, ok := g.Spec["tool"]; !ok {
			return &FileError{File: file, Line: lineOf(g.At), Key: "tool", Msg: "required for a tool_used grader"}
		}
		if s.tool, err = toolRefOf(g, "tool", g.Spec["tool"], bad); err != nil {
			return err
		}
		if s.tool.input, err = regex("input_match", false, ""); err != nil {
			return err
		}
		for _, k := range []string{"min", "max"} {
			v, ok := g.Spec[k]
			if !ok {
				continue
			}
			n, ok := v.(int)
			if !ok || n < 0 {
				return bad(k, "must be a whole number, 0 or more")
			}
			if k == "min" {
				s.min = n
			} else {
				s.max = n
			}
		}
		if s.max >= 0 && s.min > s.max {
			return bad("min", fmt.Sprintf("min %d is above max %d", s.min, s.max))
		}
	case "tool_order":
		for _, k := range []string{"before", "after"} {
			v, ok := g.Spec[k]
			if !ok {
				return &FileError{File: file, Line: lineOf(g.At), Key: k, Msg: "required for a tool_order grader"}
			}
			r, err := toolRefOf(g, k, v, bad)
			if err != nil {
				return err
			}
			if k == "before" {
				s.before = r
			} else {
				s.after = r
			}
		}
	case "file_exists":
		if _, err := str("path", true); err != nil {
			return err
		}
		if v, ok := g.Spec["exists"]; ok {
			if _, ok := v.(bool); !ok {
				return bad("exists", "must be true or false")
			}
		}
		s.unsupported = "file_exists looks at files the run created, and clawseed's eval runs never write the workspace"
	case "llm", "baseline":
		if s.criteria, err = str("criteria", false); err != nil {
			return err
		}
		if s.criteria == "" {
			s.criteria = g.Body // the .md layout's body is the criteria
		}
		if strings.TrimSpace(s.criteria) == "" {
			return &FileError{File: file, Line: lineOf(g.At), Key: "criteria", Msg: "the rubric is empty (criteria:, or the grader file's body)"}
		}
		if g.Kind == "llm" {
			if s.target, err = targetOf(g, "focus", bad); err != nil {
				return err
			}
			break
		}
		if s.baselineFile, err = str("baseline_file", true); err != nil {
			return err
		}
		if s.baseline, err = readCaseFile(s.baselineFile); err != nil {
			return bad("baseline_file", err.Error())
		}
	}
	switch s.target.kind {
	case "files", "file":
		s.unsupported = "its " + map[bool]string{true: "target", false: "focus"}[g.Kind == "regex"] + " reads the run's workspace, and clawseed's eval runs never write it"
	case "mock_calls":
		s.unsupported = "mock_calls are calls to mocked MCP servers, which clawseed does not run"
	}
	g.spec = s
	return nil
}

// targetOf reads a regex target or llm focus: last_message (the default),
// trace, files, mock_calls, or {source: file, path: P}.
func targetOf(g *Grader, key string, bad func(key, msg string) error) (target, error) {
	v, ok := g.Spec[key]
	if !ok {
		return target{kind: "last_message"}, nil
	}
	switch v := v.(type) {
	case string:
		switch v {
		case "last_message", "trace", "files", "mock_calls":
			return target{kind: v}, nil
		}
	case map[string]any:
		src, _ := v["source"].(string)
		path, _ := v["path"].(string)
		if src == "file" && path != "" && len(v) == 2 {
			return target{kind: "file", path: path}, nil
		}
	}
	return target{}, bad(key, "must be last_message, trace, files, mock_calls or { source: file, path: <path> }")
}

// toolRefOf reads a tool name or {tool, input_match}.
func toolRefOf(g *Grader, key string, v any, bad func(key, msg string) error) (toolRef, error) {
	switch v := v.(type) {
	case string:
		if v != "" {
			return toolRef{tool: v}, nil
		}
	case map[string]any:
		name, _ := v["tool"].(string)
		im, hasIM := v["input_match"]
		if name == "" || len(v) > 2 || len(v) == 2 && !hasIM {
			break
		}
		r := toolRef{tool: name}
		if hasIM {
			p, ok := im.(string)
			if !ok {
				break
			}
			re, err := compileJS(p, "")
			if err != nil {
				return toolRef{}, bad(key+".input_match", err.Error())
			}
			r.input = re
		}
		return r, nil
	}
	if key == "tool" {
		return toolRef{}, bad(key, "must be a tool name")
	}
	return toolRef{}, bad(key, "must be a tool name or { tool: NAME, input_match: REGEX }")
}

// lineOf returns the line of a "file:line" place.
func lineOf(at string) int {
	i := strings.LastIndexByte(at, ':')
	n, _ := strconv.Atoi(at[i+1:])
	return n
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// A verdict is one grader's outcome on one run.
type verdict struct {
	Passed bool
	// Reason says why: the judge's reason, or what was counted.
	Reason string
	// Votes are an llm grader's judge votes ("PASS", "FAIL", "error").
	Votes []string
	// Err is set when the grader could not be decided (a judge that did not
	// answer, a pattern that timed out); the grader then fails.
	Err string
	// Skipped is set when the cost ceiling stopped a judge grader before
	// it asked: the grader leaves the run's score.
	Skipped bool
}

// callView is a tool call as Claude Code's graders see it: Claude Code's
// tool name (file_write is Write) and its JSON input with Claude Code's
// argument names.
type callView struct {
	names []string // the names a grader's tool may use for it
	input string
}

func viewCalls(calls []ToolCall) []callView {
	out := make([]callView, 0, len(calls))
	for _, c := range calls {
		in, err := json.Marshal(hooks.ToolInput(c.Name, "", c.Input))
		if err != nil {
			in = c.Input
		}
		names := []string{c.Name}
		if cn := hooks.ClaudeToolName(c.Name); cn != c.Name {
			names = append(names, cn)
		}
		if c.Name == "file_edit" {
			names = append(names, "MultiEdit")
		}
		if c.Name == "Agent" {
			names = append(names, "Task")
		}
		out = append(out, callView{names: names, input: string(in)})
	}
	return out
}

// matches reports whether call c is one the reference counts.
func (r toolRef) matches(c callView) (bool, error) {
	if !contains(c.names, r.tool) {
		return false, nil
	}
	if r.input == nil {
		return true, nil
	}
	return r.input.matches(c.input)
}

// first returns the index of the first call r matches, or -1.
func (r toolRef) first(calls []callView) (int, error) {
	for i, c := range calls {
		ok, err := r.matches(c)
		if err != nil {
			return -1, err
		}
		if ok {
			return i, nil
		}
	}
	return -1, nil
}

// gradeLocal decides a regex, tool_used or tool_order grader on run r.
func gradeLocal(g *Grader, r Run) verdict {
	s := g.spec
	switch g.Kind {
	case "regex":
		text := r.Reply
		if s.target.kind == "trace" {
			text = r.Transcript
		}
		n, err := s.pattern.count(text, 0)
		if err != nil {
			return verdict{Err: err.Error(), Reason: "the pattern could not be matched"}
		}
		switch s.match {
		case "not_contains":
			return verdict{Passed: n == 0, Reason: fmt.Sprintf("%d match(es) of /%s/ in the %s, none wanted", n, s.pattern.source, targetName(s.target))}
		case "count":
			return verdict{Passed: n == s.count, Reason: fmt.Sprintf("%d match(es) of /%s/ in the %s, %d wanted", n, s.pattern.source, targetName(s.target), s.count)}
		}
		return verdict{Passed: n > 0, Reason: fmt.Sprintf("%d match(es) of /%s/ in the %s", n, s.pattern.source, targetName(s.target))}
	case "tool_used":
		n := 0
		for _, c := range viewCalls(r.ToolCalls) {
			ok, err := s.tool.matches(c)
			if err != nil {
				return verdict{Err: err.Error(), Reason: "input_match could not be matched"}
			}
			if ok {
				n++
			}
		}
		want := fmt.Sprintf("at least %d", s.min)
		if s.max >= 0 {
			want = fmt.Sprintf("%d to %d", s.min, s.max)
		}
		return verdict{Passed: n >= s.min && (s.max < 0 || n <= s.max), Reason: fmt.Sprintf("%d matching %s call(s), %s wanted", n, s.tool.tool, want)}
	case "tool_order":
		calls := viewCalls(r.ToolCalls)
		b, err := s.before.first(calls)
		if err != nil {
			return verdict{Err: err.Error()}
		}
		a, err := s.after.first(calls)
		if err != nil {
			return verdict{Err: err.Error()}
		}
		switch {
		case b < 0:
			return verdict{Reason: s.before.tool + " was not called"}
		case a < 0:
			return verdict{Reason: s.after.tool + " was not called"}
		case b < a:
			return verdict{Passed: true, Reason: fmt.Sprintf("%s (call %d) came before %s (call %d)", s.before.tool, b+1, s.after.tool, a+1)}
		}
		return verdict{Reason: fmt.Sprintf("%s (call %d) did not come before %s (call %d)", s.before.tool, b+1, s.after.tool, a+1)}
	}
	return verdict{Err: "grader type " + g.Kind + " is not decided locally"}
}

func targetName(t target) string {
	if t.kind == "trace" {
		return "trace"
	}
	return "last message"
}
