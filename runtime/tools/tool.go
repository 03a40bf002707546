package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

// Tool is implemented by every built-in tool.
type Tool interface {
	// Spec returns the name, the description (from the embedded .md) and the
	// JSON Schema of the argument object.
	Spec() providers.ToolSpec
	// Class says what the tool can do, which decides whether it needs approval.
	Class() permissions.Class
	// Run executes one call. Only Content and IsError of the result are set.
	Run(ctx context.Context, args json.RawMessage) providers.ToolResult
}

// Summarizer is implemented by tools that have something worth showing in an
// approval prompt: the command of shell, the path of file_write and file_edit.
type Summarizer interface {
	// Summary returns a one-line description of the call, or "" when the
	// arguments are invalid.
	Summary(args json.RawMessage) string
}

// typedTool adapts a function over a typed argument struct to [Tool].
type typedTool[T any] struct {
	spec  providers.ToolSpec
	class permissions.Class
	// schema is the whole argument schema; props holds each property's
	// schema resolved on its own, so that problems are reported one property
	// at a time in schema order (the validator itself walks a map, which
	// would make the reported problem vary between runs).
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	props    map[string]*jsonschema.Resolved
	run      func(ctx context.Context, args T) providers.ToolResult
}

// newTypedTool builds a tool whose argument schema is generated from T (field
// descriptions come from `jsonschema:"..."` tags; unknown properties are
// refused). adjust, when given, refines the generated schema (bounds, enums)
// before it is resolved. It panics if the schema cannot be built: that is a
// programming error caught by the package's tests, never a runtime input.
func newTypedTool[T any](name string, class permissions.Class, desc string,
	run func(ctx context.Context, args T) providers.ToolResult, adjust ...func(*jsonschema.Schema)) *typedTool[T] {
	schema, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("tools: schema for %s: %v", name, err))
	}
	dropNullTypes(schema)
	for _, f := range adjust {
		f(schema)
	}
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
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("tools: marshal schema for %s: %v", name, err))
	}
	return &typedTool[T]{
		spec: providers.ToolSpec{
			Name:        name,
			Description: strings.TrimSpace(desc),
			Schema:      raw,
		},
		class:    class,
		schema:   schema,
		resolved: resolved,
		props:    props,
		run:      run,
	}
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

// Spec implements [Tool].
func (t *typedTool[T]) Spec() providers.ToolSpec {
	spec := t.spec
	spec.Schema = bytes.Clone(t.spec.Schema)
	return spec
}

// Class implements [Tool].
func (t *typedTool[T]) Class() permissions.Class { return t.class }

// Run implements [Tool]: it validates args against the schema, decodes them
// into T and runs the tool, turning a panic into an error result.
func (t *typedTool[T]) Run(ctx context.Context, args json.RawMessage) (res providers.ToolResult) {
	defer func() {
		if r := recover(); r != nil {
			res = errorResult("Internal error in %s: %v", t.spec.Name, r)
		}
	}()
	v, err := t.decode(args)
	if err != nil {
		return errorResult("Invalid arguments for %s: %s", t.spec.Name, err)
	}
	return t.run(ctx, v)
}

// decode validates args and unmarshals them into T. Empty arguments and JSON
// null mean {}; a property set to null counts as absent.
func (t *typedTool[T]) decode(args json.RawMessage) (T, error) {
	var zero T
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	var instance any
	if err := json.Unmarshal(args, &instance); err != nil {
		return zero, err
	}
	if instance == nil {
		instance = map[string]any{}
	}
	obj, ok := instance.(map[string]any)
	if !ok {
		return zero, fmt.Errorf("got %s, want an object", jsonType(instance))
	}
	for k, v := range obj {
		if v == nil {
			delete(obj, k)
		}
	}
	if err := t.validate(obj); err != nil {
		return zero, err
	}
	// Re-encode the validated value so that numbers such as 5.0 decode into
	// integer fields.
	clean, err := json.Marshal(obj)
	if err != nil {
		return zero, err
	}
	var v T
	if err := json.Unmarshal(clean, &v); err != nil {
		return zero, errors.New(describeDecodeError(err))
	}
	return v, nil
}

