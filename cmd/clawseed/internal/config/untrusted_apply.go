package config

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/internal/tomltext"
	"github.com/clawseed/clawseed/permissions"
)

// An untrusted project file is decoded like any other (same checks, same
// ${VAR} expansion, same merging of model entries); then every key it set
// is reconciled with the value of the lower layers, kept in a snapshot taken
// before the file, by its rule. Working on decoded values rather than on the
// TOML tree means expansion, the providers.fallback alias and entry merging
// cannot be used to slip past a rule.

// snapshot copies c deeply enough that decoding a file onto c leaves the
// copy unchanged: the decoder replaces lists and strings, and copies a model
// entry (its headers and price) before changing it, so only the maps it
// writes into need cloning.
func (c *Config) snapshot() *Config {
	b := *c
	b.Providers.Models = maps.Clone(c.Providers.Models)
	b.MCP.Servers = maps.Clone(c.MCP.Servers)
	b.sources = maps.Clone(c.sources)
	b.unresolved = maps.Clone(c.unresolved)
	return &b
}

// fileLeaf is one value a file sets: at is where it is in the file, key
// the schema key it sets (they differ for the providers.fallback alias).
type fileLeaf struct{ at, key toml.Key }

// fileLeaves lists the values tree sets, in sorted key order: scalars,
// lists, string maps (extra_headers) and optional tables (price) are one
// value each; tables and model entries are walked.
func fileLeaves(tree map[string]any, t reflect.Type, at, key toml.Key) []fileLeaf {
	var out []fileLeaf
	for _, name := range sortedKeys(tree) {
		field := name
		if len(key) == 1 && key[0] == "providers" && name == "fallback" {
			if _, both := tree["default"]; both {
				continue // the decoder ignores the alias then
			}
			field = "default"
		}
		f, ok := fieldByTag(t, field)
		if !ok {
			continue // cannot happen: the decoder checked every key
		}
		a, k := appendKey(at, name), appendKey(key, field)
		sub, isTable := tree[name].(map[string]any)
		switch {
		case isTable && f.Type.Kind() == reflect.Struct:
			out = append(out, fileLeaves(sub, f.Type, a, k)...)
		case isTable && f.Type.Kind() == reflect.Map && f.Type.Elem().Kind() == reflect.Struct:
			for _, entry := range sortedKeys(sub) {
				if m, ok := sub[entry].(map[string]any); ok {
					out = append(out, fileLeaves(m, f.Type.Elem(), appendKey(a, entry), appendKey(k, entry))...)
				}
			}
		default:
			out = append(out, fileLeaf{at: a, key: k})
		}
	}
	return out
}

// restrict applies projectRules to the keys an untrusted project file set
// (tree), given the configuration before the file; what the file did not
// get, with dropped (its MCP servers, removed from tree), is appended to
// c.Ignored in file order.
func (d *decoder) restrict(tree map[string]any, before *Config, dropped []Ignored) {
	out := slices.Clone(dropped)
	for _, l := range fileLeaves(tree, configType, nil, nil) {
		if ig, ok := d.restrictKey(tree, l, before); ok {
			out = append(out, ig)
		}
	}
	slices.SortStableFunc(out, func(a, b Ignored) int { return cmp.Compare(a.Line, b.Line) })
	d.c.Ignored = append(d.c.Ignored, out...)
}

