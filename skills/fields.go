package skills

import (
	"fmt"
	"sort"
	"strings"
)

// Both file formats are reduced to the same generic values before any field
// is read, so SKILL.md frontmatter and manifest.toml share one set of rules:
//
//   - string, bool, int64, float64 and other TOML scalars as decoded;
//   - yamlScalar for every YAML scalar, keeping the text as written (so
//     `version: 1.10` stays "1.10" and `name: 123` is a usable name);
//   - []any for sequences and arrays;
//   - kvList for mappings and tables, in document order.

// A yamlScalar is a YAML scalar as written plus its resolved tag.
type yamlScalar struct {
	text string
	tag  string
}

// A kv is one key of a mapping; line is 1-based in the file, 0 if unknown.
type kv struct {
	key  string
	val  any
	line int
}

// A kvList is a mapping in document order.
type kvList []kv

// get returns the last value of key (YAML and TOML both let a later key win).
func (l kvList) get(key string) (any, bool) {
	for i := len(l) - 1; i >= 0; i-- {
		if l[i].key == key {
			return l[i].val, true
		}
	}
	return nil, false
}

// A splitMode says how a list field given as a single string is split.
type splitMode int

const (
	// splitCommaOrSpace splits on commas when there is one, else on whitespace
	// (the Agent Skills form `allowed-tools: Read Bash(git:*)`).
	splitCommaOrSpace splitMode = iota
	// splitPhrase splits on commas when there is one, else keeps the whole
	// string as one item (a triggers string is one trigger).
	splitPhrase
	// splitSpace splits on whitespace only (shell args).
	splitSpace
)

// A fieldSet holds the fields one file sets, before the two files are merged.
type fieldSet struct {
	s         Skill
	set       uint64 // bits of the canonical keys present and well-typed
	rawName   string
	osList    []string
	platforms []string
	requires  Requires
	openclaw  openclawMeta
	// ignored collects the parts of a value a parse function skipped but
	// whose key it still kept (e.g. an unknown key inside `requires`);
	// applyFields reports them.
	ignored []fieldProblem
}

// openclawMeta is what gating reads from metadata.openclaw (OpenClaw).
//
// OpenClaw's `always` is not here: it becomes Skill.IgnoreRequires (skip
// the bins/env gates), never Skill.Always (activate at start).
type openclawMeta struct {
	os       []string
	requires Requires
}

// ignore records a skipped part of a value (key is dotted from the field).
func (f *fieldSet) ignore(key string, line int, msg string) {
	f.ignored = append(f.ignored, fieldProblem{key: key, line: line, msg: msg, inner: true})
}

func newFieldSet() *fieldSet { return &fieldSet{} }

// has reports whether the canonical key was set.
func (f *fieldSet) has(key string) bool { return f.set&skillFields[key].bit != 0 }

// A fieldSpec reads one canonical key into a fieldSet and copies it between
// fieldSets when merging.
type fieldSpec struct {
	bit   uint64 // assigned by numberFields
	parse func(f *fieldSet, key string, v any) error
	copy  func(dst, src *fieldSet)
}

// numberFields gives every field its bit in fieldSet.set.
func numberFields(m map[string]fieldSpec) map[string]fieldSpec {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		spec := m[k]
		spec.bit = 1 << i
		m[k] = spec
	}
	return m
}

func strField(p func(*fieldSet) *string) fieldSpec {
	return fieldSpec{
		parse: func(f *fieldSet, key string, v any) error {
			s, ok := asString(v)
			if !ok {
				return typeError("string", key, v)
			}
			*p(f) = strings.TrimSpace(s)
			return nil
		},
		copy: func(dst, src *fieldSet) { *p(dst) = *p(src) },
	}
}

func listField(mode splitMode, p func(*fieldSet) *[]string) fieldSpec {
	return fieldSpec{
		parse: func(f *fieldSet, key string, v any) error {
			l, ok := asList(v, mode)
			if !ok {
				return typeError("list of strings", key, v)
			}
			*p(f) = l
			return nil
		},
		copy: func(dst, src *fieldSet) { *p(dst) = *p(src) },
	}
}

func boolField(p func(*fieldSet) *bool) fieldSpec {
	return fieldSpec{
		parse: func(f *fieldSet, key string, v any) error {
			b, ok := asBool(v)
			if !ok {
				return typeError("boolean", key, v)
			}
			*p(f) = b
			return nil
		},
		copy: func(dst, src *fieldSet) { *p(dst) = *p(src) },
	}
}

