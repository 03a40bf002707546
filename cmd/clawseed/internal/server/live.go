package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/cmd/clawseed/internal/streamjson"
	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/session"
)

// A live session is one open in the server: its app.Session, the turn it
// runs, the approvals it waits for, and the stream-json stream its
// events go to.
type live struct {
	s *Server
	// workspace is the session's resolved workspace; created its start.
	workspace string
	created   time.Time
	// cfgLevel is the workspace configuration's autonomy; level the one
	// the session runs at (capped by the token that opened it).
	cfgLevel, level permissions.Level

	// ready is closed once the session is open (or failed to open:
	// openErr); users counts the requests and turns using it, which the
	// idle janitor waits for; retiring says it is being closed (it stays
	// in the map until then, and gone is closed after: a request for it
	// waits, so that opening it again finds its file unlocked). Under
	// s.mu.
	ready    chan struct{}
	openErr  *apiError
	users    int
	retiring bool
	gone     chan struct{}

	// op is held while the app session is in use: its methods are for
	// one goroutine at a time (the turn, or a request between turns).
	op  sync.Mutex
	app *app.Session

	mu      sync.Mutex
	id      string
	turn    *turn
	pending map[string]*pendingApproval
	stream  *streamjson.Stream
	// queue holds the events that came between turns (a session's start
	// activates skills; a skill activated over HTTP): the next turn's
	// stream writes them after its init message.
	queue    []agent.Event
	lastUsed time.Time
	closed   bool
	snap     snapshot
}

func (l *live) sessionID() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.id
}

// appOptions are the app.Options the server builds a session with: what
// chat and run pass, with the server's approver and event sink.
func (l *live) appOptions(r app.Resume) app.Options {
	return app.Options{
		Approver: &approver{l: l},
		Sink:     l.sink,
		Log:      l.s.log,
		Notices:  logWriter{log: l.s.log, msg: "Session notice", l: l},
		Resume:   r,
		Watch:    true,
		Process:  l.s.opts.Process,
	}
}

// sink takes the session's agent events: into the stream of the turn
// running, or, between turns, into the queue of the next one.
func (l *live) sink(ev agent.Event) {
	if ev.Type == agent.EventToolCall && !strings.HasPrefix(ev.ID, "/") {
		l.s.metrics.toolCall(ev.Name)
	}
	l.mu.Lock()
	st := l.stream
	if st == nil && ev.Type != agent.EventToolOutput && len(l.queue) < maxQueued {
		l.queue = append(l.queue, ev)
	}
	l.mu.Unlock()
	if st != nil {
		st.Handle(ev)
	}
}

// maxQueued bounds the events kept between turns.
const maxQueued = 1000

// startStream makes the stream of a turn of l (its clock starts now),
// writes init, then the events queued since the last turn, and makes it
// the stream the sink writes to. Holding l.mu throughout keeps the
// events that come meanwhile behind the queued ones.
func (l *live) startStream(init streamjson.Init) *streamjson.Stream {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := streamjson.New(eventWriter{s: l.s, id: l.id}, streamjson.Options{Partial: true})
	st.Init(init)
	for _, ev := range l.queue {
		st.Handle(ev)
	}
	l.queue = nil
	l.stream = st
	return st
}

// eventWriter appends the lines a streamjson.Stream writes to the event
// log of session id, one event per JSON object.
type eventWriter struct {
	s  *Server
	id string
}

