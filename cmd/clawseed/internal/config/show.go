package config

import (
	"cmp"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/clawseed/clawseed/internal/tomltext"
)

// Show writes the effective configuration as TOML for `clawseed config show`:
// every key in schema order (model entries by name), secrets masked as
// "****" plus their last four characters (just "****" when eight or
// shorter), and every value set by a file, variable or flag followed by
// `  # from <source>`. Literal "${" is written as "$${", so the output
// decodes back to the same values (masked secrets aside).
func (c *Config) Show(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# clawseed effective configuration\n")
	files := "(none)"
	if len(c.Files) > 0 {
		quoted := make([]string, len(c.Files))
		for i, f := range c.Files {
			quoted[i] = tomltext.Quote(f)
		}
		files = strings.Join(quoted, ", ")
	}
	b.WriteString("# files: " + files + "\n")
	b.WriteString("# home: " + tomltext.Quote(c.Home) + "\n")
	if c.mcp.jsonFile != "" {
		b.WriteString("# mcp servers also from: " + tomltext.Quote(c.mcp.jsonFile) + "\n")
	}
	if !c.Trusted {
		b.WriteString("# workspace: untrusted (the project file may only lower privileges; `clawseed trust` trusts it)\n")
	}
	if c.ModelOverride != "" {
		b.WriteString("# model override: " + tomltext.Quote(c.ModelOverride) + c.note("model", "") + "\n")
	}
	if c.TemperatureOverride != nil {
		b.WriteString("# temperature override: " + formatFloat(*c.TemperatureOverride) + c.note("temperature", "") + "\n")
	}
	b.WriteString("\n")
	c.showTable(&b, reflect.ValueOf(c).Elem(), nil)
	_, err := io.WriteString(w, b.String())
	return err
}

func (c *Config) showTable(b *strings.Builder, v reflect.Value, path toml.Key) {
	t := v.Type()
	var tables []int
	for i := range t.NumField() {
		f := t.Field(i)
		name := tagName(f)
		if name == "" || !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Struct || fv.Kind() == reflect.Map && fv.Type().Elem().Kind() == reflect.Struct {
			tables = append(tables, i)
			continue
		}
		key := appendKey(path, name)
		if fv.Kind() == reflect.Pointer && fv.IsNil() && fv.Type().Elem().Kind() != reflect.Struct {
			// An optional value left unset (a model entry's vision): TOML
			// has no null, so it shows as a comment.
			b.WriteString("# " + toml.Key{name}.String() + " is not set" + unsetNote(key) + "\n")
			continue
		}
		b.WriteString(toml.Key{name}.String() + " = " + c.format(fv, key) + c.note(key.String(), c.keyNote(key)) + "\n")
	}
	for _, i := range tables {
		key := appendKey(path, tagName(t.Field(i)))
		fv := v.Field(i)
		if fv.Kind() == reflect.Struct {
			b.WriteString("\n[" + key.String() + "]\n")
			c.showTable(b, fv, key)
			continue
		}
		if key.String() == "mcp.servers" {
			c.showMCPServers(b, key)
			continue
		}
		names := make([]string, 0, fv.Len())
		for _, k := range fv.MapKeys() {
			names = append(names, k.String())
		}
		slices.Sort(names)
		for _, name := range names {
			k := appendKey(key, name)
			b.WriteString("\n[" + k.String() + "]" + c.note(k.String(), "") + "\n")
			c.showTable(b, fv.MapIndex(reflect.ValueOf(name)), k)
		}
		if key.String() == "providers.models" {
			c.showDroppedModels(b)
		}
	}
}

// note is the trailing comment of a key: its source, any unset variable and
// extra.
func (c *Config) note(key, extra string) string {
	var parts []string
	if o, ok := c.sources[key]; ok {
		parts = append(parts, "from "+o.String())
	}
	if u, ok := c.unresolved[key]; ok {
		parts = append(parts, "${"+u.name+"} is not set")
	}
	if extra != "" {
		parts = append(parts, extra)
	}
	if len(parts) == 0 {
		return ""
	}
	return "  # " + commentSafe(strings.Join(parts, "; "))
}

// keyNote is what a key's comment says beyond its source: the built-in
// price of an entry that sets none, and what an untrusted project file set
// and did not get.
func (c *Config) keyNote(key toml.Key) string {
	var parts []string
	if len(key) == 4 && key[0] == "providers" && key[1] == "models" && key[3] == "price" {
		if n := c.priceNote(key[2]); n != "" {
			parts = append(parts, n)
		}
	}
	if len(key) == 4 && key[0] == "providers" && key[1] == "models" && key[3] == "wire" {
		if n := c.wireNote(key[2]); n != "" {
			parts = append(parts, n)
		}
	}
	if c.merged[key.String()] {
		parts = append(parts, "untrusted workspace: merged with the user's list (a project file may only add entries)")
	}
	if ig := c.ignoredFor(key.String()); ig != nil {
		parts = append(parts, fmt.Sprintf("ignored: untrusted workspace (project file line %d: %s), %s",
			ig.Line, ig.Value, strings.TrimPrefix(ig.Why, "untrusted workspace: ")))
	}
	if r := c.refusedFor(key.String()); r != nil {
		parts = append(parts, fmt.Sprintf("ignored: %s line %d: %s, %s", r.File, r.Line, r.Value, r.Why))
	}
	return strings.Join(parts, "; ")
}

