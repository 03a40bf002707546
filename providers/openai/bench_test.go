package openai_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/clawseed/clawseed/providers/internal/adaptertest"
)

// BenchmarkEncodeRequest encodes the long session of providers/anthropic's
// benchmark ([adaptertest.LongSession]), so that the two wires' figures
// compare.
func BenchmarkEncodeRequest(b *testing.B) { adaptertest.BenchmarkEncode(b, wire) }

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

// BenchmarkDecodeStream decodes benchStream.
func BenchmarkDecodeStream(b *testing.B) { adaptertest.BenchmarkDecode(b, wire, benchStream()) }
