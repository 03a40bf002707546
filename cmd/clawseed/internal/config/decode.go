package config

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/internal/nesting"
	"github.com/clawseed/clawseed/internal/tomltext"
)

// A file layer is decoded in two passes over a generic tree. First every key
// the file defines (MetaData.Keys, document order) is checked against the
// schema, so the first unknown key or wrong type in the file is reported with
// its line; this is the set MetaData.Undecoded would report for a typed
// decode, with our own messages. Then only the keys the file defines are
// applied on top of the lower layers, which is what makes layering per key.

type fileKind int

const (
	userFile fileKind = iota
	projectFile
	explicitFile
)

var configType = reflect.TypeFor[Config]()

// applyFile decodes one config file onto c.
func (c *Config) applyFile(path string, data []byte, kind fileKind) error {
	// The decoder's time and memory grow much faster than its input with
	// nesting depth (8,000 levels in 32 KB took seconds and gigabytes), so
	// depth is refused in a linear pre-scan before any decoding.
	if err := nesting.CheckTOML(data); err != nil {
		return nestingError(path, err)
	}
	var tree map[string]any
	md, err := toml.Decode(string(data), &tree)
	if err != nil {
		return syntaxError(path, data, err)
	}
	d := &decoder{c: c, file: path, lines: tomltext.KeyLines(string(data))}
	hooksIgnored, err := d.takeHooks(tree, kind) // arrays of tables, checked on their own
	if err != nil {
		return err
	}
	for _, k := range md.Keys() {
		if k[0] == "hooks" {
			continue
		}
		if err := d.check(k, tree); err != nil {
			return err
		}
	}
	if ws, ok := tree["workspace_dir"].(string); ok && ws != "" && kind == projectFile {
		return d.errAt(toml.Key{"workspace_dir"}, "workspace_dir cannot be set in a project file "+
			"(use the user file, --config, CLAWSEED_WORKSPACE or --workspace)")
	}
	if kind == projectFile {
		for _, name := range sortedKeys(tree) {
			if userOnlyTable(name) {
				return d.errAt(toml.Key{name}, "["+name+"] cannot be set in a project file (use the user file or --config)")
			}
		}
	}
	perms := c.Permissions
	if kind != projectFile || c.Trusted {
		var before *Config
		if kind == projectFile {
			c.markProjectServers(tree)
			before = c.snapshot()
		}
		if err := d.applyStruct(tree, reflect.ValueOf(c).Elem(), nil); err != nil {
			return err
		}
		if before != nil {
			d.narrowSandbox(tree, before)
		}
		d.addPermissions(tree, perms, c.Permissions, kind == projectFile)
		return nil
	}
	// Before anything is applied: no key of them merges into a user's
	// server or entry.
	dropped := append(append(hooksIgnored, d.dropServers(tree)...), d.dropModelEntries(tree)...)
	before := c.snapshot()
	if err := d.applyStruct(tree, reflect.ValueOf(c).Elem(), nil); err != nil {
		return err
	}
	decoded := c.Permissions
	d.restrict(tree, before, dropped)
	d.addPermissions(tree, perms, decoded, true)
	return nil
}

func nestingError(path string, err error) *Error {
	var ne *nesting.Error
	if errors.As(err, &ne) {
		return &Error{File: path, Line: ne.Line, Msg: ne.Error()}
	}
	return &Error{File: path, Msg: err.Error()}
}

func syntaxError(path string, data []byte, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &Error{File: path, Line: tomltext.ErrorLine(data, pe), Key: pe.LastKey, Msg: pe.Message}
	}
	return &Error{File: path, Msg: err.Error()}
}

type decoder struct {
	c     *Config
	file  string
	lines map[string]int
	// projectModels names the model entries an untrusted project file
	// defined (dropModelEntries).
	projectModels []string
}

// line finds the line of k, or of its nearest parent the scanner located.
func (d *decoder) line(k toml.Key) int {
	for n := len(k); n > 0; n-- {
		if l, ok := d.lines[k[:n].String()]; ok {
			return l
		}
	}
	return 0
}

func (d *decoder) origin(k toml.Key) origin { return origin{file: d.file, line: d.line(k)} }

func (d *decoder) errAt(k toml.Key, msg string) *Error {
	return d.origin(k).errAt(k.String(), msg)
}

// check verifies that k exists in the schema and its value has the right type.
func (d *decoder) check(k toml.Key, tree map[string]any) error {
	t, ok := schemaType(k)
	if !ok {
		msg := fmt.Sprintf("unknown key %q", k.String())
		if s := suggest(k); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return d.errAt(k, msg)
	}
	v, ok := lookupTree(tree, k)
	if !ok {
		return nil // implicit parent of a key checked on its own
	}
	if want, got := mismatch(t, v); want != "" {
		return d.errAt(k, fmt.Sprintf("%s: expected %s, got %s", k, want, got))
	}
	return nil
}

