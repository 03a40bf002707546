package agent

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/anthropic"
	"github.com/clawseed/clawseed/providers/openai"
	"github.com/clawseed/clawseed/providers/providertest"
)

// wireServer answers every request with the event stream answer(n) (n
// counts from 0) and keeps the bodies.
type wireServer struct {
	mu     sync.Mutex
	bodies []string
	srv    *httptest.Server
}

func newWireServer(t *testing.T, answer func(n int) string) *wireServer {
	s := &wireServer{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, string(b))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, answer(n))
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *wireServer) last() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[len(s.bodies)-1]
}

// responsesAnswer is a Responses stream: the first answer reasons (an
// encrypted reasoning item with a summary) before its text.
func responsesAnswer(n int) string {
	var b strings.Builder
	if n == 0 {
		b.WriteString(`data: {"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Pondering."}` + "\n\n")
		b.WriteString(`data: {"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","encrypted_content":"ENC-ONE","summary":[{"type":"summary_text","text":"Pondering."}]}}` + "\n\n")
	}
	b.WriteString(`data: {"type":"response.output_text.delta","item_id":"msg","output_index":1,"delta":"ok"}` + "\n\n")
	b.WriteString(`data: {"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":10,"output_tokens":2}}}` + "\n\n")
	return b.String()
}

func chatAnswer(int) string {
	return `data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
}

func anthropicAnswer(int) string {
	return "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
}

// TestReasoningItemEchoed: a Responses reasoning item joins the history
// with the answer and is sent back unchanged with the next request on the
// Responses wire; after /model to the chat wire or to Anthropic it is left
// out (neither its encrypted content nor its summary is sent), and back on
// the endpoint that issued it, it is echoed again: the history keeps it.
func TestReasoningItemEchoed(t *testing.T) {
	t.Parallel()
	resp := newWireServer(t, responsesAnswer)
	chat := newWireServer(t, chatAnswer)
	claude := newWireServer(t, anthropicAnswer)
	responsesModel := openai.New(openai.Config{BaseURL: resp.srv.URL + "/v1", Model: "gpt-5", Wire: openai.WireResponses})
	env := newEnv(t, nil, func(o *Options) { o.Model, o.ModelName = responsesModel, "gpt-5" })
	turn := func(text string) {
		t.Helper()
		if _, err := env.agent.Turn(t.Context(), text); err != nil {
			t.Fatal(err)
		}
	}
	const echoed = `{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Pondering."}],"encrypted_content":"ENC-ONE"}`

	turn("one")
	var item *providers.ReasoningItem
	for _, p := range env.agent.History()[1].Parts {
		if p.Type == providers.PartReasoning {
			item = p.Item
			if p.Text != "Pondering." {
				t.Errorf("reasoning text %q", p.Text)
			}
		}
	}
	if item == nil || item.Encrypted != "ENC-ONE" || item.ID != "rs_1" {
		t.Fatalf("history's reasoning item: %+v", item)
	}
	turn("two")
	if body := resp.last(); !strings.Contains(body, echoed) {
		t.Errorf("next Responses request does not echo the item:\n%s", body)
	}

	env.agent.SwitchModel(ModelChoice{Model: openai.New(openai.Config{BaseURL: chat.srv.URL + "/v1", Model: "gpt-4o"}), Name: "gpt-4o"})
	turn("three")
	env.agent.SwitchModel(ModelChoice{Model: anthropic.New(anthropic.Config{BaseURL: claude.srv.URL, APIKey: "k", Model: "claude-x"}), Name: "claude-x", MaxTokens: 1000})
	turn("four")
	for name, body := range map[string]string{"chat": chat.last(), "anthropic": claude.last()} {
		if strings.Contains(body, "ENC-ONE") || strings.Contains(body, "Pondering") {
			t.Errorf("%s wire was sent the reasoning item:\n%s", name, body)
		}
	}

	env.agent.SwitchModel(ModelChoice{Model: responsesModel, Name: "gpt-5"})
	turn("five")
	if body := resp.last(); !strings.Contains(body, echoed) {
		t.Errorf("back on the Responses endpoint, the item is not echoed:\n%s", body)
	}
	// Another Responses endpoint cannot decrypt it: left out there.
	other := newWireServer(t, responsesAnswer)
	env.agent.SwitchModel(ModelChoice{Model: openai.New(openai.Config{BaseURL: other.srv.URL + "/v1", Wire: openai.WireResponses}), Name: "gpt-5"})
	turn("six")
	if body := other.last(); strings.Contains(body, "ENC-ONE") {
		t.Errorf("another Responses endpoint was sent the item:\n%s", body)
	}
}

// TestBlockAnchors: a skill block is placed where the history stood when
// it was activated (BlockAt), the blocks of a new history before it, and
// after a compaction every block is still sent, before the history.
func TestBlockAnchors(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{
		{Text: "hello"},
		skillCall(`{"skill":"greeter"}`),
		{Text: "greeted"},
		{Text: "again"},
	}, nil)
	for _, text := range []string{"one", "two", "three"} {
		if _, err := env.agent.Turn(t.Context(), text); err != nil {
			t.Fatal(err)
		}
	}
	reqs := env.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	if len(reqs[0].BlockAt) != 1 || len(reqs[1].BlockAt) != 1 {
		t.Errorf("before the activation: BlockAt %v, %v", reqs[0].BlockAt, reqs[1].BlockAt)
	}
	// Request 3 follows the Skill call's result (history: one, hello, two,
	// call, result = 5 messages); request 4 keeps the place.
	for _, r := range reqs[2:] {
		if len(r.SystemBlocks) != 2 || len(r.BlockAt) != 2 || r.BlockAt[1] != 5 {
			t.Errorf("after the activation: %d blocks, BlockAt %v", len(r.SystemBlocks), r.BlockAt)
		}
	}
	// A compaction replaces the history: the active blocks are still sent,
	// placed first.
	env.model.Append(providertest.Response{When: "Summarise the conversation", Text: "S"}, providertest.Response{Text: "after"})
	if _, err := env.agent.Compact(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := env.agent.Turn(t.Context(), "four"); err != nil {
		t.Fatal(err)
	}
	reqs = env.model.Requests()
	last := reqs[len(reqs)-1]
	if !strings.HasPrefix(last.Messages[0].Text(), "<compaction_summary>") {
		t.Fatalf("no compaction before the last request: %q", last.Messages[0].Text())
	}
	if len(last.SystemBlocks) != 2 || len(last.BlockAt) != 2 || last.BlockAt[1] != 0 || !strings.Contains(last.SystemBlocks[1], "greeter") {
		t.Errorf("after the compaction: blocks %d, BlockAt %v", len(last.SystemBlocks), last.BlockAt)
	}
}