func (w eventWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		if line == "" {
			continue
		}
		if _, err := w.s.storeEvent(w.id, []byte(line)); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// appendEvent stores one event of l.
func (s *Server) appendEvent(l *live, data []byte) (int64, error) {
	return s.storeEvent(l.sessionID(), data)
}

// storeEvent stores one event of session id.
func (s *Server) storeEvent(id string, data []byte) (int64, error) {
	seq, err := s.events.Append(s.ctx, id, data)
	if err != nil {
		s.log.Error("Event not stored", "session", id, "error", err)
	}
	return seq, err
}

// acquire returns the open session id for p, opening (resuming) it when
// it is not open, and counts p's request as a user until release. A
// session p may not see is not found. forTurn: p is about to run a turn,
// so a session open at a higher autonomy than p's token allows is
// reopened at p's (or, in use, refused).
func (s *Server) acquire(ctx context.Context, id string, p *principal, forTurn bool) (*live, *apiError) {
	if checkSessionID(id) != nil {
		return nil, notFound("no session " + id)
	}
	for attempt := 0; ; attempt++ {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, errorf(http.StatusServiceUnavailable, "shutting_down", "the server is shutting down")
		}
		l := s.live[id]
		if l != nil && l.retiring {
			s.mu.Unlock()
			select {
			case <-l.gone:
				continue
			case <-ctx.Done():
				return nil, errorf(http.StatusServiceUnavailable, "cancelled", "the request ended while the session closed")
			}
		}
		if l == nil {
			l = &live{s: s, id: id, ready: make(chan struct{}), users: 1, gone: make(chan struct{})}
			s.live[id] = l
			s.mu.Unlock()
			aerr := s.resume(ctx, l, p)
			if aerr != nil && aerr.Code == "turn_running" && (attempt < deadHolderRetries || attempt < closingRetries && s.turnEnded(ctx, id)) {
				// The replica that ran the last turn has stored its
				// result and is closing the session: a client that
				// sends its next message at once waits for the lock
				// rather than being told a turn runs. So does one
				// whose turn has not ended, for a moment: the replica
				// running it may have just died.
				s.mu.Lock()
				delete(s.live, id)
				l.openErr = aerr // whoever waits on l tries again too
				s.mu.Unlock()
				close(l.ready)
				select {
				case <-time.After(closingWait):
					continue
				case <-ctx.Done():
					return nil, aerr
				}
			}
			if aerr != nil {
				s.mu.Lock()
				delete(s.live, id)
				l.openErr = aerr
				s.mu.Unlock()
				close(l.ready)
				return nil, aerr
			}
			close(l.ready)
			return l, nil
		}
		l.users++
		s.mu.Unlock()
		select {
		case <-l.ready:
		case <-ctx.Done():
			s.release(l)
			return nil, errorf(http.StatusServiceUnavailable, "cancelled", "the request ended while the session opened")
		}
		if l.openErr != nil {
			s.release(l)
			if attempt < 2 {
				continue // it failed for whoever opened it; try for p
			}
			return nil, l.openErr
		}
		if !p.allows(l.workspace) {
			s.release(l)
			return nil, notFound("no session " + id)
		}
		if forTurn && p.level(l.cfgLevel) != l.level {
			if aerr := s.reopen(l); aerr != nil {
				s.release(l)
				return nil, aerr
			}
			continue
		}
		return l, nil
	}
}

// reopen closes l, open at another autonomy than the caller's token
// gives, so that the next acquire opens it anew: only when nothing else
// uses it.
func (s *Server) reopen(l *live) *apiError {
	s.mu.Lock()
	l.mu.Lock()
	busy := l.users > 1 || l.turn != nil
	l.mu.Unlock()
	if busy {
		s.mu.Unlock()
		return errorf(http.StatusConflict, "session_busy",
			"the session is in use at another autonomy than this token's; try again when it is idle")
	}
	l.retiring = true
	s.mu.Unlock()
	s.retire(l, nil)
	return nil
}

// retire shuts l down, which the caller marked retiring under s.mu, runs
// then (while requests for l still wait), and takes l out of the server.
func (s *Server) retire(l *live, then func()) {
	l.shutdown()
	if then != nil {
		then()
	}
	s.mu.Lock()
	if s.live[l.id] == l {
		delete(s.live, l.id)
	}
	s.mu.Unlock()
	close(l.gone)
}

// release ends one use of l. With replicas (perTurn), the last use
// closes it: its lock is released for whichever replica serves the next
// request, which resumes it from the store, history included.
func (s *Server) release(l *live) {
	s.mu.Lock()
	l.users--
	l.mu.Lock()
	l.lastUsed = s.now()
	idle := s.perTurn && l.users == 0 && l.turn == nil && !l.retiring && l.id != ""
	l.mu.Unlock()
	// A new session is stored at its first message: until then only this
	// replica has it, so it stays open here (the idle janitor closes it).
	idle = idle && l.stored()
	if idle && s.live[l.id] == l {
		l.retiring = true
	} else {
		idle = false
	}
	s.mu.Unlock()
	if idle {
		s.retire(l, nil)
	}
}

