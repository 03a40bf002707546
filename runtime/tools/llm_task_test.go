package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// usageLog collects the usage llm_task reports.
type usageLog struct {
	mu  sync.Mutex
	got []string
}

func (u *usageLog) add(model string, us providers.Usage) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.got = append(u.got, fmt.Sprintf("%s:%d/%d", model, us.InputTokens, us.OutputTokens))
}

func usage(in, out int) *providers.Usage { return &providers.Usage{InputTokens: in, OutputTokens: out} }

func newLLMTaskTool(m *providertest.Model, u *usageLog, named map[string]*providertest.Model) Tool {
	o := LLMTaskOptions{Model: m, ModelName: "main-model", AddUsage: u.add}
	if named != nil {
		for n := range named {
			o.Entries = append(o.Entries, n)
		}
		o.Named = func(name string) (providers.Streamer, string, error) {
			if nm, ok := named[name]; ok {
				return nm, name + "-id", nil
			}
			return nil, "", errors.New("no such model entry")
		}
	}
	return NewLLMTask(o)
}

const personSchema = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name","age"]}`

func TestLLMTaskPlain(t *testing.T) {
	t.Parallel()
	m := providertest.NewModel(providertest.Response{Text: "<think>hmm</think>A short summary.", Usage: usage(120, 8)})
	u := &usageLog{}
	tl := newLLMTaskTool(m, u, nil)
	if tl.Class() != permissions.ClassNetwork {
		t.Errorf("class %s, want network", tl.Class())
	}
	r := call(t, tl, `{"prompt":"Summarise: a long text","system":"Be brief.","max_tokens":50}`)
	if r.IsError || r.Content != "A short summary." {
		t.Fatalf("result = %+v", r)
	}
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	req := reqs[0]
	if req.System != "Be brief." || len(req.Tools) != 0 || req.Model != "main-model" || req.MaxTokens != 50 {
		t.Errorf("request: system %q, %d tools, model %q, max_tokens %d", req.System, len(req.Tools), req.Model, req.MaxTokens)
	}
	if len(req.Messages) != 1 || req.Messages[0].Text() != "Summarise: a long text" {
		t.Errorf("messages = %+v", req.Messages)
	}
	if diff := cmp.Diff([]string{"main-model:120/8"}, u.got); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	// Without a system prompt the default one is sent.
	m.Append(providertest.Response{Text: "ok"})
	call(t, tl, `{"prompt":"x"}`)
	if got := m.Requests()[1].System; got != llmTaskSystem {
		t.Errorf("default system = %q", got)
	}
}

func TestLLMTaskSchemaPass(t *testing.T) {
	t.Parallel()
	m := providertest.NewModel(providertest.Response{Text: "```json\n{\"name\": \"Ada\", \"age\": 36}\n```", Usage: usage(100, 10)})
	u := &usageLog{}
	r := call(t, newLLMTaskTool(m, u, nil), `{"prompt":"Extract the person: Ada, 36.","schema":`+personSchema+`}`)
	if r.IsError || r.Content != `{"name": "Ada", "age": 36}` {
		t.Fatalf("result = %+v", r)
	}
	msg := m.Requests()[0].Messages[0].Text()
	if !strings.HasPrefix(msg, "Extract the person: Ada, 36.\n\nReply with only a JSON value") || !strings.Contains(msg, `"required":["name","age"]`) {
		t.Errorf("prompt does not ask for the schema:\n%s", msg)
	}
	if len(u.got) != 1 {
		t.Errorf("usage = %v", u.got)
	}
}

