package config

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clawseed/clawseed/internal/claudesettings"
)

// Hooks in config.toml (§12): one [[hooks.EVENT]] table per handler, with
// Claude Code's fields in config.toml's spelling:
//
//	[[hooks.PreToolUse]]
//	matcher = "Bash"                # tool name, a|b list, regex; "" or "*" = all
//	type = "command"                # or "http" (url, headers, allowed_env_vars)
//	command = "~/.clawseed/hooks/guard.sh"
//	timeout = 30                    # seconds (default 60)
//
// A table may instead hold Claude Code's `hooks = [{type, command, …}]`
// list under its matcher, so a settings.json group copies over as it is.
// Hooks are not layered key by key like the rest of the schema: every
// file's hooks are added, in layer order (user file, project file,
// --config). An untrusted workspace's project file adds none: its tables
// are reported as ignored. Values are taken as written — no ${VAR}
// expansion: the shell expands a command's variables when it runs
// ($CLAUDE_PROJECT_DIR), and an http hook's headers expand only the
// variables its allowed_env_vars name.

// A HookEntry is one hook of a config file.
type HookEntry struct {
	// Event is the EVENT of [[hooks.EVENT]]; Matcher its matcher.
	Event, Matcher string
	claudesettings.Handler
	// File and Line locate the table.
	File string
	Line int
	// Own is set for the user's file, --config and files the user named;
	// false for the workspace's project file (which adds hooks only in a
	// trusted workspace).
	Own bool
}

// hookKeys are the keys of a [[hooks.EVENT]] table or of one handler of
// its `hooks` list; Claude Code's camelCase spellings are accepted too.
var hookKeys = []string{"type", "command", "url", "headers", "allowed_env_vars", "allowedEnvVars",
	"timeout", "once", "async", "status_message", "statusMessage"}

// takeHooks removes the hooks subtree from tree (the schema's strict
// checks do not know it) and reads it. In an untrusted project file the
// hooks are reported as ignored, not applied; a malformed table is an
// error either way.
func (d *decoder) takeHooks(tree map[string]any, kind fileKind) ([]Ignored, error) {
	raw, ok := tree["hooks"]
	if !ok {
		return nil, nil
	}
	delete(tree, "hooks")
	entries, err := d.parseHooks(raw)
	if err != nil {
		return nil, err
	}
	if kind == projectFile && !d.c.Trusted {
		out := make([]Ignored, len(entries))
		for i, e := range entries {
			out[i] = Ignored{File: d.file, Line: e.Line, Key: "hooks." + e.Event, Value: shorten(hookSummary(e.Handler)), Why: "untrusted workspace: " + whyHooks}
		}
		return out, nil
	}
	for i := range entries {
		entries[i].Own = kind != projectFile
	}
	d.c.Hooks = append(d.c.Hooks, entries...)
	return nil, nil
}

// hookSummary is what Ignored and `config show --hooks` show of a handler.
func hookSummary(h claudesettings.Handler) string {
	if h.Type == "http" {
		return "POST " + h.URL
	}
	return h.Command
}

// parseHooks reads the hooks table: event → array of tables.
func (d *decoder) parseHooks(raw any) ([]HookEntry, error) {
	table, ok := raw.(map[string]any)
	if !ok {
		return nil, d.hookErr("hooks", "hooks: expected [[hooks.EVENT]] tables, got "+tomlTypeName(raw))
	}
	var out []HookEntry
	for _, event := range sortedKeys(table) {
		at := "hooks." + event
		if !claudesettings.IsEvent(event) {
			return nil, d.hookErr(at, fmt.Sprintf("%s: unknown hook event %q (events: %s)", at, event, strings.Join(claudesettings.Events(), ", ")))
		}
		var list []map[string]any
		switch v := table[event].(type) {
		case []map[string]any:
			list = v
		case []any:
			for _, e := range v {
				m, ok := e.(map[string]any)
				if !ok {
					return nil, d.hookErr(at, at+": expected [[hooks."+event+"]] tables, got an array containing "+tomlTypeName(e))
				}
				list = append(list, m)
			}
		default:
			return nil, d.hookErr(at, at+": expected [[hooks."+event+"]] tables, got "+tomlTypeName(v))
		}
		for i, m := range list {
			entries, err := d.hookTable(event, fmt.Sprintf("%s[%d]", at, i), m)
			if err != nil {
				return nil, err
			}
			out = append(out, entries...)
		}
	}
	return out, nil
}

// hookTable reads one [[hooks.EVENT]] table: a matcher and either one
// handler's fields or Claude Code's `hooks` list of handlers.
func (d *decoder) hookTable(event, at string, m map[string]any) ([]HookEntry, error) {
	matcher := ""
	if v, ok := m["matcher"]; ok {
		s, ok := v.(string)
		if !ok {
			return nil, d.hookErr(at+".matcher", fmt.Sprintf("%s.matcher: expected string, got %s", at, tomlTypeName(v)))
		}
		matcher = s
	}
	line := d.hookLine(at)
	list, nested := m["hooks"]
	if !nested {
		rest := make(map[string]any, len(m))
		for k, v := range m {
			if k != "matcher" {
				rest[k] = v
			}
		}
		h, err := d.hookHandler(at, at, rest)
		if err != nil {
			return nil, err
		}
		return []HookEntry{{Event: event, Matcher: matcher, Handler: h, File: d.file, Line: line}}, nil
	}
	for k := range m {
		if k != "matcher" && k != "hooks" {
			return nil, d.hookErr(at+"."+k, fmt.Sprintf("%s.%s: a table with `hooks` holds only matcher and hooks; put %q in each handler", at, k, k))
		}
	}
	var handlers []map[string]any
	switch v := list.(type) {
	case []map[string]any:
		handlers = v
	case []any:
		for _, e := range v {
			h, ok := e.(map[string]any)
			if !ok {
				return nil, d.hookErr(at+".hooks", fmt.Sprintf("%s.hooks: expected an array of tables, got an array containing %s", at, tomlTypeName(e)))
			}
			handlers = append(handlers, h)
		}
	default:
		return nil, d.hookErr(at+".hooks", fmt.Sprintf("%s.hooks: expected an array of tables, got %s", at, tomlTypeName(v)))
	}
	var out []HookEntry
	for i, hm := range handlers {
		h, err := d.hookHandler(fmt.Sprintf("%s.hooks[%d]", at, i), at+".hooks", hm)
		if err != nil {
			return nil, err
		}
		out = append(out, HookEntry{Event: event, Matcher: matcher, Handler: h, File: d.file, Line: line})
	}
	return out, nil
}