// unsetNote says what an unset optional key means.
func unsetNote(key toml.Key) string {
	if len(key) == 4 && key[0] == "providers" && key[1] == "models" && key[3] == "vision" {
		return ": the model's known value applies (images only to models known to take them)"
	}
	return ""
}

// wireNote says which API an entry that sets no `wire` speaks: its
// preset's.
func (c *Config) wireNote(name string) string {
	e := c.Providers.Models[name]
	p, ok := LookupPreset(cmp.Or(e.Provider, name))
	if e.Wire != "" || !ok || p.Wire != WireOpenAI {
		return ""
	}
	return fmt.Sprintf("the preset's default: %q", cmp.Or(p.API, APIChat))
}

func (c *Config) format(v reflect.Value, key toml.Key) string {
	last := key[len(key)-1]
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return "{}"
		}
		if v.Elem().Kind() != reflect.Struct {
			return c.format(v.Elem(), key)
		}
		return c.inlineTable(v.Elem(), key)
	case reflect.String:
		s := v.String()
		if isSecretKey(last) {
			s = mask(s)
		}
		return tomltext.Quote(escapeDollar(s))
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Float64:
		return formatFloat(v.Float())
	case reflect.Slice:
		items := make([]string, v.Len())
		for i := range items {
			items[i] = tomltext.Quote(escapeDollar(v.Index(i).String()))
		}
		return "[" + strings.Join(items, ", ") + "]"
	case reflect.Map:
		m := v.Interface().(map[string]string)
		if len(m) == 0 {
			return "{}"
		}
		// An MCP server's environment is where its tokens go, under any
		// name (DATABASE_URL holds a password too): every value is masked.
		allSecret := len(key) == 4 && key[0] == "mcp" && last == "env"
		var items []string
		for _, name := range sortedKeys(m) {
			val := m[name]
			if allSecret || isSecretHeader(name) {
				val = mask(val)
			}
			items = append(items, toml.Key{name}.String()+" = "+tomltext.Quote(escapeDollar(val)))
		}
		return "{ " + strings.Join(items, ", ") + " }"
	}
	return fmt.Sprint(v.Interface())
}

// showMCPServers writes the servers of [Config.MCPServers]: a config
// layer's as they are set, a trusted .mcp.json's as tables marked with
// their source (so the output still loads), and an untrusted project's
// as a comment only.
func (c *Config) showMCPServers(b *strings.Builder, key toml.Key) {
	fromJSON := make(map[string]MCPServer, len(c.mcp.json))
	for _, j := range c.mcp.json {
		fromJSON[j.name] = j.server
	}
	for _, spec := range c.MCPServers() {
		k := appendKey(key, spec.Name)
		s, inConfig := c.MCP.Servers[spec.Name]
		switch {
		case inConfig:
			b.WriteString("\n[" + k.String() + "]" + c.note(k.String(), c.keyNote(k)) + "\n")
			c.showTable(b, reflect.ValueOf(s), k)
		case spec.Untrusted:
			b.WriteString("\n# [" + commentSafe(k.String()) + "]  # " +
				commentSafe("from "+spec.Source+"; not started: untrusted workspace") + "\n")
		default:
			b.WriteString("\n[" + k.String() + "]  # " + commentSafe("from "+spec.Source) + "\n")
			c.showTable(b, reflect.ValueOf(fromJSON[spec.Name]), k)
		}
	}
}

// showDroppedModels writes the model entries an untrusted project file
// defined as comments: they do not exist in the configuration.
func (c *Config) showDroppedModels(b *strings.Builder) {
	for _, name := range c.droppedModels {
		k := modelKey(name).String()
		if _, user := c.Providers.Models[name]; user || c.ignoredFor(k) == nil {
			continue
		}
		b.WriteString("\n# [" + commentSafe(k) + "]  # " + commentSafe(c.keyNote(modelKey(name))) + "\n")
	}
}

// inlineTable writes the set fields of a struct of optional values as an
// inline table, e.g. { input = 3.0, output = 15.0 }.
func (c *Config) inlineTable(v reflect.Value, key toml.Key) string {
	var items []string
	for i := range v.NumField() {
		f, fv := v.Type().Field(i), v.Field(i)
		name := tagName(f)
		if name == "" || !f.IsExported() || fv.Kind() == reflect.Pointer && fv.IsNil() {
			continue
		}
		items = append(items, toml.Key{name}.String()+" = "+c.format(fv, appendKey(key, name)))
	}
	if len(items) == 0 {
		return "{}"
	}
	return "{ " + strings.Join(items, ", ") + " }"
}

func isSecretKey(name string) bool {
	n := strings.ToLower(name)
	// A database URL carries its password.
	return n == "api_key" || n == "postgres_url" || strings.Contains(n, "token") || strings.Contains(n, "secret") || strings.Contains(n, "password")
}

func isSecretHeader(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"auth", "key", "token", "secret", "password", "cookie"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// mask hides a secret but keeps enough to tell two keys apart.
func mask(s string) string {
	if s == "" {
		return ""
	}
	r := []rune(s)
	if len(r) <= 8 {
		return "****"
	}
	return "****" + string(r[len(r)-4:])
}

func formatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".eEnN") {
		s += ".0"
	}
	return s
}

func commentSafe(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return '?'
		}
		return r
	}, s)
}
