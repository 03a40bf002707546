package config

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// numberKey is a numeric value of the schema: its dotted key (a model entry
// or MCP server is named "main") and the projectRules key that governs it
// (a price's numbers are governed by the price table's rule).
type numberKey struct {
	key  toml.Key
	rule string
	kind reflect.Kind
}

// numberKeys lists every int and float of the schema by reflection, so a
// new numeric key shows up here without anyone adding it.
func numberKeys(t reflect.Type, path toml.Key, rule string) []numberKey {
	var out []numberKey
	for i := range t.NumField() {
		f := t.Field(i)
		name := tagName(f)
		if name == "" || !f.IsExported() {
			continue
		}
		k := appendKey(path, name)
		r := rule
		if r == "" {
			r = rulePattern(k)
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
			if ft.Kind() == reflect.Struct { // an optional table (price): one rule
				out = append(out, numberKeys(ft, k, r)...)
				continue
			}
		}
		switch {
		case ft.Kind() == reflect.Struct:
			out = append(out, numberKeys(ft, k, rule)...)
		case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
			out = append(out, numberKeys(ft.Elem(), appendKey(k, "main"), rule)...)
		case ft.Kind() == reflect.Int || ft.Kind() == reflect.Float64:
			out = append(out, numberKey{key: k, rule: r, kind: ft.Kind()})
		}
	}
	return out
}

// TestProjectRulesNumbers: every number of the config schema is classified
// for an untrusted project file as a resource limit it may only lower
// (lowerOnly, lowerCap), as ignored, or as harmless tuning whose rule says
// why raising it does no harm. A new numeric key fails here until someone
// decides.
func TestProjectRulesNumbers(t *testing.T) {
	t.Parallel()
	numbers := numberKeys(configType, nil, "")
	if len(numbers) < 25 {
		t.Fatalf("only %d numeric keys found: %v", len(numbers), numbers)
	}
	numeric := map[string]bool{}
	for _, n := range numbers {
		numeric[n.rule] = true
		r, ok := projectRules[n.rule]
		switch {
		case !ok:
			t.Errorf("%s: no rule in projectRules", n.key)
		case r.kind == applies && r.why == "":
			t.Errorf("%s applies in an untrusted workspace without a reason: make it lowerOnly (a resource limit) "+
				"or say in why what bounds it", n.key)
		case r.kind != applies && r.kind != lowerOnly && r.kind != lowerCap && r.kind != raiseOnly && r.kind != ignored && r.kind != userOnly:
			t.Errorf("%s: rule kind %d is not one for a number", n.key, r.kind)
		}
	}
	for _, k := range sortedKeys(projectRules) {
		if kind := projectRules[k].kind; (kind == lowerOnly || kind == lowerCap || kind == raiseOnly) && !numeric[k] {
			t.Errorf("%s is %d but not a number", k, kind)
		}
	}
}

// TestUntrustedLimitsOnlyLower: an untrusted project file may lower every
// lowerOnly limit and may not raise any (web_fetch.max_bytes,
// max_tool_output_chars, tool_timeout_secs, parallel_tools, ...); trusted,
// it may raise them.
func TestUntrustedLimitsOnlyLower(t *testing.T) {
	t.Parallel()
	var limits []numberKey
	for _, n := range numberKeys(configType, nil, "") {
		if projectRules[n.rule].kind == lowerOnly {
			limits = append(limits, n)
		}
	}
	for _, want := range []string{"web_fetch.max_bytes", "agent.max_tool_output_chars", "agent.tool_timeout_secs",
		"agent.parallel_tools", "http_request.max_bytes", "providers.models.*.timeout_secs"} {
		if projectRules[want].kind != lowerOnly {
			t.Errorf("%s is not lowerOnly", want)
		}
	}
	for _, n := range limits {
		def := valueAt(Default(), n.key)
		var higher, lower string
		switch n.kind {
		case reflect.Int:
			higher, lower = fmt.Sprint(def.Int()+1), fmt.Sprint(def.Int()-1)
		default:
			higher, lower = formatFloat(def.Float()*2), formatFloat(def.Float()/2)
		}
		// A model entry's limit belongs to an entry the user defined (a
		// project may not define entries in an untrusted workspace).
		user := ""
		if n.key[0] == "providers" && len(n.key) > 3 {
			user = "[providers.models.main]\nprovider = \"openai\"\n"
		}
		for _, tc := range []struct {
			value   string
			trusted bool
			raised  bool
		}{{higher, false, true}, {higher, true, true}, {lower, false, false}} {
			t.Run(fmt.Sprintf("%s=%s/trusted=%v", n.key, tc.value, tc.trusted), func(t *testing.T) {
				t.Parallel()
				s := newSandbox(t)
				if user != "" {
					writeFile(t, s.userFile(), user)
				}
				project := writeFile(t, s.projectFile(), fmt.Sprintf("%s = %s\n", n.key, tc.value))
				opts := s.opts(nil)
				opts.Trusted = func(string) (bool, string) { return tc.trusted, "" }
				c := mustLoad(t, opts)
				got := fmt.Sprint(valueAt(c, n.key).Interface())
				if n.kind == reflect.Float64 {
					got = formatFloat(valueAt(c, n.key).Float())
				}
				want := tc.value
				var ignored []ignoredWant
				if tc.raised && !tc.trusted {
					want = fmt.Sprint(def.Interface())
					if n.kind == reflect.Float64 {
						want = formatFloat(def.Float())
					}
					ignored = []ignoredWant{{n.key.String(), tc.value, "may only lower this limit (user: " + strings.TrimSuffix(want, ".0") + ")", 1}}
				}
				if got != want {
					t.Errorf("%s = %s, want %s", n.key, got, want)
				}
				checkIgnored(t, c, project, ignored)
			})
		}
	}
}