// skillFields maps every canonical (hyphenated) key to its spec. It is never
// modified after initialisation.
var skillFields = numberFields(map[string]fieldSpec{
	"name":          strField(func(f *fieldSet) *string { return &f.rawName }),
	"description":   strField(func(f *fieldSet) *string { return &f.s.Description }),
	"when-to-use":   strField(func(f *fieldSet) *string { return &f.s.WhenToUse }),
	"version":       strField(func(f *fieldSet) *string { return &f.s.Version }),
	"author":        strField(func(f *fieldSet) *string { return &f.s.Author }),
	"license":       strField(func(f *fieldSet) *string { return &f.s.License }),
	"category":      strField(func(f *fieldSet) *string { return &f.s.Category }),
	"compatibility": strField(func(f *fieldSet) *string { return &f.s.Compatibility }),
	"argument-hint": strField(func(f *fieldSet) *string { return &f.s.ArgumentHint }),
	"model":         strField(func(f *fieldSet) *string { return &f.s.Model }),
	"effort":        strField(func(f *fieldSet) *string { return &f.s.Effort }),
	"agent":         strField(func(f *fieldSet) *string { return &f.s.Agent }),

	"tags":          listField(splitCommaOrSpace, func(f *fieldSet) *[]string { return &f.s.Tags }),
	"permissions":   listField(splitCommaOrSpace, func(f *fieldSet) *[]string { return &f.s.Permissions }),
	"triggers":      listField(splitPhrase, func(f *fieldSet) *[]string { return &f.s.Triggers }),
	"allowed-tools": listField(splitCommaOrSpace, func(f *fieldSet) *[]string { return &f.s.AllowedTools }),
	"arguments":     listField(splitCommaOrSpace, func(f *fieldSet) *[]string { return &f.s.Arguments }),
	"paths":         listField(splitCommaOrSpace, func(f *fieldSet) *[]string { return &f.s.Paths }),
	"os":            listField(splitCommaOrSpace, func(f *fieldSet) *[]string { return &f.osList }),
	"platforms":     listField(splitCommaOrSpace, func(f *fieldSet) *[]string { return &f.platforms }),

	"disable-model-invocation": boolField(func(f *fieldSet) *bool { return &f.s.DisableModelInvocation }),
	"user-invocable":           boolField(func(f *fieldSet) *bool { return &f.s.UserInvocable }),
	"always":                   boolField(func(f *fieldSet) *bool { return &f.s.Always }),

	"mode": {
		parse: func(f *fieldSet, key string, v any) error {
			s, ok := asString(v)
			if !ok {
				return typeError("string", key, v)
			}
			switch m := strings.ToLower(strings.TrimSpace(s)); m {
			case ModePlan:
				f.s.Mode = m
			case "", "default":
				f.s.Mode = ""
			default:
				return keyErrorf(key, "unsupported value %q for %q (want \"plan\")", s, key)
			}
			return nil
		},
		copy: func(dst, src *fieldSet) { dst.s.Mode = src.s.Mode },
	},
	"context": {
		parse: func(f *fieldSet, key string, v any) error {
			s, ok := asString(v)
			if !ok {
				return typeError("string", key, v)
			}
			switch c := strings.ToLower(strings.TrimSpace(s)); c {
			case "fork":
				f.s.Context = c
			case "", "inline":
				f.s.Context = ""
			default:
				return keyErrorf(key, "unsupported value %q for %q (want \"fork\" or \"inline\")", s, key)
			}
			return nil
		},
		copy: func(dst, src *fieldSet) { dst.s.Context = src.s.Context },
	},
	"shell": {
		parse: func(f *fieldSet, key string, v any) error {
			sh, err := parseShell(key, v)
			if err != nil {
				return err
			}
			f.s.Shell = sh
			return nil
		},
		copy: func(dst, src *fieldSet) { dst.s.Shell = src.s.Shell },
	},
	"requires": {
		parse: func(f *fieldSet, key string, v any) error {
			r, err := parseRequires(f, key, v)
			if err != nil {
				return err
			}
			f.requires = r
			return nil
		},
		copy: func(dst, src *fieldSet) { dst.requires = src.requires },
	},
	"hooks": {
		parse: parseHooks,
		copy:  func(dst, src *fieldSet) { dst.s.Hooks = src.s.Hooks },
	},
	"metadata": {
		parse: parseMetadata,
		copy: func(dst, src *fieldSet) {
			dst.s.Metadata = src.s.Metadata
			dst.s.IgnoreRequires = src.s.IgnoreRequires
			dst.openclaw = src.openclaw
		},
	},
})

// peerFields are frontmatter keys other runtimes define that clawseed does not
// use (yet). They are ignored without a warning so that Claude Code, OpenClaw
// and Hermes skills load cleanly. Hermes' required_environment_variables
// are prompted for, not a gate.
var peerFields = map[string]bool{
	"disallowed-tools": true, "background": true,
	"homepage": true, "emoji": true, "command-dispatch": true, "command-tool": true,
	"command-arg-mode": true, "required-environment-variables": true,
}

// canonicalKey maps the underscore spellings and aliases to the hyphenated key.
func canonicalKey(k string) string {
	k = strings.ReplaceAll(k, "_", "-")
	if k == "execution-context" {
		return "context"
	}
	return k
}

// A fieldProblem is a key whose value could not be used.
type fieldProblem struct {
	key  string // as written; dotted for a nested key
	line int
	msg  string
	// inner: a part of a field's value, ignored while the rest is kept.
	inner bool
}

