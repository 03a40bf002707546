package skills

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
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

// parseRequires reads a `requires` mapping (bins, anyBins, env, os). OpenClaw's
// `config` requirement needs OpenClaw's config file and is ignored.
func parseRequires(key string, v any) (Requires, error) {
	m, ok := v.(kvList)
	if !ok {
		return Requires{}, typeError("mapping", key, v)
	}
	var r Requires
	for _, e := range m {
		if e.val == nil {
			continue
		}
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
			continue
		default:
			return Requires{}, keyErrorf(key+"."+e.key, "unknown key %q in %q", e.key, key)
		}
		l, ok := asList(e.val, splitCommaOrSpace)
		if !ok {
			return Requires{}, typeError("list of strings", key+"."+e.key, e.val)
		}
		*dst = l
	}
	return r, nil
}

// parseMetadata stores metadata as plain Go values and reads the OpenClaw
// gating keys from metadata.openclaw (or its legacy name metadata.clawdbot).
// A metadata string that looks like a JSON object is parsed, as OpenClaw
// does for single-line frontmatter.
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
	var oc openclawMeta
	for _, name := range []string{"clawdbot", "openclaw"} {
		raw, ok := m.get(name)
		if !ok || raw == nil {
			continue
		}
		sub := key + "." + name
		om, ok := raw.(kvList)
		if !ok {
			return typeError("mapping", sub, raw)
		}
		if err := parseOpenclaw(&oc, sub, om); err != nil {
			return err
		}
	}
	f.openclaw = oc
	f.s.Metadata = plainMap(m)
	return nil
}

func parseOpenclaw(oc *openclawMeta, key string, m kvList) error {
	if v, ok := m.get("always"); ok && v != nil {
		b, ok := asBool(v)
		if !ok {
			return typeError("boolean", key+".always", v)
		}
		oc.always = b
	}
	if v, ok := m.get("os"); ok && v != nil {
		l, ok := asList(v, splitCommaOrSpace)
		if !ok {
			return typeError("list of strings", key+".os", v)
		}
		oc.os = l
	}
	if v, ok := m.get("requires"); ok && v != nil {
		r, err := parseRequires(key+".requires", v)
		if err != nil {
			return err
		}
		oc.requires = r
	}
	return nil
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
