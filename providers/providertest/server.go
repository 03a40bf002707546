package providertest

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/providers"
)

// A Server is a fake LLM HTTP server on 127.0.0.1 that answers each request
// with the next scripted [Response] and records the requests.
//
// It routes by the end of the path, so any base URL prefix works: …/chat/completions
// speaks the OpenAI Chat Completions wire (openai_wire.go), …/responses the
// OpenAI Responses wire (responses_wire.go), …/messages the Anthropic
// Messages wire (anthropic_wire.go; the Anthropic SDK given the base URL
// …/v1 posts to …/v1/v1/messages). Every wire replays the same script. Past the end of the script it answers HTTP 400 "providertest: no
// scripted response for request N", which clients do not retry, so a test
// that makes one request too many fails loudly.
//
// Every answered request goes through the server's [CacheEmulator]; its
// usage is reported when the script gives none.
type Server struct {
	srv     *httptest.Server
	closing chan struct{}
	cache   *CacheEmulator

	mu          sync.Mutex
	queue       queue
	requests    []Recorded
	disconnects int
	callSeq     int
	changed     chan struct{} // closed and replaced whenever a count grows
}

// A Recorded request is one request the [Server] received.
type Recorded struct {
	Wire   Wire
	Path   string
	Header http.Header
	Body   []byte
	// Usage is what the cache emulator computed for the request (also when
	// the script's usage was reported instead); nil when the request was
	// not answered with content (an error response, past the end of the
	// script, a body the emulator could not read).
	Usage *providers.Usage
}

func (r Recorded) clone() Recorded {
	r.Header = r.Header.Clone()
	r.Body = slices.Clone(r.Body)
	if r.Usage != nil {
		u := *r.Usage
		r.Usage = &u
	}
	return r
}

// NewServer starts a server replaying responses. Close it when done.
func NewServer(responses []Response) *Server {
	s := &Server{
		queue:   newQueue(slices.Clone(responses)),
		closing: make(chan struct{}),
		changed: make(chan struct{}),
		cache:   NewCacheEmulator(),
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.route))
	return s
}

// route picks the wire by the end of the path.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		s.serveOpenAI(w, r)
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/responses"):
		s.serveResponses(w, r)
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/messages"):
		s.serveAnthropic(w, r)
	case r.Header.Get("anthropic-version") != "":
		writeAnthropicError(w, http.StatusNotFound, "", "providertest: no route for "+r.Method+" "+r.URL.Path)
	default:
		writeOpenAIError(w, http.StatusNotFound, "", "providertest: no route for "+r.Method+" "+r.URL.Path)
	}
}

// URL returns the API base URL, ending in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close releases hanging requests, drops client connections and stops the
// server.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.closing:
		s.mu.Unlock()
		return
	default:
		close(s.closing)
	}
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// SetScript replaces the responses still to be served; the next request
// gets responses[0]. Recorded requests are kept.
func (s *Server) SetScript(responses []Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = newQueue(slices.Clone(responses))
}

// Append adds responses to the end of the script.
func (s *Server) Append(responses ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue.add(responses...)
}

// Requests returns copies of the request bodies received so far, in order.
func (s *Server) Requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]byte, len(s.requests))
	for i, r := range s.requests {
		out[i] = slices.Clone(r.Body)
	}
	return out
}

// Recorded returns copies of the requests received so far, in order.
func (s *Server) Recorded() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Recorded, len(s.requests))
	for i, r := range s.requests {
		out[i] = r.clone()
	}
	return out
}

// CacheStats returns the cache emulator's totals over the answered
// requests so far.
func (s *Server) CacheStats() CacheStats { return s.cache.Stats() }

// WaitRequests waits until at least n requests have arrived or ctx ends.
func (s *Server) WaitRequests(ctx context.Context, n int) error {
	return s.wait(ctx, func() bool { return len(s.requests) >= n })
}

// WaitDisconnects waits until clients have gone away from at least n
// requests that were hanging or delayed, or ctx ends. A test uses it to
// prove that cancelling aborted the HTTP stream.
func (s *Server) WaitDisconnects(ctx context.Context, n int) error {
	return s.wait(ctx, func() bool { return s.disconnects >= n })
}

