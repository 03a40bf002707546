package openai_test

import (
	"regexp"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/internal/adaptertest"
	"github.com/clawseed/clawseed/providers/openai"
)

func userReq(text string) providers.Request {
	return providers.Request{Model: "m", Messages: []providers.Message{providers.UserText(text)}}
}

const textChunk = `data: {"id":"c","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}` + "\n\n"

// wire describes the Chat Completions adapter to the shared tests.
var wire = adaptertest.Wire{
	// openai.Config has adaptertest.Config's fields.
	New:       newAdapter(openai.WireChat),
	Model:     "gpt-4o",
	BasePath:  "/v1",
	Endpoint:  "/chat/completions",
	KeyHeader: "Authorization",
	KeyPrefix: "Bearer ",
	Text:      textChunk,
	End:       "data: [DONE]\n\n",
	Forbidden: []string{"github.com/openai/openai-go/v3", "github.com/openai/openai-go/v3/option",
		"github.com/openai/openai-go/v3/responses", "github.com/anthropics/anthropic-sdk-go"},
	GeneratedID: regexp.MustCompile(`call_[A-Z2-7]{16}`),
	Placeholder: "call_<generated>",
}

// newAdapter returns a Wire's New for the API w.
func newAdapter(w openai.Wire) func(c adaptertest.Config) adaptertest.Adapter {
	return func(c adaptertest.Config) adaptertest.Adapter {
		return openai.New(openai.Config{Name: c.Name, BaseURL: c.BaseURL, APIKey: c.APIKey, Model: c.Model,
			MaxTokens: c.MaxTokens, ExtraHeaders: c.ExtraHeaders, Timeout: c.Timeout,
			ReasoningEffort: c.ReasoningEffort, HTTPClient: c.HTTPClient, Wire: w})
	}
}

func TestTransport(t *testing.T) {
	t.Parallel()
	adaptertest.RunTransportTests(t, wire)
}

// TestHeaders checks the bearer key, the extra headers, the SSE Accept
// header and the User-Agent, that no SDK telemetry header is sent, and that
// OPENAI_* environment variables never leak into a configured provider (the
// SDK's NewClient would read them).
func TestHeaders(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/wrong")
	t.Setenv("OPENAI_ORG_ID", "org-env")

	tests := []struct {
		name   string
		apiKey string
		want   map[string]string
	}{
		{"key", "sk-cfg", map[string]string{"Authorization": "Bearer sk-cfg", "X-Title": "clawseed", "Accept": "text/event-stream",
			"Content-Type": "application/json", "User-Agent": "clawseed", "Openai-Organization": "", "X-Stainless-Lang": "", "X-Stainless-Retry-Count": ""}},
		{"no key", "", map[string]string{"Authorization": "", "X-Title": "clawseed", "Openai-Organization": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, got := adaptertest.RecordingServer(t, "data: [DONE]\n\n")
			p := openai.New(openai.Config{BaseURL: url + "/v1/chat/completions", APIKey: tt.apiKey,
				ExtraHeaders: map[string]string{"X-Title": "clawseed"}})
			if _, err := adaptertest.Collect(p.Stream(t.Context(), userReq("hi"))); err != nil {
				t.Fatal(err)
			}
			h := (<-got).Header
			for k, want := range tt.want {
				if h.Get(k) != want {
					t.Errorf("header %s = %q, want %q", k, h.Get(k), want)
				}
			}
		})
	}
}

func TestMalformedChunk(t *testing.T) {
	t.Parallel()
	url, _ := adaptertest.RecordingServer(t, textChunk+"data: {not json\n\n")
	events, err := adaptertest.Collect(openai.New(openai.Config{BaseURL: url}).Stream(t.Context(), userReq("hi")))
	if providers.KindOf(err) != providers.KindTransient || len(events) != 1 {
		t.Fatalf("events %+v, err %v; want one delta then a transient error", events, err)
	}
}

func TestStopEventsAfterToolCalls(t *testing.T) {
	t.Parallel()
	serve := func(delta string) []providers.Event {
		url, _ := adaptertest.RecordingServer(t, `data: {"choices":[{"index":0,"delta":{"tool_calls":[`+delta+`]},"finish_reason":"tool_calls"}]}`+"\n\ndata: [DONE]\n\n")
		events, err := adaptertest.Collect(openai.New(openai.Config{BaseURL: url}).Stream(t.Context(), userReq("hi")))
		if err != nil {
			t.Fatal(err)
		}
		return events
	}
	// An empty delta is no call, and then "tool_calls" must not claim tool use.
	want := []providers.Event{{Type: providers.EventStop, StopReason: providers.StopEndTurn}}
	if diff := gocmp.Diff(want, serve(`{"index":0,"function":{}}`)); diff != "" {
		t.Errorf("empty delta: events (-want +got):\n%s", diff)
	}
	// A call without a name is still a call: the agent answers it with an
	// error the model can read, instead of ending the turn in silence.
	events := serve(`{"index":0,"function":{"arguments":"{}"}}`)
	if len(events) != 2 || events[0].ToolCall == nil || events[0].ToolCall.Name != "" || events[0].ToolCall.ID == "" || events[1].StopReason != providers.StopToolUse {
		t.Errorf("nameless call: events %+v", events)
	}
}

// A call the model sent without a name is echoed under a placeholder: the
// API refuses an empty function name, which would fail every later request.
func TestEncodeUnnamedCall(t *testing.T) {
	t.Parallel()
	req := userReq("hi")
	req.Messages = append(req.Messages,
		providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{{Type: providers.PartToolCall, ToolCall: &providers.ToolCall{ID: "c1", Args: "{}"}}}},
		providers.Message{Role: providers.RoleUser, Parts: []providers.Part{{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: "c1", Content: `Unknown tool: ""`, IsError: true}}}},
	)
	body, err := openai.New(openai.Config{}).EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"function":{"arguments":"{}","name":"unnamed_tool"}`) {
		t.Errorf("body: %s", body)
	}
}

// prompt_cache_key (the session id) goes to OpenAI only: compatible servers
// may reject a field they do not know.
func TestPromptCacheKey(t *testing.T) {
	t.Parallel()
	req := userReq("hi")
	req.CacheKey = "20261123-abc"
	for base, want := range map[string]bool{"https://api.openai.com/v1": true, "http://localhost:8000/v1": false} {
		body, err := openai.New(openai.Config{BaseURL: base}).EncodeRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(body), `"prompt_cache_key":"20261123-abc"`); got != want {
			t.Errorf("%s: prompt_cache_key sent = %v, want %v: %s", base, got, want, body)
		}
	}
}

// Thinking blocks from Anthropic (signed or redacted) are not echoed as
// reasoning_content after /model switched to an OpenAI-wire model; the
// wire's own reasoning is.
func TestForeignReasoningDropped(t *testing.T) {
	t.Parallel()
	req := userReq("hi")
	req.Messages = append(req.Messages,
		providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{
			{Type: providers.PartReasoning, Text: "claude thought", Signature: "sig"},
			{Type: providers.PartReasoning, Redacted: "opaque"},
			{Type: providers.PartReasoning, Text: "deepseek thought"},
			{Type: providers.PartText, Text: "answer"},
		}},
		providers.UserText("next"))
	body, err := openai.New(openai.Config{}).EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(body); strings.Contains(s, "claude thought") || strings.Contains(s, "opaque") || !strings.Contains(s, `"reasoning_content":"deepseek thought"`) {
		t.Errorf("body: %s", body)
	}
}
