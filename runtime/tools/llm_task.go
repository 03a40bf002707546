package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
)

//go:embed llm_task.md
var llmTaskDescription string

// Limits of llm_task.
const (
	maxLLMTaskTokens = 64000
	// maxLLMSchemaBytes bounds the schema put into the prompt.
	maxLLMSchemaBytes = 16 << 10
)

// llmTaskSystem is the system prompt when the call gives none.
const llmTaskSystem = "You do one self-contained task for another agent. Answer with the result only, without preamble."

// LLMTaskOptions configures [NewLLMTask].
type LLMTaskOptions struct {
	// Model and ModelName are the session's model.
	Model     providers.Streamer
	ModelName string
	// Entries are the [providers.models] entry names a call may choose;
	// Named returns the model of one and its model id.
	Entries []string
	Named   func(name string) (providers.Streamer, string, error)
	// AddUsage counts each request's usage in the session.
	AddUsage func(model string, u providers.Usage)
	// MaxOutputChars caps the answer (0 = 30000).
	MaxOutputChars int
}

type llmTaskArgs struct {
	Prompt    string         `json:"prompt"`
	System    string         `json:"system,omitempty"`
	Model     string         `json:"model,omitempty"`
	Schema    map[string]any `json:"schema,omitempty"`
	MaxTokens int            `json:"max_tokens,omitempty"`
}

type llmTask struct{ o LLMTaskOptions }

// NewLLMTask returns llm_task: one request without tools to the session's
// model or a named entry. It is network-class: it sends what the call
// passes to a provider (maybe another one than the session's) and costs
// tokens, so under supervised autonomy it is asked for like web tools.
func NewLLMTask(o LLMTaskOptions) Tool {
	if o.MaxOutputChars <= 0 {
		o.MaxOutputChars = defaultMaxOutput
	}
	t := &llmTask{o: o}
	desc := llmTaskDescription
	adjust := []schemaAdjust{minimum("max_tokens", 1), maximum("max_tokens", maxLLMTaskTokens), anyObject("schema")}
	if len(o.Entries) > 0 && o.Named != nil {
		desc += "`model` (default this session's): " + strings.Join(o.Entries, ", ") + ".\n"
	} else {
		adjust = append(adjust, dropProperty("model"))
	}
	return newTypedTool("llm_task", permissions.ClassNetwork, desc, t.run, adjust...)
}

func (t *llmTask) run(ctx context.Context, a llmTaskArgs) providers.ToolResult {
	if strings.TrimSpace(a.Prompt) == "" {
		return errorResult("prompt must not be empty.")
	}
	model, name := t.o.Model, t.o.ModelName
	if a.Model != "" {
		if t.o.Named == nil {
			return errorResult("No model entries are configured; leave model out to use this session's model.")
		}
		m, id, err := t.o.Named(a.Model)
		if err != nil {
			return errorResult("Model %q: %s", a.Model, err)
		}
		model, name = m, id
	}
	req := providers.Request{Model: name, System: a.System, MaxTokens: a.MaxTokens}
	if strings.TrimSpace(req.System) == "" {
		req.System = llmTaskSystem
	}
	if a.Schema == nil {
		req.Messages = []providers.Message{providers.UserText(a.Prompt)}
		text, stop, err := t.ask(ctx, model, req)
		if err != nil {
			return errorResult("%s", err)
		}
		if stop == providers.StopMaxTokens {
			text += "\n[The answer was cut off at max_tokens.]"
		}
		return textResult(truncateText(text, t.o.MaxOutputChars))
	}
	return t.runSchema(ctx, model, req, a)
}