// schemaType returns the Go type the key k decodes into.
func schemaType(k toml.Key) (reflect.Type, bool) {
	t := configType
	for i, piece := range k {
		for t.Kind() == reflect.Pointer {
			t = t.Elem() // an optional table: its keys are the struct's
		}
		switch t.Kind() {
		case reflect.Struct:
			if i == 1 && k[0] == "providers" && piece == "fallback" {
				piece = "default" // ClawSeed compatibility
			}
			f, ok := fieldByTag(t, piece)
			if !ok {
				return nil, false
			}
			t = f.Type
		case reflect.Map:
			t = t.Elem()
		default:
			return nil, false
		}
	}
	return t, true
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.IsExported() && tagName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func tagName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if name == "-" {
		return ""
	}
	return name
}

func lookupTree(tree map[string]any, k toml.Key) (any, bool) {
	var v any = tree
	for _, piece := range k {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[piece]; !ok {
			return nil, false
		}
	}
	return v, true
}

// mismatch returns the expected and actual type names when v cannot be
// decoded into t, or "" when it can.
func mismatch(t reflect.Type, v any) (want, got string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	got = tomlTypeName(v)
	switch t.Kind() {
	case reflect.String:
		want = "string"
	case reflect.Bool:
		want = "boolean"
	case reflect.Int:
		want = "integer"
	case reflect.Float64:
		if _, ok := v.(int64); ok {
			return "", ""
		}
		want = "float"
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return "array of strings", got
		}
		for _, e := range arr {
			if _, ok := e.(string); !ok {
				return "array of strings", "array containing " + tomlTypeName(e)
			}
		}
		return "", ""
	case reflect.Map, reflect.Struct:
		want = "table"
	}
	if want == got {
		return "", ""
	}
	return want, got
}

func tomlTypeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case []any, []map[string]any:
		return "array"
	case map[string]any:
		return "table"
	case time.Time:
		return "datetime"
	}
	return fmt.Sprintf("%T", v)
}

// applyStruct sets the fields of dst named by the keys of tree. Keys are
// applied in sorted order, so the result never depends on map iteration.
func (d *decoder) applyStruct(tree map[string]any, dst reflect.Value, path toml.Key) error {
	for _, name := range sortedKeys(tree) {
		field := name
		if len(path) == 1 && path[0] == "providers" && name == "fallback" {
			if _, both := tree["default"]; both {
				continue // an explicit default wins over the ClawSeed alias
			}
			field = "default"
		}
		f, _ := fieldByTag(dst.Type(), field) // checked by check
		key := appendKey(path, name)
		if err := d.applyValue(tree[name], dst.FieldByIndex(f.Index), key, appendKey(path, field)); err != nil {
			return err
		}
	}
	return nil
}

// applyValue sets dst from v. key is where v sits in the file; src is the
// key it sets (they differ only for the providers.fallback alias).
func (d *decoder) applyValue(v any, dst reflect.Value, key, src toml.Key) error {
	switch dst.Kind() {
	case reflect.Pointer:
		return d.applyPointer(v, dst, key, src)
	case reflect.Struct:
		return d.applyStruct(v.(map[string]any), dst, src)
	case reflect.Map:
		if dst.IsNil() {
			dst.Set(reflect.MakeMap(dst.Type()))
		}
		m := v.(map[string]any)
		if dst.Type().Elem().Kind() == reflect.Struct {
			return d.applyEntries(m, dst, src)
		}
		for _, name := range sortedKeys(m) {
			k := appendKey(src, name)
			s, err := d.str(m[name].(string), k)
			if err != nil {
				return err
			}
			dst.SetMapIndex(reflect.ValueOf(name), reflect.ValueOf(s))
			d.set(k)
		}
		d.set(key, src) // the map as a whole, for Show
		return nil
	case reflect.String:
		s, err := d.str(v.(string), src)
		if err != nil {
			return err
		}
		dst.SetString(s)
	case reflect.Bool:
		dst.SetBool(v.(bool))
	case reflect.Int:
		dst.SetInt(v.(int64))
	case reflect.Float64:
		if i, ok := v.(int64); ok {
			dst.SetFloat(float64(i))
		} else {
			dst.SetFloat(v.(float64))
		}
	case reflect.Slice:
		list, err := d.strs(v.([]any), src)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(list))
	}
	d.set(key, src)
	return nil
}

// applyPointer sets an optional value (a *float64, or a *struct table such
// as an entry's price): allocated when the file sets it, except that an
// empty table leaves an unset one unset.
func (d *decoder) applyPointer(v any, dst reflect.Value, key, src toml.Key) error {
	if m, ok := v.(map[string]any); ok && len(m) == 0 && dst.IsNil() {
		d.set(key, src)
		return nil
	}
	if dst.IsNil() {
		dst.Set(reflect.New(dst.Type().Elem()))
	}
	if err := d.applyValue(v, dst.Elem(), key, src); err != nil {
		return err
	}
	d.set(key, src)
	return nil
}