// restrictKey reconciles one key; ok reports that something the file asked
// for was dropped.
func (d *decoder) restrictKey(tree map[string]any, l fileLeaf, before *Config) (ig Ignored, ok bool) {
	c := d.c
	rule := ruleOf(l.key)
	now, old := valueAt(c, l.key), valueAt(before, l.key)
	raw, _ := lookupTree(tree, l.at)
	ig = Ignored{File: d.file, Line: d.line(l.at), Key: l.key.String(), Value: shorten(rawValue(raw, l.key[len(l.key)-1]))}
	reject := func(why string) (Ignored, bool) {
		changed := !reflect.DeepEqual(now.Interface(), old.Interface())
		c.restore(before, l.key)
		ig.Why = "untrusted workspace: " + why
		return ig, changed // a value equal to the user's asked for nothing
	}
	if names := envRefs(raw); len(names) > 0 && rule.kind != ignored && rule.kind != userOnly {
		// ${VAR} would copy the user's environment (tokens included) into
		// values the model sees, such as system_prompt.
		return reject("may not read environment variables (${" + names[0] + "})")
	}
	switch rule.kind {
	case applies:
		return ig, false
	case lowerLevel:
		n, errN := permissions.ParseLevel(now.String())
		o, errO := permissions.ParseLevel(old.String())
		if errN != nil {
			return ig, false // validate reports the bad value at its line
		}
		if errO != nil || n.Rank() > o.Rank() {
			return reject(fmt.Sprintf("may only lower autonomy (user: %s)", cmp.Or(string(o), old.String())))
		}
	case lowerCap:
		if n, o := now.Int(), old.Int(); n == 0 || o != 0 && n > o {
			user := "no cap"
			if o != 0 {
				user = strconv.FormatInt(o, 10)
			}
			return reject("may only lower the cap (user: " + user + ")")
		}
	case lowerOnly:
		if raised(now, old) {
			return reject("may only lower this limit (user: " + fmt.Sprint(old.Interface()) + ")")
		}
	case raiseOnly:
		if raised(old, now) {
			return reject("may only raise this (user: " + fmt.Sprint(old.Interface()) + ")")
		}
	case offOnly:
		if now.Bool() && !old.Bool() {
			return reject("may turn this off, not on")
		}
	case onOnly:
		if !now.Bool() && old.Bool() {
			return reject("may turn this on, not off")
		}
	case tighten:
		n, o := slices.Index(rule.order, now.String()), slices.Index(rule.order, old.String())
		if n < 0 {
			return ig, false // validate reports the bad value at its line
		}
		if o < 0 || n > o { // an invalid user value stays, for validate to report
			return reject(fmt.Sprintf("%s (user: %q)", cmp.Or(rule.why, "may only tighten this"), old.String()))
		}
	case union:
		merged := unionOf(strList(old), strList(now))
		if !slices.Equal(merged, strList(now)) {
			setValueAt(c, l.key, reflect.ValueOf(merged))
			if c.merged == nil {
				c.merged = map[string]bool{}
			}
			c.merged[l.key.String()] = true
		}
	case narrowCommands, narrowDomains:
		return d.narrow(l.key, rule.kind, strList(old), strList(now), ig, reject)
	case userModels:
		names := strList(now)
		if now.Kind() == reflect.String {
			names = []string{now.String()}
		}
		return d.restrictModels(l.key, before, names, ig, reject)
	default: // ignored, userOnly
		return reject(cmp.Or(rule.why, "project files may not set it"))
	}
	return ig, false
}

// narrow keeps the entries of an allow-list the user's list already
// allows. See narrowCommands and narrowDomains.
func (d *decoder) narrow(key toml.Key, kind ruleKind, user, proj []string, ig Ignored,
	reject func(string) (Ignored, bool)) (Ignored, bool) {
	covers := domainCovered
	if kind == narrowCommands {
		if len(user) == 0 {
			return ig, false // every command was allowed: any list narrows
		}
		covers = commandCovered
	}
	var kept, dropped []string
	for _, e := range proj {
		if covers(user, e) {
			kept = append(kept, e)
		} else {
			dropped = append(dropped, e)
		}
	}
	why := "may only narrow the user's list (user: " + shorten(strings.Join(user, ", ")) + ")"
	if len(user) == 0 {
		why = "may only narrow the user's list, which is empty"
	}
	emptyIsWider := kind == narrowCommands || key.String() == "http_request.allowed_domains"
	if len(kept) == 0 && len(user) > 0 && emptyIsWider {
		// An empty allowed_commands allows every command, and an empty
		// http_request list makes the configuration invalid.
		return reject(why)
	}
	if len(dropped) == 0 {
		return ig, false
	}
	if kept == nil {
		kept = []string{}
	}
	setValueAt(d.c, key, reflect.ValueOf(kept))
	ig.Value = shorten(rawValue(toAny(dropped), ""))
	ig.Why = "untrusted workspace: " + why
	return ig, true
}

// commandCovered reports whether the user's allowed_commands allow e: the
// shell allowlist compares base names.
func commandCovered(user []string, e string) bool {
	e = strings.TrimSpace(e)
	if e == "" {
		return false
	}
	return slices.ContainsFunc(user, func(u string) bool {
		u = strings.TrimSpace(u)
		return u != "" && path.Base(u) == path.Base(e)
	})
}

// domainCovered reports whether every host the pattern e matches is matched
// by one of the user's patterns (the semantics of runtime/tools/netguard
// hostMatches: a plain name matches itself and its subdomains, a pattern
// with wildcards is a glob over the host). It answers only cases it can
// prove: "*", the same pattern, and patterns that reduce to "ends with".
func domainCovered(user []string, e string) bool {
	e = normDomain(e)
	if e == "" {
		return false
	}
	eSuffix, eIsSuffix := globSuffix(e)
	for _, u := range user {
		u = normDomain(u)
		switch uSuffix, uIsSuffix := globSuffix(u); {
		case u == "":
		case u == "*" || u == e:
			return true
		case uIsSuffix && !hasGlob(e): // u = "*T": hosts ending in T
			if strings.HasSuffix(e, uSuffix) {
				return true // e's hosts end in e, which ends in T
			}
		case uIsSuffix && eIsSuffix:
			if strings.HasSuffix(eSuffix, uSuffix) {
				return true
			}
		case !hasGlob(u) && !hasGlob(e): // u's hosts: u and *.u
			if strings.HasSuffix(e, "."+u) {
				return true
			}
		case !hasGlob(u) && eIsSuffix:
			if strings.HasSuffix(eSuffix, "."+u) {
				return true
			}
		}
	}
	return false
}

