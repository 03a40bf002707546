package anthropic_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/anthropic"
)

// benchRequest is a long session's request: an 8 KB system prompt in two
// blocks, 15 tools and 200 messages of text, tool calls with JSON arguments
// and 1.5 KB tool results, every assistant message with a signed thinking
// block. providers/openai's bench_test.go builds the same one.
func benchRequest() providers.Request {
	schema := []byte(`{"type":"object","properties":{"path":{"type":"string","description":"File path, relative to the workspace."},"limit":{"type":"integer","minimum":1}},"required":["path"]}`)
	var tools []providers.ToolSpec
	for i := range 15 {
		tools = append(tools, providers.ToolSpec{Name: fmt.Sprintf("tool_%02d", i), Description: strings.Repeat("Does a useful thing. ", 8), Schema: schema})
	}
	result := strings.Repeat("func main() {\n\tfmt.Println(\"hello, \\\"world\\\"\")\n}\n", 30) // ~1.5 KB with escapes
	msgs := []providers.Message{providers.UserText("Please refactor the package and keep the tests green.")}
	for i := 0; len(msgs) < 200; i++ {
		id := fmt.Sprintf("toolu_%04d", i)
		msgs = append(msgs,
			providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{
				{Type: providers.PartReasoning, Text: "I should read the next file before changing it.", Signature: strings.Repeat("EqQBCgIYAhIM", 20)},
				{Type: providers.PartText, Text: fmt.Sprintf("Reading file %d.", i)},
				{Type: providers.PartToolCall, ToolCall: &providers.ToolCall{ID: id, Name: "tool_03", Args: fmt.Sprintf(`{"path":"pkg/file_%d.go","limit":400}`, i)}},
			}},
			providers.Message{Role: providers.RoleUser, Parts: []providers.Part{
				{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: id, Name: "tool_03", Content: result}},
			}},
		)
	}
	system := strings.Repeat("You are a careful coding agent. Follow the rules below.\n", 150)
	skill := "<active_skill name=\"go\">\nWrite idiomatic Go.\n</active_skill>"
	return providers.Request{Model: "claude-sonnet-4-5", SystemBlocks: []string{system, skill}, System: system + "\n\n" + skill,
		Messages: msgs[:200], Tools: tools, MaxTokens: 16384}
}

func BenchmarkEncodeRequest(b *testing.B) {
	p := anthropic.New(anthropic.Config{})
	req := benchRequest()
	body, err := p.EncodeRequest(req)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.EncodeRequest(req); err != nil {
			b.Fatal(err)
		}
	}
}

// benchStream is a long streamed answer: 300 thinking deltas, 2,000 text
// deltas (~24 KB of text), two parallel tool calls whose input arrives in
// 20 pieces each, and pings.
func benchStream() []byte {
	var b bytes.Buffer
	ev := func(typ, data string) { fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", typ, data) }
	ev("message_start", `{"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":120,"cache_creation_input_tokens":900,"cache_read_input_tokens":48000,"output_tokens":1}}}`)
	ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
	for range 300 {
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me consider "}}`)
	}
	ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+strings.Repeat("EqQBCgIYAhIM", 20)+`"}}`)
	ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
	ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`)
	for i := range 2000 {
		ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"word \"quoted\" "}}`)
		if i%200 == 0 {
			ev("ping", `{"type": "ping"}`)
		}
	}
	ev("content_block_stop", `{"type":"content_block_stop","index":1}`)
	for idx := 2; idx <= 3; idx++ {
		ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":"toolu_%d","name":"file_write","input":{}}}`, idx, idx))
		ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"a.go\",\"content\":\""}}`, idx))
		for range 18 {
			ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":"package main\\n"}}`, idx))
		}
		ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":"\"}"}}`, idx))
		ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, idx))
	}
	ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":6100}}`)
	ev("message_stop", `{"type":"message_stop"}`)
	return b.Bytes()
}

func BenchmarkDecodeStream(b *testing.B) {
	body := benchStream()
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
	})}
	p := anthropic.New(anthropic.Config{BaseURL: "http://bench.test", HTTPClient: client})
	req := userReq("go")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for ev, err := range p.Stream(b.Context(), req) {
			if err != nil {
				b.Fatal(err)
			}
			if ev.Type == providers.EventToolCall {
				n++
			}
		}
		if n != 2 {
			b.Fatalf("%d calls", n)
		}
	}
}