// resume opens the saved session l.id for p into l, as --resume does.
func (s *Server) resume(ctx context.Context, l *live, p *principal) *apiError {
	saved, err := app.LoadSaved(ctx, s.cfg, s.opts.Process, l.id)
	switch {
	case errors.Is(err, session.ErrNotFound), errors.Is(err, session.ErrInvalidID):
		return notFound("no session " + l.id)
	case err != nil:
		s.log.Error("Session store", "error", err)
		return errorf(http.StatusInternalServerError, "store", "the session store cannot be read")
	}
	ws := saved.Header.Workspace
	if ws == "" || !p.allows(ws) {
		return notFound("no session " + l.id)
	}
	if aerr := s.trusted(ws); aerr != nil {
		return aerr
	}
	cfg, aerr := s.sessionConfig(ctx, ws, "", p, l)
	if aerr != nil {
		return aerr
	}
	l.workspace, l.created = ws, saved.Header.Created
	as, err := app.Build(s.ctx, cfg, l.appOptions(app.Resume{ID: l.id}))
	if err != nil {
		return s.buildError(err)
	}
	l.app = as
	s.markInterrupted(l)
	l.op.Lock()
	l.takeSnapshot()
	l.op.Unlock()
	return nil
}

// create starts a new session for p in the workspace ws (resolved and
// checked), with model (a [providers.models] entry or model id, "" for
// the configuration's), and activates skills.
func (s *Server) create(ctx context.Context, p *principal, ws, model string, skills []string) (*live, *apiError) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, errorf(http.StatusServiceUnavailable, "shutting_down", "the server is shutting down")
	}
	l := &live{s: s, workspace: ws, created: s.now(), ready: make(chan struct{}), users: 1, gone: make(chan struct{})}
	close(l.ready)
	cfg, aerr := s.sessionConfig(ctx, ws, model, p, l)
	if aerr != nil {
		return nil, aerr
	}
	as, err := app.Build(s.ctx, cfg, l.appOptions(app.Resume{}))
	if err != nil {
		return nil, s.buildError(err)
	}
	l.app = as
	l.mu.Lock()
	l.id = as.ID()
	l.mu.Unlock()
	l.op.Lock()
	for _, name := range skills {
		if out := as.Agent().ActivateSkill(ctx, name, ""); out.IsError {
			l.op.Unlock()
			l.shutdown()
			return nil, errorf(http.StatusBadRequest, "skill_failed", "%s", out.Text)
		}
	}
	l.takeSnapshot()
	l.op.Unlock()
	s.mu.Lock()
	s.live[l.id] = l
	s.mu.Unlock()
	return l, nil
}

// sessionConfig loads the configuration of a session of p in ws: the
// workspace's layers, the model asked for, and the autonomy capped by
// p's token. The session store must be the server's.
func (s *Server) sessionConfig(ctx context.Context, ws, model string, p *principal, l *live) (*config.Config, *apiError) {
	cfg, err := s.opts.Load(ctx, ws)
	if err != nil {
		return nil, s.buildError(err)
	}
	switch {
	case !cfg.Sessions.Enabled:
		return nil, errorf(http.StatusBadRequest, "sessions_disabled", "the configuration of %s turns sessions off; the server saves every session", ws)
	case !sameStorage(cfg, s.cfg):
		return nil, errorf(http.StatusBadRequest, "storage", "the configuration of %s sets another [storage] than the server's", ws)
	case s.cfg.Storage.Backend != config.StoragePostgres && cfg.SessionsDir() != s.cfg.SessionsDir():
		return nil, errorf(http.StatusBadRequest, "sessions_dir", "the configuration of %s keeps sessions in %s, not in the server's %s", ws, cfg.SessionsDir(), s.cfg.SessionsDir())
	}
	if model != "" {
		if err := cfg.Apply(config.Overrides{Model: model}); err != nil {
			return nil, s.buildError(err)
		}
	}
	level, err := permissions.ParseLevel(cfg.Autonomy.Level)
	if err != nil {
		return nil, s.buildError(err)
	}
	l.cfgLevel, l.level = level, p.level(level)
	cfg.Autonomy.Level = string(l.level)
	return cfg, nil
}

// sameStorage reports whether a and b keep sessions in the same backend
// and database.
func sameStorage(a, b *config.Config) bool {
	if a.Storage.Backend != b.Storage.Backend {
		return false
	}
	if a.Storage.Backend != config.StoragePostgres {
		return true
	}
	ua, erra := a.PostgresURL()
	ub, errb := b.PostgresURL()
	return erra == nil && errb == nil && ua == ub
}

