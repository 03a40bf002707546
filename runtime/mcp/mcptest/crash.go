package mcptest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// crasher counts answered tools/call requests and closes done once after
// `after` of them have been written out: a crash mid-session, after the
// client has its answer.
type crasher struct {
	after    int64
	answered atomic.Int64
	once     sync.Once
	done     chan struct{}
}

func (c *crasher) answeredOne() {
	if c.after > 0 && c.answered.Add(1) >= c.after {
		c.once.Do(func() { close(c.done) })
	}
}

// wrap counts, over HTTP, the requests whose body held a tools/call, once
// their response has been written (the handler has returned).
func (c *crasher) wrap(h http.Handler) http.Handler {
	if c.after <= 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls := 0
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
				return
			}
			calls = countToolCalls(body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
		for range calls {
			c.answeredOne()
		}
	})
}

// countToolCalls counts the tools/call requests in an HTTP request body
// (one JSON-RPC message; anything else counts as none).
func countToolCalls(body []byte) int {
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return 0
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && req.Method == "tools/call" {
		return 1
	}
	return 0
}

// crashTransport tells its crasher when the response to a tools/call has
// been written to the client, matching responses to calls by ID.
type crashTransport struct {
	mcp.Transport
	crash *crasher
}

func (t *crashTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &crashConn{Connection: conn, crash: t.crash, calls: map[jsonrpc.ID]bool{}}, nil
}

type crashConn struct {
	mcp.Connection
	crash *crasher

	mu    sync.Mutex
	calls map[jsonrpc.ID]bool // tools/call requests not answered yet
}

func (c *crashConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.IsCall() && req.Method == "tools/call" {
		c.mu.Lock()
		c.calls[req.ID] = true
		c.mu.Unlock()
	}
	return msg, err
}

func (c *crashConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := c.Connection.Write(ctx, msg); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		answered := c.calls[resp.ID]
		delete(c.calls, resp.ID)
		c.mu.Unlock()
		if answered {
			c.crash.answeredOne()
		}
	}
	return nil
}
