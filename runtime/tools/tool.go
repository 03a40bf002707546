package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
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
	// schema is the argument schema as the model receives it, from
	// schemas_gen.go when an entry matches (see schema.go).
	schema string
	// key is the schema's key in schemas_gen.go; generated says it was
	// found there; adjust is kept to reflect the schema on first use.
	key       string
	generated bool
	adjust    []schemaAdjust
	// validator is built on first use: reflecting and resolving the schemas
	// of every tool would delay the first request of every start.
	validator func() *schemaValidator
	run       func(ctx context.Context, args T) providers.ToolResult
	// subject, when set, says what a call does for permission rules
	// (the files it reads, the URL it requests, the command it runs).
	subject func(T) permissions.Subject
}

// PermissionSubject implements the agent's permission subject: what the
// call does as permission rules see it, the zero Subject when the tool
// says nothing more than its name and summary or the arguments do not
// decode. Paths are as the call names them; the agent resolves them.
func (t *typedTool[T]) PermissionSubject(args json.RawMessage) permissions.Subject {
	if t.subject == nil {
		return permissions.Subject{}
	}
	v, err := t.decode(args)
	if err != nil {
		return permissions.Subject{}
	}
	return t.subject(v)
}

// newTypedTool builds a tool whose argument schema is generated from T (field
// descriptions come from `jsonschema:"..."` tags; unknown properties are
// refused). adjust, when given, refines the generated schema (bounds, enums)
// before it is resolved. The schema the model sees comes from
// schemas_gen.go when it has the entry, and reflection only runs on the
// first call (see schema.go). It panics if the schema cannot be built: that
// is a programming error caught by the package's tests, never a runtime
// input.
func newTypedTool[T any](name string, class permissions.Class, desc string,
	run func(ctx context.Context, args T) providers.ToolResult, adjust ...schemaAdjust) *typedTool[T] {
	t := &typedTool[T]{
		spec:   providers.ToolSpec{Name: name, Description: strings.TrimSpace(desc)},
		class:  class,
		key:    schemaKey[T](name, adjust),
		adjust: adjust,
		run:    run,
	}
	if raw, ok := lookupSchema(t.key); ok {
		t.useGenerated(raw)
		return t
	}
	schema := t.mustReflect()
	raw, err := marshalSchema(schema)
	if err != nil {
		panic(fmt.Sprintf("tools: marshal schema for %s: %v", name, err))
	}
	t.schema = raw
	t.validator = sync.OnceValue(func() *schemaValidator { return newSchemaValidator(name, schema) })
	return t
}

// useGenerated makes raw, a schema from schemas_gen.go, the one the model
// sees, and defers reflecting the validator's schema to the first call.
func (t *typedTool[T]) useGenerated(raw string) {
	t.schema, t.generated = raw, true
	t.validator = sync.OnceValue(func() *schemaValidator { return newSchemaValidator(t.spec.Name, t.mustReflect()) })
}

// mustReflect reflects the adjusted schema of T.
func (t *typedTool[T]) mustReflect() *jsonschema.Schema {
	schema, err := reflectSchema[T](t.adjust)
	if err != nil {
		panic(fmt.Sprintf("tools: schema for %s: %v", t.spec.Name, err))
	}
	return schema
}

// schemaSource reports where t's schema came from and reflects it anew,
// for TestGeneratedSchemas.
func (t *typedTool[T]) schemaSource() (key string, generated bool, reflected func() (string, error)) {
	return t.key, t.generated, func() (string, error) {
		schema, err := reflectSchema[T](t.adjust)
		if err != nil {
			return "", err
		}
		return marshalSchema(schema)
	}
}

// Spec implements [Tool].
func (t *typedTool[T]) Spec() providers.ToolSpec {
	spec := t.spec
	spec.Schema = json.RawMessage(t.schema)
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
	v := t.validator()
	var unknown []string
	for k := range obj {
		if _, ok := v.props[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		noun := "property"
		if len(unknown) > 1 {
			noun = "properties"
		}
		return fmt.Errorf("unknown %s %s (allowed: %s)", noun, quoteAll(unknown), strings.Join(v.schema.PropertyOrder, ", "))
	}
	var missing []string
	for _, r := range v.schema.Required {
		if _, ok := obj[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) == 1 {
		return fmt.Errorf("missing required property %s", quoteAll(missing))
	} else if len(missing) > 1 {
		return fmt.Errorf("missing required properties %s", quoteAll(missing))
	}
	for _, p := range v.schema.PropertyOrder {
		if val, ok := obj[p]; ok {
			if err := v.props[p].Validate(val); err != nil {
				return errors.New(describeSchemaError(err, p))
			}
		}
	}
	// Whole-object keywords a future schema might add.
	if err := v.resolved.Validate(obj); err != nil {
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
