package adaptertest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
)

// LongSession is a long session's request, the same for both wires so that
// their figures compare: an 8 KB system prompt in two blocks, 15 tools and
// 200 messages of text, tool calls with JSON arguments and 1.5 KB tool
// results, every assistant message with a signed thinking block (which the
// OpenAI wire leaves out).
func LongSession(model string) providers.Request {
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
	return providers.Request{Model: model, SystemBlocks: []string{system, skill}, System: system + "\n\n" + skill,
		Messages: msgs[:200], Tools: tools, MaxTokens: 16384}
}

// BenchmarkEncode measures the adapter's encoding of [LongSession].
func BenchmarkEncode(b *testing.B, w Wire) {
	p := w.New(Config{})
	req := LongSession(w.Model)
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

// BenchmarkDecode measures the adapter's decoding of body, a 200 event
// stream served in-process, which must hold two tool calls.
func BenchmarkDecode(b *testing.B, w Wire, body []byte) {
	client := &http.Client{Transport: RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
	})}
	p := w.New(Config{BaseURL: "http://bench.test" + w.BasePath, HTTPClient: client})
	req := w.request("go")
	// The consumer is made once, outside the loop: p's type is not known
	// here, so a range-over-func body would be allocated at every
	// iteration, which the adapter's own figures must not include.
	calls := 0
	consume := func(ev providers.Event, err error) bool {
		if err != nil {
			b.Fatal(err)
		}
		if ev.Type == providers.EventToolCall {
			calls++
		}
		return true
	}
	ctx := b.Context()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		calls = 0
		p.Stream(ctx, req)(consume)
		if calls != 2 {
			b.Fatalf("%d calls", calls)
		}
	}
}