// buildError is the answer for an error of loading a configuration or
// building a session.
func (s *Server) buildError(err error) *apiError {
	var ce *config.Error
	var np *config.NoProviderError
	switch {
	case errors.As(err, &ce), errors.As(err, &np), errors.As(err, new(*app.PromptError)):
		return errorf(http.StatusBadRequest, "config_error", "%s", err.Error())
	case errors.Is(err, session.ErrInUse) && s.perTurn:
		// Replicas lock a session only while one runs a turn in it.
		return errorf(http.StatusConflict, "turn_running", "a turn is running in this session on another replica; wait for its result")
	case errors.Is(err, session.ErrInUse):
		return errorf(http.StatusConflict, "session_in_use", "%s", err.Error())
	case errors.Is(err, session.ErrNotFound):
		return notFound(err.Error())
	}
	s.log.Error("Session not built", "error", err)
	return errorf(http.StatusInternalServerError, "internal", "the session could not be opened: %s", err.Error())
}

// How long acquire waits for a session whose last turn has ended on
// another replica, which still holds its lock while it closes it: up to
// closingRetries × closingWait.
const (
	closingRetries = 100
	closingWait    = 20 * time.Millisecond
)

// How long acquire waits for the lock of a session whose turn has not
// ended, up to deadHolderRetries × closingWait (1 s): a replica killed
// mid-turn holds the lock through its database connection until
// PostgreSQL sees that connection close, a moment after the process is
// gone; a request sent right after the kill then gets the session, not a
// 409 for a turn nobody runs. A turn that really runs elsewhere is
// answered 409 after the wait.
const deadHolderRetries = 50

// turnEnded reports whether session id's last stored event ends a turn
// (its result, or the mark of a turn that never ended): no turn runs in it
// now, whoever holds its lock.
func (s *Server) turnEnded(ctx context.Context, id string) bool {
	last, err := s.events.Last(ctx, id)
	if err != nil || last == 0 {
		return false
	}
	evs, err := s.events.After(ctx, id, last-1, 1)
	if err != nil || len(evs) == 0 {
		return false
	}
	switch eventType(evs[0].Data) {
	case "result", "turn_interrupted":
		return true
	}
	return false
}

// markInterrupted writes turn_interrupted for a session whose last turn
// never ended (the process that ran it died): its events stop before the
// result.
func (s *Server) markInterrupted(l *live) {
	last, err := s.events.Last(s.ctx, l.id)
	if err != nil || last == 0 {
		return
	}
	evs, err := s.events.After(s.ctx, l.id, last-1, 1)
	if err != nil || len(evs) == 0 {
		return
	}
	switch eventType(evs[0].Data) {
	case "result", "turn_interrupted":
		return
	}
	s.emit(l, struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	}{"turn_interrupted", "the server stopped before the turn ended"})
}

// janitor closes the sessions nobody has used for [serve].idle_timeout_secs.
func (s *Server) janitor() {
	every := min(s.idleTimeout()/2, 30*time.Second)
	tick := time.NewTicker(max(every, 100*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
		}
		now := s.now()
		var idle []*live
		s.mu.Lock()
		for _, l := range s.live {
			l.mu.Lock()
			if !l.retiring && l.users == 0 && l.turn == nil && now.Sub(l.lastUsed) >= s.idleTimeout() {
				l.retiring = true
				idle = append(idle, l)
			}
			l.mu.Unlock()
		}
		s.mu.Unlock()
		for _, l := range idle {
			s.log.Info("Session closed when idle", "session", l.id)
			s.retire(l, nil)
		}
	}
}

// shutdown ends l's app session once nothing uses it: its file is closed,
// its MCP servers stopped.
func (l *live) shutdown() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	l.mu.Unlock()
	l.op.Lock()
	defer l.op.Unlock()
	if l.app != nil {
		if err := l.app.Shutdown(); err != nil {
			l.s.log.Error("Session not closed cleanly", "session", l.sessionID(), "error", err)
		}
	}
}

// stored reports whether l's session is in the store, so that another
// request (on any replica) can resume it.
func (l *live) stored() bool {
	if !l.op.TryLock() {
		return false // in use: its user releases it again
	}
	defer l.op.Unlock()
	return l.app != nil && l.app.Stored()
}

// cancelTurn cancels the turn l runs, if any.
func (l *live) cancelTurn() {
	l.mu.Lock()
	t := l.turn
	l.mu.Unlock()
	if t != nil {
		t.cancel()
	}
}
