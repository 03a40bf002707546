package mcptest

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzCountToolCalls: whatever an HTTP client posts, counting its
// tools/call requests neither panics nor counts anything but one call.
func FuzzCountToolCalls(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"tools/call"}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/call"}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		n := countToolCalls(body)
		if n != 0 && n != 1 {
			t.Fatalf("counted %d calls in %q", n, body)
		}
		if n == 1 {
			msg, err := jsonrpc.DecodeMessage(body)
			req, ok := msg.(*jsonrpc.Request)
			if err != nil || !ok || !req.IsCall() || req.Method != "tools/call" {
				t.Fatalf("counted a call in %q, which is no tools/call request", body)
			}
		}
	})
}
