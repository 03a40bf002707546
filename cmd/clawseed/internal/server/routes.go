package server

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"time"
)

// A route is one method and path of the API, in http.ServeMux's pattern
// syntax (which is OpenAPI's for path parameters): the one list the
// router is built from and openapi.json is checked against.
type route struct {
	method, path string
	// auth routes need a principal (a token when tokens are configured)
	// and count against the rate limit.
	auth bool
	h    func(w http.ResponseWriter, r *http.Request, p *principal)
}

// routeTable lists every route.
func (s *Server) routeTable() []route {
	return []route{
		{"POST", "/v1/sessions", true, s.createSession},
		{"GET", "/v1/sessions", true, s.listSessions},
		{"GET", "/v1/sessions/{id}", true, s.getSession},
		{"DELETE", "/v1/sessions/{id}", true, s.deleteSession},
		{"POST", "/v1/sessions/{id}/messages", true, s.postMessage},
		{"GET", "/v1/sessions/{id}/events", true, s.getEvents},
		{"POST", "/v1/sessions/{id}/approvals/{call_id}", true, s.postApproval},
		{"POST", "/v1/sessions/{id}/skills/{name}", true, s.activateSkill},
		{"DELETE", "/v1/sessions/{id}/skills/{name}", true, s.deactivateSkill},
		{"POST", "/v1/sessions/{id}/cancel", true, s.cancelTurn},
		{"GET", "/healthz", false, s.healthz},
		{"GET", "/readyz", false, s.readyz},
		{"GET", "/metrics", true, s.metricsHandler},
		{"GET", "/openapi.json", false, s.openAPI},
		{"GET", "/{$}", false, s.webIndex},
		{"GET", "/{file}", false, s.webFile},
	}
}

// newHandler builds the router and wraps it in what every request goes
// through, outermost first: the response headers and the status count;
// the Host check of a server without tokens; the refusal of cross-origin
// browser requests that change something; then the route, whose auth
// wrapper authenticates and rate-limits.
func (s *Server) newHandler() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.routes {
		mux.Handle(rt.method+" "+rt.path, s.wrap(rt))
	}
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errorf(http.StatusForbidden, "cross_origin", "cross-origin requests that change something are refused"))
	}))
	var h http.Handler = cop.Handler(jsonFallback(mux))
	h = s.hostCheck(h)
	return s.common(h)
}

// wrap is one route's handler: authentication and the rate limit first
// for the routes that need them.
func (s *Server) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !rt.auth {
			rt.h(w, r, nil)
			return
		}
		p, aerr := s.authenticate(r)
		if aerr != nil {
			writeError(w, aerr)
			return
		}
		if ok, wait := s.limiter.allow(p.rateKey); !ok {
			w.Header().Set("Retry-After", retryAfter(wait))
			writeError(w, errorf(http.StatusTooManyRequests, "rate_limited",
				"more than %d requests a minute ([serve].rate_limit); retry after %s s", s.serve.RateLimit, retryAfter(wait)))
			return
		}
		rt.h(w, r, p)
	})
}

// hostCheck refuses, on a server without tokens, a request whose Host is
// not a loopback name: a page of another site whose name was made to
// resolve to 127.0.0.1 (DNS rebinding) would otherwise be same-origin
// with the server.
func (s *Server) hostCheck(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(s.tokens) == 0 && !loopbackHost(r.Host) {
			writeError(w, errorf(http.StatusMisdirectedRequest, "host_not_allowed",
				"without [serve.tokens] the server answers only requests to localhost or a loopback address"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// common sets the headers of every answer and counts its status.
func (s *Server) common(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "+
			"script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		if s.scheme(r) == "https" {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		sw := &statusWriter{ResponseWriter: w}
		start := time.Now()
		next.ServeHTTP(sw, r)
		s.metrics.request(sw.status())
		s.log.Debug("Request", "method", r.Method, "path", r.URL.Path, "status", sw.status(),
			"took", time.Since(start), "client", s.clientIP(r))
	})
}

// jsonFallback turns the router's own plain-text 404 and 405 answers
// into the API's JSON errors.
func jsonFallback(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		probe := &statusWriter{ResponseWriter: discardBody{h: http.Header{}}}
		h.ServeHTTP(probe, r)
		switch probe.status() {
		case http.StatusMethodNotAllowed:
			w.Header().Set("Allow", probe.Header().Get("Allow"))
			writeError(w, errorf(http.StatusMethodNotAllowed, "method_not_allowed", "%s is not allowed on %s", r.Method, r.URL.Path))
		default:
			writeError(w, notFound("no such route: "+r.Method+" "+r.URL.Path))
		}
	})
}

// statusWriter records the status written; it keeps the writer's
// Flusher and the rest reachable through Unwrap (http.ResponseController).
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := w.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, errors.New("not a hijacker")
}

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// discardBody is a writer whose headers are its own and whose body and
// status go nowhere: the router's fallback answer is only looked at.
type discardBody struct{ h http.Header }

func (d discardBody) Header() http.Header         { return d.h }
func (d discardBody) Write(p []byte) (int, error) { return len(p), nil }
func (d discardBody) WriteHeader(int)             {}