// applyEntries merges the tables of a map of tables ([providers.models.NAME],
// [mcp.servers.NAME]): a new entry starts from its type's defaults
// (newEntry), an existing one keeps the keys this file leaves out.
func (d *decoder) applyEntries(m map[string]any, dst reflect.Value, path toml.Key) error {
	for _, name := range sortedKeys(m) {
		k := appendKey(path, name)
		ev := newEntry(dst.Type().Elem())
		if old := dst.MapIndex(reflect.ValueOf(name)); old.IsValid() {
			ev = cloneEntry(old)
		}
		if err := d.applyStruct(m[name].(map[string]any), ev, k); err != nil {
			return err
		}
		dst.SetMapIndex(reflect.ValueOf(name), ev)
		d.set(k)
	}
	return nil
}

var (
	modelEntryType = reflect.TypeFor[ModelEntry]()
	mcpServerType  = reflect.TypeFor[MCPServer]()
	serveTokenType = reflect.TypeFor[ServeToken]()
)

// newEntry returns a settable entry of a map of tables holding what a table
// the file defines starts from: [DefaultModelEntry], [DefaultMCPServer].
func newEntry(t reflect.Type) reflect.Value {
	v := reflect.New(t).Elem()
	switch t {
	case modelEntryType:
		v.Set(reflect.ValueOf(DefaultModelEntry()))
	case mcpServerType:
		v.Set(reflect.ValueOf(DefaultMCPServer()))
	case serveTokenType:
		v.Set(reflect.ValueOf(DefaultServeToken()))
	}
	return v
}

// cloneEntry returns a settable copy of an entry whose maps and pointers
// the decoder may change without changing the original: the snapshot of an
// untrusted project file's lower layers shares the originals.
func cloneEntry(old reflect.Value) reflect.Value {
	v := reflect.New(old.Type()).Elem()
	switch e := old.Interface().(type) {
	case ModelEntry:
		e.ExtraHeaders = maps.Clone(e.ExtraHeaders)
		e.Price = e.Price.clone()
		v.Set(reflect.ValueOf(e))
	case MCPServer:
		v.Set(reflect.ValueOf(e.clone()))
	default:
		v.Set(old)
	}
	return v
}

// set records that this file defines key (src, when the alias differs, is
// the key recorded).
func (d *decoder) set(key toml.Key, src ...toml.Key) {
	o := d.origin(key)
	if len(src) > 0 {
		key = src[0]
	}
	d.c.sources[key.String()] = o
}

// str expands ${VAR} in one string value; an unset variable is recorded
// against key and the value becomes "".
func (d *decoder) str(s string, key toml.Key) (string, error) {
	out, missing, err := expand(s, d.c.lookup)
	if err != nil {
		return "", d.errAt(key, key.String()+": "+err.Error())
	}
	d.c.noteUnresolved(key.String(), unresolved{name: missing, at: d.origin(key)})
	return out, nil
}

func (d *decoder) strs(arr []any, key toml.Key) ([]string, error) {
	list := make([]string, 0, len(arr))
	first := ""
	for _, e := range arr {
		out, missing, err := expand(e.(string), d.c.lookup)
		if err != nil {
			return nil, d.errAt(key, key.String()+": "+err.Error())
		}
		if first == "" {
			first = missing
		}
		list = append(list, out)
	}
	d.c.noteUnresolved(key.String(), unresolved{name: first, at: d.origin(key), list: true})
	return list, nil
}

// noteUnresolved records (u.name != "") or clears the unresolved variable
// of key: a later layer that sets the key replaces the failure.
func (c *Config) noteUnresolved(key string, u unresolved) {
	if u.name == "" {
		delete(c.unresolved, key)
		return
	}
	c.unresolved[key] = u
}

func appendKey(k toml.Key, piece string) toml.Key {
	return append(slices.Clip(k), piece)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// suggest returns the closest known key to an unknown one, if it is close.
func suggest(k toml.Key) string {
	parent, ok := schemaType(k[:len(k)-1])
	for ok && parent.Kind() == reflect.Pointer {
		parent = parent.Elem()
	}
	if !ok || parent.Kind() != reflect.Struct {
		return ""
	}
	last := k[len(k)-1]
	best, bestDist := "", 0
	for i := range parent.NumField() {
		name := tagName(parent.Field(i))
		if name == "" || !parent.Field(i).IsExported() {
			continue
		}
		// Close means at most a third of the longer name differs.
		dist := editDistance(last, name)
		if dist*3 <= max(len(last), len(name)) && (best == "" || dist < bestDist) {
			best, bestDist = name, dist
		}
	}
	if best == "" {
		return ""
	}
	return appendKey(k[:len(k)-1], best).String()
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
