package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawseed/clawseed/runtime/mcp/mcptest"
)

// httpServer serves the test server over HTTP (SSE when sse is set),
// counting requests that carry the Authorization header.
func httpServer(t *testing.T, sse bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var authorized atomic.Int32
	h := mcptest.Handler(mcptest.NewServer(mcptest.Options{Name: "web"}), sse)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer secret" {
			authorized.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &authorized
}

func TestHTTPTransports(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, transport string
		sse             bool
	}{
		{"streamable", "http", false},
		{"sse", "sse", true},
		{"http falls back to sse", "http", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, authorized := httpServer(t, tt.sse)
			m := startManager(t, Options{Servers: []ServerConfig{{
				Name: "web", Transport: tt.transport, URL: srv.URL + "/mcp",
				Headers: map[string]string{"Authorization": "Bearer secret"}, ToolTimeout: 10 * time.Second,
			}}})
			set := m.Tools(context.Background())
			if st := m.Status()[0]; st.State != StateConnected {
				t.Fatalf("status = %+v", st)
			}
			if got, isErr := call(t, find(t, set, "mcp__web__echo"), `{"text":"over http"}`); isErr || got != "echo: over http" {
				t.Errorf("echo = %q (error %v)", got, isErr)
			}
			if authorized.Load() == 0 {
				t.Error("the configured header reached no request")
			}
		})
	}
}

func TestHTTPServerDown(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	m := startManager(t, Options{Servers: []ServerConfig{{Name: "web", Transport: "http", URL: srv.URL + "/mcp", ToolTimeout: time.Second}}})
	m.Tools(context.Background())
	if st := m.Status()[0]; st.State != StateFailed || st.Error == "" {
		t.Errorf("status = %+v, want failed with an error", st)
	}
}

// TestHeadersStayWithTheOrigin (issue 20, item 6): a server that redirects
// to another origin gets the configured headers; the other origin does
// not, although it serves the session (net/http dropped Authorization on
// the redirect, and the transport used to add it back on every round
// trip).
func TestHeadersStayWithTheOrigin(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, transport string
		sse             bool
	}{{"streamable", "http", false}, {"sse", "sse", true}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			other, leaked := httpServer(t, tt.sse)
			var asked atomic.Int32
			first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") == "Bearer secret" {
					asked.Add(1)
				}
				http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
			}))
			t.Cleanup(first.Close)
			m := startManager(t, Options{Servers: []ServerConfig{{
				Name: "web", Transport: tt.transport, URL: first.URL + "/mcp",
				Headers: map[string]string{"Authorization": "Bearer secret"}, ToolTimeout: 10 * time.Second,
			}}})
			set := m.Tools(context.Background())
			if st := m.Status()[0]; st.State != StateConnected {
				t.Fatalf("status = %+v", st)
			}
			if got, isErr := call(t, find(t, set, "mcp__web__echo"), `{"text":"elsewhere"}`); isErr || got != "echo: elsewhere" {
				t.Errorf("echo = %q (error %v)", got, isErr)
			}
			if asked.Load() == 0 {
				t.Error("the configured origin got no header")
			}
			if n := leaked.Load(); n != 0 {
				t.Errorf("the other origin got the Authorization header %d times", n)
			}
		})
	}
}
