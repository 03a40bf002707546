package providertest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
)

// A Server is a fake LLM HTTP server on 127.0.0.1 that answers each request
// with the next scripted [Response] and records the raw request bodies.
//
// It speaks the OpenAI Chat Completions wire at /v1/chat/completions and
// /chat/completions (openai_wire.go); other wires can be added beside it
// with the same scripts. Past the end of the script it answers HTTP 400
// "providertest: no scripted response for request N", which clients do not
// retry, so a test that makes one request too many fails loudly.
type Server struct {
	srv     *httptest.Server
	closing chan struct{}

	mu          sync.Mutex
	queue       queue
	requests    [][]byte
	disconnects int
	callSeq     int
	changed     chan struct{} // closed and replaced whenever a count grows
}

// NewServer starts a server replaying responses. Close it when done.
func NewServer(responses []Response) *Server {
	s := &Server{
		queue:   newQueue(slices.Clone(responses)),
		closing: make(chan struct{}),
		changed: make(chan struct{}),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveOpenAI)
	mux.HandleFunc("POST /chat/completions", s.serveOpenAI)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeOpenAIError(w, http.StatusNotFound, "", "providertest: no route for "+r.Method+" "+r.URL.Path)
	})
	s.srv = httptest.NewServer(mux)
	return s
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
	for i, b := range s.requests {
		out[i] = slices.Clone(b)
	}
	return out
}

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

// take records a request body and returns the next response with its call
// ids filled in, and the 1-based request number; ok is false past the end
// of the script.
func (s *Server) take(body []byte) (resp Response, n int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, body)
	n = len(s.requests)
	s.notify()
	text := ""
	if s.queue.hasWhen() {
		text = bodyText(body)
	}
	resp, ok = s.queue.take(text)
	if !ok {
		return Response{}, n, false
	}
	return withCallIDs(resp, &s.callSeq), n, true
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