func TestLLMTaskSchemaRetry(t *testing.T) {
	t.Parallel()
	m := providertest.NewModel(
		providertest.Response{Text: `{"name": "Ada"}`, Usage: usage(100, 5)},
		providertest.Response{Text: `{"name": "Ada", "age": 36}`, Usage: usage(130, 9)},
	)
	u := &usageLog{}
	r := call(t, newLLMTaskTool(m, u, nil), `{"prompt":"Extract.","schema":`+personSchema+`}`)
	if r.IsError || r.Content != `{"name": "Ada", "age": 36}` {
		t.Fatalf("result = %+v", r)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	retry := reqs[1].Messages
	if len(retry) != 3 || retry[1].Role != providers.RoleAssistant || retry[1].Text() != `{"name": "Ada"}` {
		t.Fatalf("retry messages = %+v", retry)
	}
	if fix := retry[2].Text(); !strings.HasPrefix(fix, "That reply does not satisfy the schema: ") || !strings.Contains(fix, "age") {
		t.Errorf("retry does not give the validation error: %q", fix)
	}
	if diff := cmp.Diff([]string{"main-model:100/5", "main-model:130/9"}, u.got); diff != "" {
		t.Errorf("both requests' usage is counted (-want +got):\n%s", diff)
	}
}

func TestLLMTaskSchemaFailsTwice(t *testing.T) {
	t.Parallel()
	m := providertest.NewModel(
		providertest.Response{Text: "Ada is 36.", Usage: usage(100, 5)},
		providertest.Response{Text: `{"name": "Ada", "age": "36"}`, Usage: usage(120, 7)},
	)
	u := &usageLog{}
	r := call(t, newLLMTaskTool(m, u, nil), `{"prompt":"Extract.","schema":`+personSchema+`}`)
	if !r.IsError || !strings.HasPrefix(r.Content, "The answer did not satisfy the schema, also after one retry: ") || !strings.Contains(r.Content, "Last answer:\n{\"name\": \"Ada\", \"age\": \"36\"}") {
		t.Errorf("result = %+v", r)
	}
	if first := m.Requests()[1].Messages[2].Text(); !strings.Contains(first, "not valid JSON") {
		t.Errorf("first problem = %q", first)
	}
	if len(m.Requests()) != 2 || len(u.got) != 2 {
		t.Errorf("%d requests, usage %v; want exactly one retry", len(m.Requests()), u.got)
	}
}

func TestLLMTaskNamedModel(t *testing.T) {
	t.Parallel()
	main := providertest.NewModel()
	cheap := providertest.NewModel(providertest.Response{Text: "cheap answer", Usage: usage(10, 2)})
	u := &usageLog{}
	tl := newLLMTaskTool(main, u, map[string]*providertest.Model{"cheap": cheap})
	if !strings.Contains(tl.Spec().Description, "`model` (default this session's): cheap.") || !strings.Contains(string(tl.Spec().Schema), `"model"`) {
		t.Errorf("entries not offered:\n%s\n%s", tl.Spec().Description, tl.Spec().Schema)
	}
	r := call(t, tl, `{"prompt":"x","model":"cheap"}`)
	if r.IsError || r.Content != "cheap answer" || len(main.Requests()) != 0 || cheap.Requests()[0].Model != "cheap-id" {
		t.Errorf("result %+v; main got %d requests", r, len(main.Requests()))
	}
	if diff := cmp.Diff([]string{"cheap-id:10/2"}, u.got); diff != "" {
		t.Errorf("usage under the entry's model (-want +got):\n%s", diff)
	}
	if r := call(t, tl, `{"prompt":"x","model":"gold"}`); !r.IsError || !strings.Contains(r.Content, `Model "gold": no such model entry`) {
		t.Errorf("unknown entry = %+v", r)
	}
	// With no entries, the property is not offered at all.
	bare := newLLMTaskTool(main, u, nil)
	if strings.Contains(string(bare.Spec().Schema), `"model"`) {
		t.Errorf("model offered without entries: %s", bare.Spec().Schema)
	}
	if r := call(t, bare, `{"prompt":"x","model":"cheap"}`); !r.IsError || !strings.Contains(r.Content, `unknown property "model"`) {
		t.Errorf("model without entries = %+v", r)
	}
}

func TestLLMTaskRefusals(t *testing.T) {
	t.Parallel()
	m := providertest.NewModel(providertest.Response{Status: 400, Error: "bad request"}, providertest.Response{Text: "   "})
	u := &usageLog{}
	tl := newLLMTaskTool(m, u, nil)
	for _, tt := range []struct{ args, want string }{
		{`{"prompt":"  "}`, "prompt must not be empty."},
		{`{}`, `missing required property "prompt"`},
		{`{"prompt":"x","max_tokens":0}`, `must be at least 1`},
		{`{"prompt":"x","schema":{"type":"nonsense"}}`, "schema is not a"},
		{`{"prompt":"x","schema":{"$ref":"https://example.com/s.json"}}`, "schema is not a usable JSON Schema"},
		{`{"prompt":"x","schema":"{}"}`, `property "schema": got string, want object`},
		{`{"prompt":"x"}`, "The request to the model failed: "},
		{`{"prompt":"x"}`, "The model returned an empty answer."},
	} {
		r := call(t, tl, tt.args)
		if !r.IsError || !strings.Contains(r.Content, tt.want) {
			t.Errorf("llm_task %s = %+v, want an error containing %q", tt.args, r, tt.want)
		}
	}
	if n := len(m.Requests()); n != 2 {
		t.Errorf("%d requests; refused calls must not reach the model", n)
	}
}

// FuzzLLMTaskAnswer: no model answer or call schema panics the checks, and
// an accepted answer is valid JSON.
func FuzzLLMTaskAnswer(f *testing.F) {
	f.Add("```json\n{\"name\": \"Ada\", \"age\": 36}\n```", personSchema)
	f.Add(`{"name": "Ada"}`, `{"type":["object","nonsense"]}`)
	f.Add("```", `{"properties":{"type":{"type":"string"}},"enum":[{"type":"x"}]}`)
	f.Fuzz(func(t *testing.T, answer, schemaText string) {
		var raw any
		if json.Unmarshal([]byte(schemaText), &raw) != nil || checkSchemaTypes(raw) != "" {
			return
		}
		var s jsonschema.Schema
		if json.Unmarshal([]byte(schemaText), &s) != nil {
			return
		}
		resolved, err := s.Resolve(nil)
		if err != nil {
			return
		}
		got, err := checkJSON(answer, resolved)
		if err == nil && !json.Valid([]byte(got)) {
			t.Fatalf("checkJSON(%q) accepted invalid JSON %q", answer, got)
		}
	})
}
