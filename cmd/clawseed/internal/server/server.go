// Package server is `clawseed serve` (issue 26): the agent as an HTTP +
// SSE service. Sessions are assembled with app.Build exactly as chat and
// run assemble theirs, one app.Session per session open in the server,
// opened on demand (a request for a saved session resumes it, as
// --resume does) and closed after [serve].idle_timeout_secs. A turn's
// events are the objects `run --output stream-json` prints
// (cmd/clawseed/internal/streamjson), each stored with a sequence number
// in the session's [EventLog] and streamed as server-sent events; tool
// calls that need approval wait for POST .../approvals/{call_id}.
//
// What the server stores goes through two small interfaces, so that
// another backend plugs in: the event log ([EventLog]; [FileEvents] for
// the files backend) and the session store, which app owns
// (app.SavedSessions, app.LoadSaved, app.RemoveSaved, and Build's
// Resume).
//
// The package holds no state of its own: a [Server] is everything.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"path/filepath"
	"sync"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/streamjson"
	"github.com/clawseed/clawseed/providers"
)

// Options are what `clawseed serve` gives the server.
type Options struct {
	// Config is the server's own configuration: [serve], and the session
	// store every session must use.
	Config *config.Config
	// Load loads the configuration of a session in the workspace ws (a
	// resolved, trusted directory): the layers of chat and run with
	// --workspace ws, the command line's flags applied.
	Load func(ctx context.Context, ws string) (*config.Config, error)
	// Init and Outcome are what `run --output stream-json` says of a
	// session in its init and result messages, the one definition both
	// use.
	Init    func(s *app.Session) streamjson.Init
	Outcome func(s *app.Session, status, final string, iterations int, usage []providers.ModelUsage, err error) streamjson.Outcome
	// Process is what the sessions of the process share.
	Process *app.Process
	// Events stores the sessions' events; nil means the files backend
	// under <sessions>/events.
	Events EventLog
	// Log receives the server's own lines (nil: discarded).
	Log *slog.Logger
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// A Server serves the API. Make it with [New]; [Server.Handler] is the
// HTTP handler, [Server.Close] ends it.
type Server struct {
	opts    Options
	cfg     *config.Config
	serve   config.Serve
	log     *slog.Logger
	now     func() time.Time
	events  EventLog
	tokens  []token
	proxies []netip.Prefix
	limiter *rateLimiter
	metrics *metrics
	routes  []route
	handler http.Handler
	// perTurn: the sessions are shared by replicas (the postgres
	// backend), so a session is open here, and locked, only while a
	// request uses it — a turn, a skill's activation — and is resumed
	// from the store for the next one, whichever replica serves it.
	perTurn bool

	// ctx lives as long as the server: turns and sessions run under it,
	// not under the request that started them.
	ctx    context.Context
	cancel context.CancelFunc
	turns  sync.WaitGroup
	bg     sync.WaitGroup

	mu     sync.Mutex
	live   map[string]*live
	closed bool
}

// New makes a server from opts and starts closing idle sessions.
func New(opts Options) (*Server, error) {
	if opts.Config == nil || opts.Load == nil || opts.Init == nil || opts.Outcome == nil {
		return nil, errors.New("server: Config, Load, Init and Outcome are required")
	}
	if !opts.Config.Sessions.Enabled {
		return nil, errors.New("clawseed serve needs sessions ([sessions].enabled = true): every session is saved, and resumed from its file")
	}
	s := &Server{
		opts: opts, cfg: opts.Config, serve: opts.Config.Serve, log: opts.Log, now: opts.Now,
		events: opts.Events, metrics: newMetrics(), live: map[string]*live{},
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.perTurn = s.cfg.Storage.Backend == config.StoragePostgres
	if s.events == nil {
		events, err := s.openEvents()
		if err != nil {
			return nil, err
		}
		s.events = events
	}
	for _, p := range s.serve.TrustedProxies {
		prefix, err := config.ParseProxy(p)
		if err != nil {
			return nil, err // config validated it
		}
		s.proxies = append(s.proxies, prefix)
	}
	s.tokens = newTokens(s.serve.Tokens, s.log.Warn)
	s.limiter = newRateLimiter(s.serve.RateLimit, s.now)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.routes = s.routeTable()
	s.handler = s.newHandler()
	s.bg.Go(s.janitor)
	return s, nil
}

// openEvents is the event log of the server's backend: files under
// <sessions>/events, or the database's (app.OpenEventLog), which replicas
// share.
func (s *Server) openEvents() (EventLog, error) {
	if s.cfg.Storage.Backend != config.StoragePostgres {
		return &FileEvents{Dir: filepath.Join(s.cfg.SessionsDir(), "events")}, nil
	}
	ctx := context.Background()
	log, err := app.OpenEventLog(ctx, s.cfg, s.opts.Process)
	if err != nil {
		return nil, err
	}
	cfg, p := s.cfg, s.opts.Process
	return &StoreEvents{
		Log:   log,
		Ping:  func(ctx context.Context) error { return app.Ready(ctx, cfg, p) },
		InUse: func(ctx context.Context, id string) (bool, error) { return app.SessionInUse(ctx, cfg, p, id) },
	}, nil
}

// Handler is the server's HTTP handler: every route, with the checks
// every request goes through.
func (s *Server) Handler() http.Handler { return s.handler }

// approvalTimeout is how long a tool call waits for its answer.
func (s *Server) approvalTimeout() time.Duration {
	return time.Duration(s.serve.ApprovalTimeoutSecs) * time.Second
}

// idleTimeout is how long an unused session stays open.
func (s *Server) idleTimeout() time.Duration {
	return time.Duration(s.serve.IdleTimeoutSecs) * time.Second
}

// Close ends the server: no session opens any more; running turns get
// until ctx ends to finish, then are cancelled (and waited for); streams
// end; every open session is shut down (its file closed, its MCP servers
// stopped). It returns ctx's error when turns had to be cancelled.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	finished := make(chan struct{})
	go func() { s.turns.Wait(); close(finished) }()
	var err error
	select {
	case <-finished:
	case <-ctx.Done():
		err = fmt.Errorf("turns cancelled at shutdown: %w", ctx.Err())
		s.forEachLive(func(l *live) { l.cancelTurn() })
		<-finished
	}
	s.cancel()
	s.bg.Wait()
	s.mu.Lock()
	all := make([]*live, 0, len(s.live))
	for id, l := range s.live {
		all = append(all, l)
		delete(s.live, id)
	}
	s.mu.Unlock()
	for _, l := range all {
		l.shutdown()
	}
	return err
}

// forEachLive calls f for every open session.
func (s *Server) forEachLive(f func(*live)) {
	s.mu.Lock()
	all := make([]*live, 0, len(s.live))
	for _, l := range s.live {
		all = append(all, l)
	}
	s.mu.Unlock()
	for _, l := range all {
		f(l)
	}
}

// activeSessions counts the sessions open in the server.
func (s *Server) activeSessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.live)
}

// logWriter is an io.Writer of lines for the server log (a session's
// notices: provider retries, a resumed session's warnings).
type logWriter struct {
	log *slog.Logger
	msg string
	l   *live
}

func (w logWriter) Write(p []byte) (int, error) {
	w.log.Info(w.msg, "session", w.l.sessionID(), "text", string(p))
	return len(p), nil
}

var _ io.Writer = logWriter{}
