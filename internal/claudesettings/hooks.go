package claudesettings

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Events returns the hook event names clawseed fires, sorted: Claude Code's,
// and SkillActivated and SkillDeactivated, which Claude Code lacks. A file
// may name others (Claude Code adds events over time); they are diagnostics,
// not errors.
func Events() []string {
	return []string{
		"Notification",
		"PermissionRequest",
		"PostCompact",
		"PostToolUse",
		"PostToolUseFailure",
		"PreCompact",
		"PreToolUse",
		"SessionEnd",
		"SessionStart",
		"SkillActivated",
		"SkillDeactivated",
		"Stop",
		"SubagentStart",
		"SubagentStop",
		"UserPromptSubmit",
	}
}

// IsEvent reports whether clawseed fires the event name.
func IsEvent(name string) bool {
	_, ok := slices.BinarySearch(Events(), name)
	return ok
}

// Hooks are the hooks of one file, by event, sorted by event name.
type Hooks []EventHooks

// EventHooks are the matcher groups of one event, in file order.
type EventHooks struct {
	Event  string
	Groups []MatcherGroup
}

// A MatcherGroup is handlers run when the matcher matches: a tool name, a
// `|`-separated list or a regular expression for the tool events, a source
// or reason for others, empty or "*" for all. Its meaning is the hook
// runner's.
type MatcherGroup struct {
	Matcher string
	Hooks   []Handler
}

// A Handler is one hook: a command run with the event's JSON on stdin, or an
// HTTP endpoint the JSON is POSTed to.
type Handler struct {
	// Type is "command" or "http".
	Type string
	// Command is the shell command of a command hook.
	Command string
	// URL is the endpoint of an http hook, Headers its extra headers
	// (sorted by name), AllowedEnvVars the variables its header values may
	// expand.
	URL            string
	Headers        []Header
	AllowedEnvVars []string
	// Timeout is the hook's own timeout, or 0 for the runner's default.
	Timeout time.Duration
	// Once runs the hook once per session (skill hooks).
	Once bool
	// Async runs a command hook without waiting for it.
	Async bool
	// StatusMessage is shown while the hook runs.
	StatusMessage string
	// Where is the hook's place in its file, such as
	// `hooks.PreToolUse[0].hooks[1]`, for messages.
	Where string
}

// A Header is one header of an http hook.
type Header struct{ Name, Value string }

// Count is the number of handlers.
func (h Hooks) Count() int {
	n := 0
	for _, e := range h {
		for _, g := range e.Groups {
			n += len(g.Hooks)
		}
	}
	return n
}

// Event returns the groups of one event.
func (h Hooks) Event(name string) []MatcherGroup {
	for _, e := range h {
		if e.Event == name {
			return e.Groups
		}
	}
	return nil
}

// ParseHooks reads a `hooks` value decoded from JSON or YAML (a skill's
// frontmatter): an object of event → list of {matcher, hooks: [...]}. Parts
// that are not usable are returned as diagnostics naming path and place.
func ParseHooks(path, where string, v any) (Hooks, []Diagnostic) {
	d := &diags{path: path}
	return parseHooks(d, where, v), d.list
}

func parseHooks(d *diags, where string, v any) Hooks {
	m, ok := v.(map[string]any)
	if !ok {
		d.add(where, "not used: expected an object of event name → list of matcher groups")
		return nil
	}
	var out Hooks
	for _, event := range sortedKeys(m) {
		at := where + "." + event
		if !IsEvent(event) {
			d.add(at, "event not supported by clawseed; ignored (supported: %s)", strings.Join(Events(), ", "))
			continue
		}
		list, ok := m[event].([]any)
		if !ok {
			d.add(at, "not used: expected a list of {\"matcher\": ..., \"hooks\": [...]}")
			continue
		}
		var groups []MatcherGroup
		for i, g := range list {
			if mg, ok := parseGroup(d, fmt.Sprintf("%s[%d]", at, i), g); ok {
				groups = append(groups, mg)
			}
		}
		if len(groups) > 0 {
			out = append(out, EventHooks{Event: event, Groups: groups})
		}
	}
	return out
}

func parseGroup(d *diags, where string, v any) (MatcherGroup, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		d.add(where, "not used: expected {\"matcher\": ..., \"hooks\": [...]}")
		return MatcherGroup{}, false
	}
	var g MatcherGroup
	switch mv := m["matcher"].(type) {
	case nil:
	case string:
		g.Matcher = mv
	default:
		d.add(where+".matcher", "not used: expected a string")
		return MatcherGroup{}, false
	}
	list, ok := m["hooks"].([]any)
	if !ok {
		d.add(where+".hooks", "not used: expected a list of hooks")
		return MatcherGroup{}, false
	}
	for i, h := range list {
		if hd, ok := parseHandler(d, fmt.Sprintf("%s.hooks[%d]", where, i), h); ok {
			g.Hooks = append(g.Hooks, hd)
		}
	}
	return g, len(g.Hooks) > 0
}

func parseHandler(d *diags, where string, v any) (Handler, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		d.add(where, "not used: expected {\"type\": \"command\", \"command\": ...}")
		return Handler{}, false
	}
	h := Handler{Where: where}
	h.Type, _ = m["type"].(string)
	switch h.Type {
	case "command":
		h.Command, _ = m["command"].(string)
		if strings.TrimSpace(h.Command) == "" {
			d.add(where, "not used: a command hook needs a \"command\"")
			return Handler{}, false
		}
	case "http":
		h.URL, _ = m["url"].(string)
		if strings.TrimSpace(h.URL) == "" {
			d.add(where, "not used: an http hook needs a \"url\"")
			return Handler{}, false
		}
		if hm, ok := m["headers"].(map[string]any); ok {
			for _, k := range sortedKeys(hm) {
				if s, ok := hm[k].(string); ok {
					h.Headers = append(h.Headers, Header{Name: k, Value: s})
				}
			}
		}
		h.AllowedEnvVars = stringList(m["allowedEnvVars"])
	case "prompt", "agent":
		d.add(where, "not used: %q hooks are not supported by clawseed (command and http are)", h.Type)
		return Handler{}, false
	default:
		d.add(where, "not used: unknown hook type %q (command and http are supported)", h.Type)
		return Handler{}, false
	}
	if t, ok := number(m["timeout"]); ok {
		if t <= 0 || t > 24*3600 {
			d.add(where+".timeout", "ignored: expected seconds between 0 and 86400")
		} else {
			h.Timeout = time.Duration(t * float64(time.Second))
		}
	}
	h.Once, _ = m["once"].(bool)
	h.Async, _ = m["async"].(bool)
	h.StatusMessage, _ = m["statusMessage"].(string)
	return h, true
}

// number reads a JSON (float64) or YAML (int) number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, !math.IsNaN(n)
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	}
	return 0, false
}

func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
