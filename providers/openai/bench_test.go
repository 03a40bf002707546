package openai_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/openai"
)

// benchRequest is the long session's request of providers/anthropic's
// bench_test.go, built the same way so that the two wires' figures compare:
// an 8 KB system prompt in two blocks, 15 tools and 200 messages of text,
// tool calls with JSON arguments and 1.5 KB tool results, every assistant
// message with a signed thinking block (which this wire leaves out).
func benchRequest() providers.Request {
	schema := []byte(`{"type":"object","properties":{"path":{"type":"string","description":"File path, relative to the workspace."},"limit":{"type":"integer","minimum":1}},"required":["path"]}`)
	var tools []providers.ToolSpec
	for i := range 15 {
		tools = append(tools, providers.ToolSpec{Name: fmt.Sprintf("tool_%02d", i), Description: strings.Repeat("Does a useful thing. ", 8), Schema: schema})
	}
	result := strings.Repeat("func main() {\n\tfmt.Println(\"hello, \\\"world\\\"\")\n}\n", 30)
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
	return providers.Request{Model: "gpt-4o", SystemBlocks: []string{system, skill}, System: system + "\n\n" + skill,
		Messages: msgs[:200], Tools: tools, MaxTokens: 16384}
}

func BenchmarkEncodeRequest(b *testing.B) {
	p := openai.New(openai.Config{})
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

// benchStream is the long streamed answer of providers/anthropic's
// benchmark as Chat Completions chunks: 300 reasoning deltas, 2,000 text
// deltas, two parallel tool calls whose arguments arrive in 20 pieces each.
func benchStream() []byte {
	var b bytes.Buffer
	chunk := func(delta string) {
		fmt.Fprintf(&b, "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1760000000,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":null}]}\n\n", delta)
	}
	for range 300 {
		chunk(`{"reasoning_content":"Let me consider "}`)
	}
	for range 2000 {
		chunk(`{"content":"word \"quoted\" "}`)
	}
	for idx := range 2 {
		chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":"file_write","arguments":"{\"path\":\"a.go\",\"content\":\""}}]}`, idx, idx))
		for range 18 {
			chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":"package main\\n"}}]}`, idx))
		}
		chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":"\"}"}}]}`, idx))
	}
	b.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n")
	b.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":49020,"completion_tokens":6100,"prompt_tokens_details":{"cached_tokens":48000}}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

func BenchmarkDecodeStream(b *testing.B) {
	body := benchStream()
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
	})}
	p := openai.New(openai.Config{BaseURL: "http://bench.test/v1", HTTPClient: client})
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