// validate checks obj against the schema and reports the first problem in a
// fixed order: unknown properties, missing required ones, then each
// property's value in schema order.
func (t *typedTool[T]) validate(obj map[string]any) error {
	var unknown []string
	for k := range obj {
		if _, ok := t.props[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		noun := "property"
		if len(unknown) > 1 {
			noun = "properties"
		}
		return fmt.Errorf("unknown %s %s (allowed: %s)", noun, quoteAll(unknown), strings.Join(t.schema.PropertyOrder, ", "))
	}
	var missing []string
	for _, r := range t.schema.Required {
		if _, ok := obj[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) == 1 {
		return fmt.Errorf("missing required property %s", quoteAll(missing))
	} else if len(missing) > 1 {
		return fmt.Errorf("missing required properties %s", quoteAll(missing))
	}
	for _, p := range t.schema.PropertyOrder {
		if v, ok := obj[p]; ok {
			if err := t.props[p].Validate(v); err != nil {
				return errors.New(describeSchemaError(err, p))
			}
		}
	}
	// Whole-object keywords a future schema might add.
	if err := t.resolved.Validate(obj); err != nil {
		return errors.New(describeSchemaError(err, ""))
	}
	return nil
}

// summaryTool is a typedTool that also implements [Summarizer] and
// [Timeouter].
type summaryTool[T any] struct {
	*typedTool[T]
	summary func(T) string
	// timeout, when set, reports the time a call asks for.
	timeout func(T) time.Duration
}

// A Timeouter reports how long a call may run when the call itself asks for
// a time (shell's timeout_secs), so the agent's per-call limit can make room.
type Timeouter interface {
	Timeout(args json.RawMessage) time.Duration
}

// Timeout implements [Timeouter]; 0 when the call asks for nothing.
func (t *summaryTool[T]) Timeout(args json.RawMessage) time.Duration {
	if t.timeout == nil {
		return 0
	}
	v, err := t.decode(args)
	if err != nil {
		return 0
	}
	return t.timeout(v)
}

// withSummary adds a [Summarizer] to t.
func withSummary[T any](t *typedTool[T], summary func(T) string) Tool {
	return &summaryTool[T]{typedTool: t, summary: summary}
}

// Summary implements [Summarizer].
func (t *summaryTool[T]) Summary(args json.RawMessage) string {
	v, err := t.decode(args)
	if err != nil {
		return ""
	}
	return t.summary(v)
}

// describeSchemaError turns a jsonschema-go validation error of property
// prop, whose text is a chain like `validating root: validating /items:
// type: 1 has type "integer", want "string"`, into `property "tags[]": got
// integer, want string`.
func describeSchemaError(err error, prop string) string {
	msg := err.Error()
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		loc, tail, ok := strings.Cut(rest, ": ")
		if !ok {
			break
		}
		if suffix := locationSuffix(loc); suffix != "" {
			prop += suffix
		}
		msg = tail
	}
	kind, detail, _ := strings.Cut(msg, ": ")
	switch kind {
	case "type":
		if i := strings.LastIndex(detail, ` has type "`); i >= 0 {
			got, want, _ := strings.Cut(detail[i+len(` has type "`):], `", want `)
			msg = fmt.Sprintf("got %s, want %s", got, strings.Trim(want, `"`))
		}
	case "minimum", "maximum":
		bound := strings.TrimSuffix(detail[strings.LastIndex(detail, " than ")+len(" than "):], ".000000")
		if kind == "minimum" {
			msg = "must be at least " + bound
		} else {
			msg = "must be at most " + bound
		}
	case "enum":
		values := detail[strings.LastIndex(detail, "any of: ")+len("any of: "):]
		values = strings.TrimSuffix(strings.TrimPrefix(values, "["), "]")
		msg = "must be one of " + strings.Join(strings.Fields(values), ", ")
	}
	if prop != "" {
		return fmt.Sprintf("property %q: %s", prop, msg)
	}
	return msg
}

// locationSuffix turns the part of a schema location below a property, such
// as /items or /properties/name, into "[]" or ".name".
func locationSuffix(loc string) string {
	var b strings.Builder
	for seg := range strings.SplitSeq(loc, "/") {
		switch seg {
		case "", "root", "properties":
		case "items":
			b.WriteString("[]")
		default:
			b.WriteString("." + seg)
		}
	}
	return b.String()
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "object"
}

// describeDecodeError rewrites encoding/json type errors, which name Go
// types, in terms of the JSON property.
func describeDecodeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("property %q: %s is out of range", te.Field, te.Value)
	}
	return err.Error()
}

// errorResult returns an error result with a formatted message.
func errorResult(format string, args ...any) providers.ToolResult {
	return providers.ToolResult{Content: fmt.Sprintf(format, args...), IsError: true}
}

// textResult returns a successful result.
func textResult(s string) providers.ToolResult {
	return providers.ToolResult{Content: s}
}