// applyFields reads every known key of m into f. Unknown keys and bad values
// are returned as problems; the caller decides their severity. unknown also
// holds the parts of a kept value that were ignored (an unknown or ill-typed
// key inside `requires`): like unknown keys, they are only warnings. Their
// key is dotted from the field (e.g. "requires.optional"). When peers is
// true the keys of [peerFields] are ignored silently.
func applyFields(f *fieldSet, m kvList, peers bool) (unknown, bad []fieldProblem) {
	for _, e := range m {
		if e.val == nil { // `key:` with no value, or `key: null`
			continue
		}
		ck := canonicalKey(e.key)
		spec, ok := skillFields[ck]
		if !ok {
			if !(peers && peerFields[ck]) {
				unknown = append(unknown, fieldProblem{key: e.key, line: e.line, msg: fmt.Sprintf("unknown key %q", e.key)})
			}
			continue
		}
		err := spec.parse(f, e.key, e.val)
		for _, p := range f.ignored {
			if p.line == 0 {
				p.line = e.line
			}
			unknown = append(unknown, p)
		}
		f.ignored = nil
		if err != nil {
			f.set &^= spec.bit
			p := fieldProblem{key: e.key, line: e.line, msg: err.Error()}
			if ke, ok := err.(*keyError); ok {
				p.key = ke.key
			}
			bad = append(bad, p)
			continue
		}
		f.set |= spec.bit
	}
	return unknown, bad
}

// mergeFields returns base overlaid with every key over sets (manifest.toml
// wins field by field over SKILL.md).
func mergeFields(base, over *fieldSet) *fieldSet {
	out := *base
	for _, spec := range skillFields {
		if over.set&spec.bit != 0 {
			spec.copy(&out, over)
		}
	}
	out.set |= over.set
	return &out
}

// A keyError is a problem with the value of a (possibly dotted) key; the key
// lets manifest.toml messages point at the right line.
type keyError struct {
	key string
	msg string
}

func (e *keyError) Error() string { return e.msg }

func keyErrorf(key, format string, args ...any) error {
	return &keyError{key: key, msg: fmt.Sprintf(format, args...)}
}

func typeError(want, key string, v any) error {
	return keyErrorf(key, "expected %s for %q, got %s", want, key, describeValue(v))
}

// describeValue names a generic value's type for error messages.
func describeValue(v any) string {
	switch v := v.(type) {
	case string:
		return "string"
	case yamlScalar:
		switch v.tag {
		case "!!int", "!!float":
			return "number " + v.text
		case "!!bool":
			return "boolean " + v.text
		}
		return fmt.Sprintf("%q", v.text)
	case bool:
		return "boolean"
	case int64, float64:
		return "number"
	case []any:
		return "list"
	case kvList:
		return "mapping"
	}
	return fmt.Sprintf("%T", v)
}

// asString accepts strings and any YAML scalar (as written).
func asString(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case yamlScalar:
		return v.text, true
	}
	return "", false
}

// asBool accepts booleans and the spellings Claude Code accepts:
// true/false, yes/no, on/off, 1/0 in any case.
func asBool(v any) (bool, bool) {
	switch v := v.(type) {
	case bool:
		return v, true
	case int64:
		if v == 0 || v == 1 {
			return v == 1, true
		}
		return false, false
	case string:
		return parseBoolWord(v)
	case yamlScalar:
		return parseBoolWord(v.text)
	}
	return false, false
}

func parseBoolWord(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0":
		return false, true
	}
	return false, false
}

// asList accepts a sequence of scalars or a single string split per mode.
// Empty items are dropped.
func asList(v any, mode splitMode) ([]string, bool) {
	switch v := v.(type) {
	case string:
		return splitListString(v, mode), true
	case yamlScalar:
		return splitListString(v.text, mode), true
	case []any:
		out := make([]string, 0, len(v))
		for _, item := range v {
			var s string
			switch item := item.(type) {
			case string:
				s = item
			case yamlScalar:
				s = item.text
			case nil:
				continue
			default:
				return nil, false
			}
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, true
	}
	return nil, false
}

// splitListString applies the single-string list rule. Splitting on
// whitespace keeps parenthesised groups together, so `Bash(git add:*)` stays
// one allowed-tools entry.
func splitListString(s string, mode splitMode) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return []string{}
	}
	var parts []string
	switch {
	case mode != splitSpace && strings.Contains(s, ","):
		parts = splitOutsideParens(s, func(r rune) bool { return r == ',' })
	case mode == splitPhrase:
		parts = []string{s}
	default:
		parts = splitOutsideParens(s, isListSpace)
	}
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func isListSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

func splitOutsideParens(s string, sep func(rune) bool) []string {
	var parts []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && sep(r):
			parts = append(parts, s[start:i])
			start = i + len(string(r))
		}
	}
	return append(parts, s[start:])
}
