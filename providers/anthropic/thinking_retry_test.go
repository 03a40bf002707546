package anthropic_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/anthropic"
)

// A model that refuses echoed thinking blocks (the system prompt changed
// before them: a skill was activated) gets the request again without them,
// once, and the turn goes on.
func TestRetryWithoutThinking(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		n := len(bodies)
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: thinking blocks cannot be modified"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}\n\n"+
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"+
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n"+
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"+
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n"+
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}))
	defer srv.Close()
	req := providers.Request{Model: "claude-sonnet-4-5", System: "sys", Messages: []providers.Message{
		providers.UserText("one"),
		{Role: providers.RoleAssistant, Parts: []providers.Part{{Type: providers.PartReasoning, Text: "THOUGHT", Signature: "sig"}, {Type: providers.PartText, Text: "answer"}}},
		providers.UserText("two"),
	}}
	var text strings.Builder
	for ev, err := range anthropic.New(anthropic.Config{BaseURL: srv.URL}).Stream(t.Context(), req) {
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(ev.Text)
	}
	mu.Lock()
	defer mu.Unlock()
	if text.String() != "ok" || len(bodies) != 2 {
		t.Fatalf("text %q after %d requests", text.String(), len(bodies))
	}
	if !strings.Contains(bodies[0], "THOUGHT") || strings.Contains(bodies[1], "THOUGHT") || !strings.Contains(bodies[1], "answer") {
		t.Errorf("retry body still has the thinking, or lost the answer:\n%s", bodies[1])
	}
}

// Another bad request is not retried.
func TestNoRetryForOtherBadRequests(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"tools.0.name: bad"}}`)
	}))
	defer srv.Close()
	req := providers.Request{Model: "claude-sonnet-4-5", Messages: []providers.Message{
		{Role: providers.RoleAssistant, Parts: []providers.Part{{Type: providers.PartReasoning, Text: "t", Signature: "s"}, {Type: providers.PartText, Text: "a"}}},
		providers.UserText("two"),
	}}
	var got error
	for _, err := range anthropic.New(anthropic.Config{BaseURL: srv.URL}).Stream(t.Context(), req) {
		got = err
	}
	if got == nil || n.Load() != 1 {
		t.Errorf("err %v after %d requests", got, n.Load())
	}
}