// runSchema asks for JSON satisfying the call's schema, and once more with
// the validation error when the first answer does not.
func (t *llmTask) runSchema(ctx context.Context, model providers.Streamer, req providers.Request, a llmTaskArgs) providers.ToolResult {
	raw, err := json.Marshal(a.Schema)
	if err != nil {
		return errorResult("schema: %s", err)
	}
	if len(raw) > maxLLMSchemaBytes {
		return errorResult("schema is %d bytes; the limit is %d.", len(raw), maxLLMSchemaBytes)
	}
	if msg := checkSchemaTypes(a.Schema); msg != "" {
		return errorResult("schema is not a usable JSON Schema: %s", msg)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return errorResult("schema is not a JSON Schema: %s", err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return errorResult("schema is not a usable JSON Schema: %s", err)
	}
	prompt := a.Prompt + "\n\nReply with only a JSON value, without code fences or other text, that satisfies this JSON Schema:\n" + string(raw)
	req.Messages = []providers.Message{providers.UserText(prompt)}
	var problem string
	for attempt := 1; attempt <= 2; attempt++ {
		text, _, err := t.ask(ctx, model, req)
		if err != nil {
			return errorResult("%s", err)
		}
		answer, perr := checkJSON(text, resolved)
		if perr == nil {
			return textResult(truncateText(answer, t.o.MaxOutputChars))
		}
		problem = perr.Error()
		req.Messages = append(req.Messages, providers.AssistantText(text),
			providers.UserText("That reply does not satisfy the schema: "+problem+"\nReply again with only the corrected JSON value."))
		if attempt == 2 {
			return errorResult("The answer did not satisfy the schema, also after one retry: %s\nLast answer:\n%s", problem, truncateText(text, t.o.MaxOutputChars/2))
		}
	}
	return errorResult("%s", problem) // not reached
}

// jsonTypes are the type names of JSON Schema.
var jsonTypes = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "string": true, "integer": true}

// checkSchemaTypes finds a "type" keyword naming no JSON type, which the
// validator library accepts and then fails every answer against.
func checkSchemaTypes(v any) string {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			sub := v[k]
			switch k {
			case "enum", "const", "default", "examples":
				continue // values, not schemas
			case "type":
				var names []any
				switch t := sub.(type) {
				case string:
					names = []any{t}
				case []any:
					names = t
				}
				for _, n := range names {
					if s, ok := n.(string); !ok || !jsonTypes[s] {
						return fmt.Sprintf("type %v is not a JSON type (null, boolean, object, array, number, string, integer)", n)
					}
				}
			}
			if msg := checkSchemaTypes(sub); msg != "" {
				return msg
			}
		}
	case []any:
		for _, sub := range v {
			if msg := checkSchemaTypes(sub); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// checkJSON returns the JSON value in an answer (code fences and a leading
// <think> block removed) if it satisfies the schema.
func checkJSON(text string, schema *jsonschema.Resolved) (string, error) {
	s := strings.TrimSpace(text)
	if body, ok := strings.CutPrefix(s, "```"); ok {
		if nl := strings.IndexByte(body, '\n'); nl >= 0 {
			body = body[nl+1:] // drop the fence's language tag
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body), "```"))
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return "", fmt.Errorf("it is not valid JSON (%v)", err)
	}
	if err := schema.Validate(v); err != nil {
		return "", err
	}
	return s, nil
}

// ask sends one request and returns the answer's text (reasoning and
// <think> blocks left out) and stop reason; the usage goes to the session.
func (t *llmTask) ask(ctx context.Context, model providers.Streamer, req providers.Request) (string, providers.StopReason, error) {
	var text strings.Builder
	var usage providers.Usage
	var stop providers.StopReason
	var streamErr error
	answeredBy := req.Model
	for ev, err := range model.Stream(ctx, req) {
		if err != nil {
			streamErr = err
			break
		}
		answeredBy = ev.AnsweredBy(answeredBy)
		switch ev.Type {
		case providers.EventTextDelta:
			text.WriteString(ev.Text)
		case providers.EventUsage:
			if ev.Usage != nil {
				usage.Add(*ev.Usage)
			}
		case providers.EventStop:
			stop = ev.StopReason
		}
	}
	if t.o.AddUsage != nil {
		t.o.AddUsage(answeredBy, usage)
	}
	switch {
	case ctx.Err() != nil:
		return "", stop, errors.New("The request was cancelled.")
	case streamErr != nil:
		return "", stop, fmt.Errorf("The request to the model failed: %v", streamErr)
	}
	answer := stripThinkBlocks(text.String())
	if answer == "" {
		return "", stop, errors.New("The model returned an empty answer.")
	}
	return answer, stop, nil
}

// stripThinkBlocks removes <think>…</think> blocks that some models put in
// their visible text, and an unclosed one at the end.
func stripThinkBlocks(s string) string {
	for {
		start := strings.Index(s, "<think>")
		if start < 0 {
			return strings.TrimSpace(s)
		}
		end := strings.Index(s[start:], "</think>")
		if end < 0 {
			return strings.TrimSpace(s[:start])
		}
		s = s[:start] + s[start+end+len("</think>"):]
	}
}

// truncateText keeps the first two thirds and the last third of a text
// longer than limit characters, with the shared truncation note.
func truncateText(s string, limit int) string {
	h := newHeadTail(limit)
	h.Write([]byte(s))
	return h.String()
}