// hookHandler reads one handler's fields; at names it in messages, lineAt
// is where its line is looked up.
func (d *decoder) hookHandler(at, lineAt string, m map[string]any) (claudesettings.Handler, error) {
	h := claudesettings.Handler{Type: "command", Where: at}
	fail := func(key, msg string) (claudesettings.Handler, error) {
		return claudesettings.Handler{}, d.hookErr(lineAt+"."+key, at+"."+key+": "+msg)
	}
	str := func(key string, dst *string) error {
		v, ok := m[key]
		if !ok {
			return nil
		}
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("expected string, got %s", tomlTypeName(v))
		}
		*dst = s
		return nil
	}
	for _, k := range sortedKeys(m) {
		if !slices.Contains(hookKeys, k) {
			return fail(k, fmt.Sprintf("unknown key %q (a hook has %s)", k, strings.Join(hookKeys[:len(hookKeys)-1], ", ")))
		}
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"type", &h.Type}, {"command", &h.Command}, {"url", &h.URL}, {"status_message", &h.StatusMessage}, {"statusMessage", &h.StatusMessage}} {
		if err := str(f.key, f.dst); err != nil {
			return fail(f.key, err.Error())
		}
	}
	for _, f := range []struct {
		key string
		dst *bool
	}{{"once", &h.Once}, {"async", &h.Async}} {
		if v, ok := m[f.key]; ok {
			b, ok := v.(bool)
			if !ok {
				return fail(f.key, "expected boolean, got "+tomlTypeName(v))
			}
			*f.dst = b
		}
	}
	if v, ok := m["timeout"]; ok {
		var secs float64
		switch n := v.(type) {
		case int64:
			secs = float64(n)
		case float64:
			secs = n
		default:
			return fail("timeout", "expected seconds (a number), got "+tomlTypeName(v))
		}
		if math.IsNaN(secs) || secs <= 0 || secs > 24*3600 {
			return fail("timeout", "expected seconds between 0 and 86400, got "+strconv.FormatFloat(secs, 'g', -1, 64))
		}
		h.Timeout = time.Duration(secs * float64(time.Second))
	}
	for _, key := range []string{"allowed_env_vars", "allowedEnvVars"} {
		if v, ok := m[key]; ok {
			list, ok := stringList(v)
			if !ok {
				return fail(key, "expected array of strings, got "+tomlTypeName(v))
			}
			h.AllowedEnvVars = list
		}
	}
	if v, ok := m["headers"]; ok {
		hm, ok := v.(map[string]any)
		if !ok {
			return fail("headers", "expected a table of strings, got "+tomlTypeName(v))
		}
		for _, name := range sortedKeys(hm) {
			s, ok := hm[name].(string)
			if !ok {
				return fail("headers."+name, "expected string, got "+tomlTypeName(hm[name]))
			}
			h.Headers = append(h.Headers, claudesettings.Header{Name: name, Value: s})
		}
	}
	switch h.Type {
	case "command":
		if strings.TrimSpace(h.Command) == "" {
			return fail("command", "a command hook needs a command")
		}
		if h.URL != "" || len(h.Headers) > 0 {
			return fail("url", "url and headers are for type = \"http\"")
		}
	case "http":
		if msg := urlProblem(h.URL); h.URL == "" || msg != "" {
			return fail("url", "an http hook needs a url: "+cmpOr(msg, "missing"))
		}
		if h.Command != "" || h.Async {
			return fail("command", "command and async are for type = \"command\"")
		}
	default:
		return fail("type", fmt.Sprintf("unknown hook type %q (command or http)", h.Type))
	}
	return h, nil
}

// stringList returns v as a list of strings.
func stringList(v any) ([]string, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(l))
	for i, e := range l {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// hookLine is the line of a hook key such as "hooks.Stop[1].command": the
// scanner names array-of-tables elements with their index.
func (d *decoder) hookLine(at string) int {
	for at != "" {
		if l, ok := d.lines[at]; ok {
			return l
		}
		i := strings.LastIndexAny(at, ".[")
		if i < 0 {
			break
		}
		at = at[:i]
	}
	return 0
}

func (d *decoder) hookErr(at, msg string) *Error {
	return &Error{File: d.file, Line: d.hookLine(at), Key: at, Msg: msg}
}

// HookSource is where a config hook is: "FILE:LINE".
func (e HookEntry) HookSource() string {
	if e.Line > 0 {
		return e.File + ":" + strconv.Itoa(e.Line)
	}
	return e.File
}