func (s *Server) wait(ctx context.Context, done func() bool) error {
	for {
		s.mu.Lock()
		if done() {
			s.mu.Unlock()
			return nil
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// notify wakes the waiters; s.mu must be held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// record records a request that is refused before it could take a
// scripted response, and returns its 1-based number.
func (s *Server) record(wire Wire, r *http.Request, body []byte) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.appendRequest(wire, r, body)
}

// appendRequest records a request and wakes the waiters; s.mu must be
// held.
func (s *Server) appendRequest(wire Wire, r *http.Request, body []byte) int {
	s.requests = append(s.requests, Recorded{Wire: wire, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	s.notify()
	return len(s.requests)
}

// take records a request and returns the next response with its call ids
// filled in, the usage to report when the response has none, and the
// 1-based request number; ok is false past the end of the script.
func (s *Server) take(wire Wire, r *http.Request, body []byte) (resp Response, usage providers.Usage, n int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n = s.appendRequest(wire, r, body)
	text := ""
	if s.queue.hasWhen() {
		text = bodyText(body)
	}
	resp, ok = s.queue.take(text)
	if !ok {
		return Response{}, usage, n, false
	}
	resp = withCallIDs(resp, &s.callSeq)
	if resp.isError() {
		return resp, usage, n, true
	}
	// Emulated in arrival order, under s.mu, so the cache state does not
	// depend on goroutine scheduling.
	emulated, err := s.cache.Observe(wire, body, resp.outputTokens())
	if err == nil {
		s.requests[n-1].Usage = &emulated
	}
	if resp.Usage != nil {
		return resp, *resp.Usage, n, true
	}
	return resp, emulated, n, true
}

// An errorWriter writes a wire's JSON error answer.
type errorWriter func(w http.ResponseWriter, status int, retryAfter, msg string)

// answer takes the scripted response for a request on wire and writes what
// every wire answers alike: a body that is not JSON (parseErr), a request
// past the end of the script, the response's delay, a scripted error. ok
// means the caller writes the answer in its wire's encoding. header, when
// not nil, sets headers from the request's number before anything is
// written.
func (s *Server) answer(wire Wire, w http.ResponseWriter, r *http.Request, body []byte, parseErr error, writeErr errorWriter, header func(n int)) (resp Response, usage providers.Usage, n int, ok bool) {
	resp, usage, n, ok = s.take(wire, r, body)
	if header != nil {
		header(n)
	}
	switch {
	case parseErr != nil:
		writeErr(w, http.StatusBadRequest, "", fmt.Sprintf("providertest: request %d: body is not JSON: %v", n, parseErr))
		return resp, usage, n, false
	case !ok:
		writeErr(w, http.StatusBadRequest, "", fmt.Sprintf("providertest: no scripted response for request %d", n))
		return resp, usage, n, false
	}
	if !s.pause(r, resp) {
		return resp, usage, n, false
	}
	if resp.isError() {
		if !writeErrorBody(w, resp) {
			writeErr(w, resp.status(), resp.RetryAfter, resp.errorMessage())
		}
		return resp, usage, n, false
	}
	return resp, usage, n, true
}

// readBody reads a request body; a failed read leaves what arrived.
func readBody(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	return b
}

// pause waits for the response's delay. It reports false when the client
// went away (counted as a disconnect) or the server is closing.
func (s *Server) pause(r *http.Request, resp Response) bool {
	if resp.delay() <= 0 {
		return true
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-s.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	if sleep(ctx, resp.delay()) == nil {
		return true
	}
	s.noteGone(r)
	return false
}

// hang blocks until the client goes away or the server closes.
func (s *Server) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
		s.noteGone(r)
	case <-s.closing:
	}
}

// noteGone counts a disconnect if the client, not the server, ended r.
func (s *Server) noteGone(r *http.Request) {
	select {
	case <-s.closing:
		return
	default:
	}
	if r.Context().Err() == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.disconnects++
	s.notify()
}

// writeErrorBody answers an error response whose script gives the whole
// body (ErrorBody); false when it gives none, for the wire's JSON error.
func writeErrorBody(w http.ResponseWriter, resp Response) bool {
	if resp.ErrorBody == "" {
		return false
	}
	ctype := "text/plain; charset=utf-8"
	if strings.HasPrefix(strings.TrimSpace(resp.ErrorBody), "<") {
		ctype = "text/html; charset=utf-8"
	}
	w.Header().Set("Content-Type", ctype)
	if resp.RetryAfter != "" {
		w.Header().Set("Retry-After", strings.TrimSpace(resp.RetryAfter))
	}
	w.WriteHeader(resp.status())
	_, _ = io.WriteString(w, resp.ErrorBody)
	return true
}

// whole answers a non-streamed request: it hangs, drops the connection,
// turns a stream_error into an HTTP error (status defStatus unless the
// script gives one) with fail, or writes the answer with ok.
func (s *Server) whole(w http.ResponseWriter, r *http.Request, resp Response, defStatus int, ok func(),
	fail func(w http.ResponseWriter, status int, retryAfter, msg string),
) {
	switch {
	case resp.hangs():
		s.hang(r)
	case resp.Cut:
		panic(http.ErrAbortHandler)
	case resp.StreamError != "":
		fail(w, cmp.Or(resp.StreamErrorStatus, defStatus), "", resp.StreamError)
	default:
		ok()
	}
}

// stopStream ends a stream that stops early: with the wire's error event
// (writeError), by dropping the connection (cut), or by hanging.
func (s *Server) stopStream(w http.ResponseWriter, r *http.Request, resp Response, writeError func()) {
	switch {
	case resp.StreamError != "":
		writeError()
		flush(w)
	case resp.Cut:
		flush(w)
		// Aborting skips the final empty chunk, so the client reads an
		// unexpected EOF, as when a proxy or the network drops a stream.
		panic(http.ErrAbortHandler)
	default:
		s.hang(r)
	}
}