func normDomain(p string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(p)), ".")
}

func hasGlob(p string) bool { return strings.ContainsAny(p, "*?[\\") }

// globSuffix reports whether p is "*" followed by a literal T (not empty),
// and returns T.
func globSuffix(p string) (string, bool) {
	t, ok := strings.CutPrefix(p, "*")
	if !ok || t == "" || hasGlob(t) {
		return "", false
	}
	return t, true
}

// raised reports whether the number now is greater than old.
func raised(now, old reflect.Value) bool {
	switch now.Kind() {
	case reflect.Int:
		return now.Int() > old.Int()
	case reflect.Float64:
		return now.Float() > old.Float()
	}
	return false
}

// unionOf is a followed by the entries of b it lacks.
func unionOf(a, b []string) []string {
	out := slices.Clone(a)
	if out == nil {
		out = []string{}
	}
	for _, e := range b {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

func strList(v reflect.Value) []string {
	s, _ := v.Interface().([]string)
	return s
}

func toAny(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// restore gives key, and everything recorded under it, the value, sources
// and unset variables it had before the file.
func (c *Config) restore(before *Config, k toml.Key) {
	setValueAt(c, k, valueAt(before, k))
	ks := k.String()
	under := func(s string) bool { return s == ks || strings.HasPrefix(s, ks+".") }
	restoreUnder(c.sources, before.sources, under)
	restoreUnder(c.unresolved, before.unresolved, under)
}

// restoreUnder gives the keys of m that under selects the entries they
// had in before.
func restoreUnder[V any](m, before map[string]V, under func(string) bool) {
	maps.DeleteFunc(m, func(k string, _ V) bool { return under(k) })
	for k, v := range before {
		if under(k) {
			m[k] = v
		}
	}
}

// valueAt returns the value of a schema key; an entry c lacks reads as its
// type's defaults (newEntry), which is what a file's new entry starts from.
func valueAt(c *Config, k toml.Key) reflect.Value {
	v := reflect.ValueOf(c).Elem()
	for _, piece := range k {
		switch v.Kind() {
		case reflect.Struct:
			f, _ := fieldByTag(v.Type(), piece)
			v = v.FieldByIndex(f.Index)
		case reflect.Map:
			e := v.MapIndex(reflect.ValueOf(piece))
			if !e.IsValid() {
				e = newEntry(v.Type().Elem())
			}
			v = e
		}
	}
	return v
}

// setValueAt sets a schema key; see valueAt.
func setValueAt(c *Config, k toml.Key, nv reflect.Value) {
	setIn(reflect.ValueOf(c).Elem(), k, nv)
}

func setIn(v reflect.Value, k toml.Key, nv reflect.Value) {
	if len(k) == 0 {
		v.Set(nv)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		f, _ := fieldByTag(v.Type(), k[0])
		setIn(v.FieldByIndex(f.Index), k[1:], nv)
	case reflect.Map:
		name := reflect.ValueOf(k[0])
		ev := newEntry(v.Type().Elem())
		if e := v.MapIndex(name); e.IsValid() {
			ev.Set(e)
		}
		setIn(ev, k[1:], nv)
		v.SetMapIndex(name, ev)
	}
}

// envRefs lists the variables the strings of a decoded TOML value refer
// to with ${VAR} or ${VAR:-default}.
func envRefs(v any) []string {
	var names []string
	switch x := v.(type) {
	case string:
		// The decoder has already refused malformed references.
		_, _, _ = expand(x, func(name string) (string, bool) {
			names = append(names, name)
			return "", true
		})
	case []any:
		for _, e := range x {
			names = append(names, envRefs(e)...)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			names = append(names, envRefs(x[k])...)
		}
	}
	return names
}

// rawValue writes a decoded TOML value as the file wrote it (no ${VAR}
// expansion), with secrets masked as Show masks them.
func rawValue(v any, name string) string {
	switch x := v.(type) {
	case string:
		if isSecretKey(name) {
			x = mask(x)
		}
		return tomltext.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return formatFloat(x)
	case []any:
		items := make([]string, len(x))
		for i, e := range x {
			items[i] = rawValue(e, "")
		}
		return "[" + strings.Join(items, ", ") + "]"
	case map[string]any:
		if len(x) == 0 {
			return "{}"
		}
		var items []string
		for _, k := range sortedKeys(x) {
			item := rawValue(x[k], k)
			if s, ok := x[k].(string); ok && name == "extra_headers" && isSecretHeader(k) {
				item = tomltext.Quote(mask(s))
			}
			items = append(items, toml.Key{k}.String()+" = "+item)
		}
		return "{ " + strings.Join(items, ", ") + " }"
	}
	return fmt.Sprint(v)
}

// shorten cuts a value shown in a message to 80 characters.
func shorten(s string) string {
	const limit = 80
	if r := []rune(s); len(r) > limit {
		return string(r[:limit-1]) + "…"
	}
	return s
}
