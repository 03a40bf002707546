package skills

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/clawseed/clawseed/internal/claudesettings"
)

// parseShell reads `shell: cmd` or `shell: {command, args, timeout}`.
func parseShell(key string, v any) (*ShellSpec, error) {
	if s, ok := asString(v); ok {
		if s = strings.TrimSpace(s); s == "" {
			return nil, keyErrorf(key, "empty command for %q", key)
		}
		return &ShellSpec{Command: s}, nil
	}
	m, ok := v.(kvList)
	if !ok {
		return nil, typeError("string or mapping", key, v)
	}
	sh := &ShellSpec{}
	for _, e := range m {
		if e.val == nil {
			continue
		}
		sub := key + "." + e.key
		switch e.key {
		case "command", "cmd":
			s, ok := asString(e.val)
			if !ok {
				return nil, typeError("string", sub, e.val)
			}
			sh.Command = strings.TrimSpace(s)
		case "args":
			l, ok := asList(e.val, splitSpace)
			if !ok {
				return nil, typeError("list of strings", sub, e.val)
			}
			sh.Args = l
		case "timeout", "timeout-secs", "timeout_secs":
			n, ok := asSeconds(e.val)
			if !ok {
				return nil, typeError("number of seconds", sub, e.val)
			}
			sh.TimeoutSecs = n
		default:
			return nil, keyErrorf(sub, "unknown key %q in %q", e.key, key)
		}
	}
	if sh.Command == "" {
		return nil, keyErrorf(key, "missing %q in %q", "command", key)
	}
	return sh, nil
}

// asSeconds accepts a non-negative whole number of seconds or a Go duration
// string such as "90s" or "2m".
func asSeconds(v any) (int, bool) {
	var s string
	switch v := v.(type) {
	case int64:
		if v < 0 || v > math.MaxInt32 {
			return 0, false
		}
		return int(v), true
	case string:
		s = v
	case yamlScalar:
		s = v.text
	default:
		return 0, false
	}
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		return n, n >= 0
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > math.MaxInt32*time.Second {
		return 0, false
	}
	return int(d / time.Second), true
}

// parseRequires reads a `requires` mapping (bins, anyBins, env, os,
// config). A key it does not know, or whose value is not a list of strings,
// is recorded with f.ignore and skipped: the others still gate. OpenClaw's
// `config` paths are answered by the gate against clawseed's configuration
// ([Options.Config]).
func parseRequires(f *fieldSet, key string, v any) (Requires, error) {
	m, ok := v.(kvList)
	if !ok {
		return Requires{}, typeError("mapping", key, v)
	}
	var r Requires
	for _, e := range m {
		if e.val == nil {
			continue
		}
		sub := key + "." + e.key
		var dst *[]string
		switch strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(e.key)) {
		case "bins":
			dst = &r.Bins
		case "anybins":
			dst = &r.AnyBins
		case "env":
			dst = &r.Env
		case "os":
			dst = &r.OS
		case "config":
			dst = &r.Config
		default:
			f.ignore(sub, e.line, fmt.Sprintf("unknown key %q in %q", e.key, key))
			continue
		}
		l, ok := asList(e.val, splitCommaOrSpace)
		if !ok {
			f.ignore(sub, e.line, typeError("list of strings", sub, e.val).Error())
			continue
		}
		*dst = l
	}
	return r, nil
}

// openclawKeys are the metadata keys OpenClaw reads its settings from: its
// own name first, then the names it had before (Clawdis, Clawdbot,
// Moltbot), which published skills still use. The first one present wins,
// as in OpenClaw.
var openclawKeys = []string{"openclaw", "clawdbot", "moltbot", "clawdis"}

// parseMetadata stores metadata as plain Go values and reads the OpenClaw
// gating keys from metadata.openclaw (or a legacy name, see [openclawKeys]).
// A metadata string that looks like a JSON object is parsed, as OpenClaw
// does for single-line frontmatter, and so is such a string under the
// OpenClaw key. A malformed part of the OpenClaw settings is recorded with
// f.ignore and skipped; the metadata and the other settings are kept.
func parseMetadata(f *fieldSet, key string, v any) error {
	if s, ok := asString(v); ok && strings.HasPrefix(strings.TrimSpace(s), "{") {
		parsed, err := parseInlineMapping(s)
		if err != nil {
			return keyErrorf(key, "invalid mapping for %q: %v", key, err)
		}
		v = parsed
	}
	m, ok := v.(kvList)
	if !ok {
		return typeError("mapping", key, v)
	}
	f.openclaw, f.s.IgnoreRequires = openclawMeta{}, false
	for _, name := range openclawKeys {
		if raw, ok := m.get(name); ok && raw != nil {
			parseOpenclaw(f, key+"."+name, lineOf(m, name), raw)
			break
		}
	}
	f.s.Metadata = plainMap(m)
	return nil
}

