package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clawseed/clawseed/internal/origin"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stderrTailBytes is how much of a stdio server's stderr is kept to show
// when it fails.
const stderrTailBytes = 4096

// tail keeps the last bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrTailBytes; over > 0 {
		t.buf = slices.Clone(t.buf[over:])
	}
	return len(p), nil
}

// Lines returns up to n last non-empty lines.
func (t *tail) Lines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(strings.ToValidUTF8(string(t.buf), "?")), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// transportFor builds the transport of one connection attempt. For stdio
// it also returns the command, whose process group is killed when the
// server is closed, prepared by Options.Prepare (the OS sandbox).
func (s *server) transportFor(kind string) (sdk.Transport, *exec.Cmd, error) {
	cfg := s.cfg
	switch kind {
	case "http":
		return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: s.m.httpClient(cfg.URL, cfg.Headers), MaxRetries: -1}, nil, nil
	case "sse":
		return &sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: s.m.httpClient(cfg.URL, cfg.Headers)}, nil, nil
	}
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = cfg.Dir
	cmd.Env = append(slices.Clone(s.m.opts.BaseEnv), cfg.Env...)
	cmd.Stderr = s.stderr
	// A grandchild holding stderr open must not keep Wait from returning.
	cmd.WaitDelay = 2 * time.Second
	isolate(cmd)
	if prepare := s.m.opts.Prepare; prepare != nil {
		if err := prepare(cfg.Name, cmd); err != nil {
			return nil, nil, err
		}
	}
	return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, cmd, nil
}

// connect opens a session over the configured transport; an "http" server
// that does not speak streamable HTTP is tried once more over the older
// SSE transport. cancel cancels ctx: close calls it while the connection
// is being made, and the failed attempt kills its process here.
func (s *server) connect(ctx context.Context, cancel context.CancelFunc, client *sdk.Client) (*sdk.ClientSession, *exec.Cmd, error) {
	kind := s.cfg.Transport
	t, cmd, err := s.transportFor(kind)
	if err != nil {
		return nil, nil, err
	}
	s.setPending(cancel)
	defer s.takePending()
	cs, err := client.Connect(ctx, t, nil)
	if err != nil && kind == "http" && ctx.Err() == nil {
		t2, _, _ := s.transportFor("sse")
		if cs2, err2 := client.Connect(ctx, t2, nil); err2 == nil {
			return cs2, nil, nil
		}
	}
	if err != nil {
		killGroup(cmd)
		return nil, cmd, err
	}
	return cs, cmd, nil
}

// headerTransport adds the configured headers to the requests that go to
// the configured URL's origin (scheme, host and port) and to no other.
// It sits below the client's redirect handling and sees every round trip:
// net/http drops Authorization when a redirect leaves the host, but a
// transport that adds it back would hand the token to wherever the server
// (or whoever controls its responses) redirects, and an SSE server's
// "endpoint" event may name another origin too.
type headerTransport struct {
	base    http.RoundTripper
	origin  *url.URL
	headers map[string]string
}

func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if h.origin == nil || !origin.Same(req.URL, h.origin) {
		return h.base.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	for k, v := range h.headers {
		req.Header.Set(k, v)
	}
	return h.base.RoundTrip(req)
}

// httpClient returns a client sending headers with every request to the
// origin of endpoint (the server's url) and with none elsewhere.
func (m *Manager) httpClient(endpoint string, headers map[string]string) *http.Client {
	base := http.DefaultTransport
	if m.opts.HTTPClient != nil && m.opts.HTTPClient.Transport != nil {
		base = m.opts.HTTPClient.Transport
	}
	if len(headers) == 0 {
		return &http.Client{Transport: base}
	}
	origin, err := url.Parse(endpoint)
	if err != nil {
		origin = nil // the config refuses such a url; send the headers nowhere
	}
	return &http.Client{Transport: &headerTransport{base: base, origin: origin, headers: headers}}
}

// exitError describes how a stdio server ended, "" when unknown.
func exitError(cmd *exec.Cmd) string {
	if cmd == nil || cmd.ProcessState == nil {
		return ""
	}
	return cmd.ProcessState.String()
}

var errNotConnected = errors.New("not connected")
