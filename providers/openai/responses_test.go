package openai_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/internal/adaptertest"
	"github.com/clawseed/clawseed/providers/openai"
)

// respTextEvent is a Responses stream's text delta "x".
const respTextEvent = `event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"x","sequence_number":3}

`

// respWire describes the Responses adapter to the shared tests.
var respWire = adaptertest.Wire{
	New:       newAdapter(openai.WireResponses),
	Model:     "gpt-5",
	BasePath:  "/v1",
	Endpoint:  "/responses",
	KeyHeader: "Authorization",
	KeyPrefix: "Bearer ",
	Start: `event: response.created
data: {"type":"response.created","response":{"id":"resp_1","status":"in_progress"},"sequence_number":0}

`,
	Text: respTextEvent,
	End: `event: response.completed
data: {"type":"response.completed","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":5,"output_tokens":1}},"sequence_number":9}

`,
	Forbidden: []string{"github.com/openai/openai-go/v3", "github.com/openai/openai-go/v3/option",
		"github.com/openai/openai-go/v3/responses", "github.com/anthropics/anthropic-sdk-go"},
	GeneratedID: regexp.MustCompile(`call_[A-Z2-7]{16}`),
	Placeholder: "call_<generated>",
	GoldenDir:   "testdata/responses",
}

func TestResponsesTransport(t *testing.T) {
	t.Parallel()
	adaptertest.RunTransportTests(t, respWire)
}

// TestResponsesGolden runs every testdata/responses/*.txtar case, as
// TestGolden does the chat wire's.
func TestResponsesGolden(t *testing.T) {
	t.Parallel()
	adaptertest.RunGolden(t, respWire, *update)
}

// TestResponsesEndpointURL: the Responses wire posts to {base}/responses,
// whichever endpoint a base URL copied from somewhere ends with.
func TestResponsesEndpointURL(t *testing.T) {
	t.Parallel()
	for suffix, want := range map[string]string{
		"": "/responses", "/v1": "/v1/responses", "/v1/": "/v1/responses", "/v1/responses": "/v1/responses",
		"/v1/chat/completions": "/v1/responses",
	} {
		url, got := adaptertest.RecordingServer(t, respWire.Answer())
		p := openai.New(openai.Config{BaseURL: url + suffix, Wire: openai.WireResponses})
		if _, err := adaptertest.Collect(p.Stream(t.Context(), userReq("hi"))); err != nil {
			t.Fatal(err)
		}
		if g := <-got; g.Method+" "+g.RequestURI != "POST "+want {
			t.Errorf("base %q: request %q, want %q", suffix, g.Method+" "+g.RequestURI, "POST "+want)
		}
	}
}

// BenchmarkResponsesEncode encodes the long session of the chat wire's
// and Anthropic's benchmarks on the Responses wire.
func BenchmarkResponsesEncode(b *testing.B) { adaptertest.BenchmarkEncode(b, respWire) }

// respBenchStream is the chat wire's long answer (benchStream) as
// Responses events: 300 reasoning summary deltas and the encrypted item,
// 2,000 text deltas, two parallel function calls whose arguments arrive in
// 20 pieces each, and response.completed with the usage.
func respBenchStream() []byte {
	var b bytes.Buffer
	event := func(typ, rest string) {
		fmt.Fprintf(&b, "event: %s\ndata: {\"type\":%q,%s}\n\n", typ, typ, rest)
	}
	event("response.created", `"response":{"id":"resp_bench","status":"in_progress","output":[]},"sequence_number":0`)
	event("response.output_item.added", `"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}`)
	for range 300 {
		event("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Let me consider "`)
	}
	event("response.output_item.done", `"output_index":0,"item":{"id":"rs_1","type":"reasoning","encrypted_content":"`+strings.Repeat("gAAAAB", 400)+`","summary":[{"type":"summary_text","text":"Let me consider"}]}`)
	for range 2000 {
		event("response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"word \"quoted\" ","logprobs":[]`)
	}
	for idx := range 2 {
		item := fmt.Sprintf("fc_%d", idx)
		event("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":{"id":%q,"type":"function_call","arguments":"","call_id":"call_%d","name":"file_write"}`, idx+2, item, idx))
		event("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"delta":"{\"path\":\"a.go\",\"content\":\""`, item, idx+2))
		for range 18 {
			event("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"delta":"package main\\n"`, item, idx+2))
		}
		event("response.function_call_arguments.delta", fmt.Sprintf(`"item_id":%q,"output_index":%d,"delta":"\"}"`, item, idx+2))
		event("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":{"id":%q,"type":"function_call","arguments":"{\"path\":\"a.go\",\"content\":\"%s\"}","call_id":"call_%d","name":"file_write"}`, idx+2, item, strings.Repeat(`package main\\n`, 18), idx))
	}
	event("response.completed", `"response":{"id":"resp_bench","status":"completed","usage":{"input_tokens":49020,"input_tokens_details":{"cached_tokens":48000},"output_tokens":6100,"output_tokens_details":{"reasoning_tokens":1200}}}`)
	return b.Bytes()
}

// BenchmarkResponsesDecode decodes respBenchStream.
func BenchmarkResponsesDecode(b *testing.B) {
	adaptertest.BenchmarkDecode(b, respWire, respBenchStream())
}

// TestResponsesReasoningRefused: an endpoint that refuses an echoed
// reasoning item (it cannot decrypt it any more) or the include of
// encrypted reasoning gets the request again without it, once; the
// provider remembers, so the next request leaves it out at once.
func TestResponsesReasoningRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, refusal, gone string
	}{
		{"item", "The encrypted content for item rs_1 could not be verified.", `"encrypted_content":"ENC"`},
		{"include", "Encrypted content is not supported with this model.", `"include"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var bodies []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				bodies = append(bodies, string(b))
				mu.Unlock()
				if strings.Contains(string(b), tt.gone) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","param":null,"code":null}}`, tt.refusal)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, respWire.Answer())
			}))
			defer srv.Close()
			p := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Wire: openai.WireResponses})
			req := userReq("hi")
			req.Model = "gpt-5"
			req.Messages = append(req.Messages, providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{
				{Type: providers.PartReasoning, Item: &providers.ReasoningItem{ID: "rs_1", Encrypted: "ENC", Origin: strings.ToLower(srv.URL)}},
				{Type: providers.PartText, Text: "yes"}}}, providers.UserText("more"))
			for i := range 2 {
				events, err := adaptertest.Collect(p.Stream(t.Context(), req))
				if err != nil || adaptertest.Text(events) != "x" {
					t.Fatalf("request %d: %v, %+v", i+1, err, events)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(bodies) != 3 || !strings.Contains(bodies[0], tt.gone) || strings.Contains(bodies[1], tt.gone) || strings.Contains(bodies[2], tt.gone) {
				t.Errorf("%d requests, want the refused one, its retry and the next without it:\n%s", len(bodies), strings.Join(bodies, "\n"))
			}
		})
	}
}