// parseHooks reads Claude Code's `hooks` (event → matcher groups →
// handlers): the hooks the skill runs while it is active. Handlers that
// are not usable (an unknown event or type, no command) are reported and
// left out; the others count.
func parseHooks(f *fieldSet, key string, v any) error {
	if s, ok := asString(v); ok && strings.HasPrefix(strings.TrimSpace(s), "{") {
		parsed, err := parseInlineMapping(s)
		if err != nil {
			return keyErrorf(key, "invalid mapping for %q: %v", key, err)
		}
		v = parsed
	}
	m, ok := v.(kvList)
	if !ok {
		return typeError("mapping", key, v)
	}
	hooks, diags := claudesettings.ParseHooks("", key, plainMap(m))
	for _, d := range diags {
		f.ignore(d.Where, 0, d.Where+": "+d.Message)
	}
	f.s.Hooks = hooks
	return nil
}

// lineOf returns the line of key in m (0 when unknown).
func lineOf(m kvList, key string) int {
	for i := len(m) - 1; i >= 0; i-- {
		if m[i].key == key {
			return m[i].line
		}
	}
	return 0
}

// parseOpenclaw reads OpenClaw's settings: `os`, `requires` and `always`,
// which in OpenClaw means "skip the bins, anyBins and env requirements" (not
// the OS) and never activates the skill.
func parseOpenclaw(f *fieldSet, key string, line int, raw any) {
	if s, ok := asString(raw); ok && strings.HasPrefix(strings.TrimSpace(s), "{") {
		parsed, err := parseInlineMapping(s)
		if err != nil {
			f.ignore(key, line, fmt.Sprintf("invalid mapping for %q: %v", key, err))
			return
		}
		raw = parsed
	}
	m, ok := raw.(kvList)
	if !ok {
		f.ignore(key, line, typeError("mapping", key, raw).Error())
		return
	}
	if v, ok := m.get("always"); ok && v != nil {
		if b, ok := asBool(v); ok {
			f.s.IgnoreRequires = b
		} else {
			f.ignore(key+".always", lineOf(m, "always"), typeError("boolean", key+".always", v).Error())
		}
	}
	if v, ok := m.get("os"); ok && v != nil {
		if l, ok := asList(v, splitCommaOrSpace); ok {
			f.openclaw.os = l
		} else {
			f.ignore(key+".os", lineOf(m, "os"), typeError("list of strings", key+".os", v).Error())
		}
	}
	if v, ok := m.get("requires"); ok && v != nil {
		r, err := parseRequires(f, key+".requires", v)
		if err != nil {
			f.ignore(key+".requires", lineOf(m, "requires"), err.Error())
		}
		f.openclaw.requires = r
	}
}

// parseInlineMapping parses a one-line YAML/JSON object given as a string.
func parseInlineMapping(s string) (kvList, error) {
	var n yaml.Node
	if err := safeYAMLUnmarshal([]byte(s), &n); err != nil {
		return nil, err
	}
	v, err := yamlToGeneric(&n, 0)
	if err != nil {
		return nil, err
	}
	m, ok := v.(kvList)
	if !ok {
		return nil, fmt.Errorf("not a mapping")
	}
	for i := range m {
		m[i].line = 0 // lines of the string, not of the file
	}
	return m, nil
}

// plainMap turns a generic mapping into map[string]any with YAML scalars
// resolved to string, bool, int, float64 or nil, for Skill.Metadata.
func plainMap(m kvList) map[string]any {
	out := make(map[string]any, len(m))
	for _, e := range m {
		out[e.key] = plainValue(e.val)
	}
	return out
}

func plainValue(v any) any {
	switch v := v.(type) {
	case kvList:
		return plainMap(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = plainValue(x)
		}
		return out
	case yamlScalar:
		return resolveScalar(v)
	case int64:
		return int(v)
	}
	return v
}

// resolveScalar converts a YAML scalar by its resolved tag; anything it
// cannot convert stays the string as written.
func resolveScalar(v yamlScalar) any {
	switch v.tag {
	case "!!null":
		return nil
	case "!!bool":
		if b, ok := parseBoolWord(v.text); ok {
			return b
		}
	case "!!int":
		if n, err := strconv.ParseInt(strings.ReplaceAll(v.text, "_", ""), 0, 64); err == nil {
			return int(n)
		}
	case "!!float":
		if f, err := strconv.ParseFloat(v.text, 64); err == nil {
			return f
		}
	}
	return v.text
}
