package config

import (
	"reflect"
	"strings"
)

// openclawSettings are OpenClaw configuration paths (openclaw.json) with a
// clawseed setting of the same meaning. A path not listed here is looked
// up as a clawseed key as it is.
var openclawSettings = map[string]string{
	"tools.web.search.enabled": "web_search.enabled",
	"tools.web.fetch.enabled":  "web_fetch.enabled",
}

// RequiredSetting answers a skill's OpenClaw `requires.config` path
// (skills.ConfigLookup) against this configuration: the path is an
// OpenClaw setting clawseed has ([openclawSettings]) or a clawseed key
// written with dots (`memory.enabled`, `skills.watch`,
// `providers.models.NAME.api_key`). key is that setting as config.toml
// spells it (`[memory].enabled`); set says whether it is set the way
// OpenClaw reads a path as truthy: true, a non-zero number, a non-empty
// string, list or table. ok is false when no setting answers path.
func (c *Config) RequiredSetting(path string) (key string, set, ok bool) {
	p := strings.TrimSpace(path)
	if alias, found := openclawSettings[p]; found {
		p = alias
	}
	parts := strings.Split(p, ".")
	v := reflect.ValueOf(c).Elem()
	for _, part := range parts {
		if part == "" {
			return "", false, false
		}
		var found bool
		if v, found = child(v, part); !found {
			return "", false, false
		}
	}
	key = parts[len(parts)-1]
	if len(parts) > 1 {
		key = "[" + strings.Join(parts[:len(parts)-1], ".") + "]." + key
	} else if v.Kind() == reflect.Struct {
		key = "[" + key + "]"
	}
	return key, truthy(v), true
}

// child is the field of struct v whose toml name is name, or the entry
// name of map v. A missing map entry is found (the key exists in
// clawseed, unset); anything else is not.
func child(v reflect.Value, name string) (reflect.Value, bool) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v = reflect.Zero(v.Type().Elem())
			continue
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if f.IsExported() && tag == name && tag != "-" {
				return v.Field(i), true
			}
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return reflect.Value{}, false
		}
		if e := v.MapIndex(reflect.ValueOf(name).Convert(v.Type().Key())); e.IsValid() {
			return e, true
		}
		return reflect.Zero(v.Type().Elem()), true
	}
	return reflect.Value{}, false
}

// truthy is OpenClaw's reading of a configuration value.
func truthy(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Invalid:
		return false
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && truthy(v.Elem())
	case reflect.Bool:
		return v.Bool()
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return v.Len() > 0
	case reflect.Struct:
		return !v.IsZero()
	}
	return !v.IsZero()
}
