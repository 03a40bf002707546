package anthropic_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers/internal/adaptertest"
)

// BenchmarkEncodeRequest encodes a long session ([adaptertest.LongSession]).
func BenchmarkEncodeRequest(b *testing.B) { adaptertest.BenchmarkEncode(b, wire) }

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

// BenchmarkDecodeStream decodes benchStream.
func BenchmarkDecodeStream(b *testing.B) { adaptertest.BenchmarkDecode(b, wire, benchStream()) }
