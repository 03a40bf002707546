package hooks

import (
	"fmt"
	"regexp"
	"strings"
)

// A matcher is a matcher group's `matcher`, compiled as Claude Code reads
// it:
//
//   - empty or "*": every value;
//   - only letters, digits, `_` and `|`: one exact name, or a `|`-separated
//     list of exact names (`Edit|Write`; `mcp__github__create_issue`);
//   - anything else: a regular expression, matched anywhere in the value
//     (`mcp__memory__.*`, `^Notebook`), in Go's RE2 syntax: JavaScript's
//     look-arounds and back-references are not accepted.
//
// For the tool events a name matches the tool by clawseed's name or Claude
// Code's (`Bash` and `shell` both match the shell tool), and a regular
// expression is tried against both.
type matcher struct {
	all   bool
	terms []string
	re    *regexp.Regexp
	// err is set for a regular expression that does not compile: the
	// group then matches nothing.
	err error
}

func compileMatcher(s string) matcher {
	s = strings.TrimSpace(s)
	if s == "" || s == "*" {
		return matcher{all: true}
	}
	if isNameList(s) {
		return matcher{terms: strings.Split(s, "|")}
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return matcher{err: fmt.Errorf("matcher %q is not a valid regular expression: %w", s, err)}
	}
	return matcher{re: re}
}

// isNameList reports whether s holds only letters, digits, `_` and `|`.
func isNameList(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '|':
		default:
			return false
		}
	}
	return true
}

// match reports whether the matcher selects value; tool says value is a
// tool name (Claude Code's names are aliases).
func (m matcher) match(value string, tool bool) bool {
	switch {
	case m.all:
		return true
	case m.err != nil:
		return false
	case m.re != nil:
		if !tool {
			return m.re.MatchString(value)
		}
		for _, n := range toolNames(value) {
			if m.re.MatchString(n) {
				return true
			}
		}
		return false
	}
	for _, t := range m.terms {
		if tool && termMatchesTool(t, value) || !tool && t == value {
			return true
		}
	}
	return false
}

// Match reports whether a hook's matcher selects value for event: the
// tool name for the tool events, the source, reason, trigger, agent type,
// notification type or skill name for the others (see [Event.Query]).
// UserPromptSubmit and Stop have nothing to match: every group runs, as in
// Claude Code.
func Match(event, matcherText, value string) bool {
	kind := queryOf(event)
	if kind == queryNone {
		return true
	}
	return compileMatcher(matcherText).match(value, kind == queryTool)
}

type queryKind int

const (
	queryNone queryKind = iota
	queryTool
	queryValue
)

// queryOf says what an event's matchers are matched against.
func queryOf(event string) queryKind {
	switch event {
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest:
		return queryTool
	case UserPromptSubmit, Stop:
		return queryNone
	}
	return queryValue
}
