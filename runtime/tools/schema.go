package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Argument schemas are generated from each tool's Go struct by reflection,
// which costs milliseconds and thousands of allocations for the whole tool
// set. Start-up does not pay for it: the schema bytes the model receives
// come from schemas_gen.go, written by
//
//	go generate ./runtime/tools/
//
// (which runs `go test . -run '^TestGeneratedSchemas$' -update`), and the
// validators are reflected on a tool's first call. TestGeneratedSchemas
// fails when the file no longer equals what reflection gives for every
// tool variant the package can build.
//
// An entry is found by [schemaKey], which names everything the schema is
// derived from: the argument type and each adjustment with its values. A
// variant that depends on configuration in a way no entry covers (say
// http_request with a timeout other than the default 30 s, whose
// timeout_secs maximum follows it) misses and is reflected at construction,
// as every tool used to be; it can never be served another variant's
// schema.
//
//go:generate go test . -run ^TestGeneratedSchemas$ -update

// schemaAdjust refines a reflected schema (bounds, enums). key must name
// everything the change depends on: it is part of the lookup key of the
// generated schemas.
type schemaAdjust struct {
	key   string
	apply func(*jsonschema.Schema)
}

// minimum sets the minimum of a number property.
func minimum(prop string, v float64) schemaAdjust {
	return schemaAdjust{
		key:   "minimum(" + prop + " " + strconv.FormatFloat(v, 'g', -1, 64) + ")",
		apply: func(s *jsonschema.Schema) { s.Properties[prop].Minimum = &v },
	}
}

// maximum sets the maximum of a number property.
func maximum(prop string, v float64) schemaAdjust {
	return schemaAdjust{
		key:   "maximum(" + prop + " " + strconv.FormatFloat(v, 'g', -1, 64) + ")",
		apply: func(s *jsonschema.Schema) { s.Properties[prop].Maximum = &v },
	}
}

// enum restricts a string property to values.
func enum(prop string, values ...string) schemaAdjust {
	return schemaAdjust{
		key: fmt.Sprintf("enum(%s %q)", prop, values),
		apply: func(s *jsonschema.Schema) {
			for _, v := range values {
				s.Properties[prop].Enum = append(s.Properties[prop].Enum, v)
			}
		},
	}
}

// dropProperty removes a property.
func dropProperty(name string) schemaAdjust {
	return schemaAdjust{
		key: "drop(" + name + ")",
		apply: func(s *jsonschema.Schema) {
			delete(s.Properties, name)
			s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(p string) bool { return p == name })
		},
	}
}

// anyObject lets an object property hold any properties: reflection gives
// a map property an additionalProperties schema that some providers refuse.
func anyObject(prop string) schemaAdjust {
	return schemaAdjust{
		key:   "anyObject(" + prop + ")",
		apply: func(s *jsonschema.Schema) { s.Properties[prop].AdditionalProperties = nil },
	}
}

// schemaKey is the key of the generated schema of tool name with argument
// type T after adjust.
func schemaKey[T any](name string, adjust []schemaAdjust) string {
	var b strings.Builder
	b.WriteString(name + " " + reflect.TypeFor[T]().String())
	for _, a := range adjust {
		b.WriteString(" " + a.key)
	}
	return b.String()
}

// reflectSchema builds the argument schema of T: reflected, without null
// types, adjusted.
func reflectSchema[T any](adjust []schemaAdjust) (*jsonschema.Schema, error) {
	schema, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, err
	}
	dropNullTypes(schema)
	for _, a := range adjust {
		a.apply(schema)
	}
	return schema, nil
}

// marshalSchema is the schema as the model receives it.
func marshalSchema(s *jsonschema.Schema) (string, error) {
	raw, err := json.Marshal(s)
	return string(raw), err
}

// dropNullTypes turns the ["null", X] types that jsonschema.For gives pointer
// and slice fields into plain X: several providers reject type arrays, and
// explicit nulls are removed from the arguments before validation anyway.
func dropNullTypes(s *jsonschema.Schema) {
	for _, p := range s.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
		dropNullTypes(p)
	}
	if s.Items != nil {
		dropNullTypes(s.Items)
	}
}

// generatedSchema is one entry of schemas_gen.go.
type generatedSchema struct{ key, schema string }

// lookupSchema returns the generated schema for key. The table is a sorted
// array of constants, so the linker lays it out and start-up runs no code
// for it.
func lookupSchema(key string) (string, bool) {
	i, ok := slices.BinarySearchFunc(generatedSchemas[:], key, func(g generatedSchema, k string) int { return strings.Compare(g.key, k) })
	if !ok {
		return "", false
	}
	return generatedSchemas[i].schema, true
}

// schemaValidator is what validating a call needs, built on first use.
type schemaValidator struct {
	schema *jsonschema.Schema
	// resolved is the whole argument schema; props holds each property's
	// schema resolved on its own, so that problems are reported one property
	// at a time in schema order (the validator itself walks a map, which
	// would make the reported problem vary between runs).
	resolved *jsonschema.Resolved
	props    map[string]*jsonschema.Resolved
}

// newSchemaValidator resolves schema. It panics if it cannot: that is a
// programming error caught by the package's tests, never a runtime input.
func newSchemaValidator(name string, schema *jsonschema.Schema) *schemaValidator {
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tools: resolve schema for %s: %v", name, err))
	}
	props := make(map[string]*jsonschema.Resolved, len(schema.Properties))
	for _, p := range schema.PropertyOrder {
		if props[p], err = schema.Properties[p].CloneSchemas().Resolve(nil); err != nil {
			panic(fmt.Sprintf("tools: resolve schema for %s.%s: %v", name, p, err))
		}
	}
	return &schemaValidator{schema: schema, resolved: resolved, props: props}
}
