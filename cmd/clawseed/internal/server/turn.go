package server

import (
	"context"
	"net/http"
	"time"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
)

// A turn is one turn a session runs. It runs under the server's context,
// not the request's: a client that goes away does not stop it (its
// events are stored all the same); POST .../cancel does.
type turn struct {
	ctx    context.Context
	cancel context.CancelFunc
	// done is closed after the turn's last event (its result) is stored.
	done chan struct{}
	// resulted is closed as soon as the result is stored, before the
	// turn lets the session go: a next message waits for done then.
	resulted chan struct{}
	started  time.Time
	// planMode, when set, switches plan mode as the turn starts.
	planMode *bool
}

// running reports whether the turn has not ended yet.
func (t *turn) running() bool {
	select {
	case <-t.done:
		return false
	default:
		return true
	}
}

// beginTurn starts a turn of l with text: one at a time per session (a
// second gets 409). It returns the turn and the sequence number its
// events come after.
func (s *Server) beginTurn(l *live, text string, planMode *bool) (*turn, int64, *apiError) {
	l.mu.Lock()
	for l.turn != nil {
		prev := l.turn
		l.mu.Unlock()
		// A turn whose result is stored is ending: a client that sends
		// its next message the moment the result arrives waits for it.
		select {
		case <-prev.resulted:
			<-prev.done
		default:
			return nil, 0, errorf(http.StatusConflict, "turn_running", "a turn is running in this session; wait for its result or cancel it")
		}
		l.mu.Lock()
	}
	if l.closed {
		l.mu.Unlock()
		return nil, 0, errorf(http.StatusServiceUnavailable, "session_closed", "the session was closed; send the message again")
	}
	start, err := s.events.Last(s.ctx, l.id)
	if err != nil {
		l.mu.Unlock()
		s.log.Error("Event log unreadable", "session", l.id, "error", err)
		return nil, 0, errorf(http.StatusInternalServerError, "events", "the session's events cannot be read")
	}
	ctx, cancel := context.WithCancel(s.ctx)
	t := &turn{ctx: ctx, cancel: cancel, done: make(chan struct{}), resulted: make(chan struct{}), started: s.now(), planMode: planMode}
	l.turn = t
	l.mu.Unlock()
	s.mu.Lock()
	l.users++ // the turn uses the session until it ends
	s.mu.Unlock()
	s.turns.Add(1)
	go s.runTurn(l, t, text)
	return t, start, nil
}

// runTurn runs the turn t of l, as `run` does: the init message, the
// /NAME prompt's skill, the turn, the memory extraction of the turn, and
// the result message last.
func (s *Server) runTurn(l *live, t *turn, text string) {
	defer s.turns.Done()
	defer func() {
		t.cancel()
		l.mu.Lock()
		l.turn = nil
		l.stream = nil // events after the result wait for the next turn
		l.mu.Unlock()
		close(t.done)
		s.release(l)
	}()
	l.op.Lock()
	defer l.op.Unlock()
	as := l.app
	st := l.startStream(s.opts.Init(as))
	ag := as.Agent()
	if t.planMode != nil {
		ag.SetPlanMode(*t.planMode) // its event is the turn's first after init
	}
	before := ag.UsageByModel()
	status, final, iterations := agent.StatusError, "", 0
	prompt, err := as.Prompt(t.ctx, text, logWriter{log: s.log, msg: "Prompt notice", l: l})
	if err == nil {
		var res agent.TurnResult
		res, err = ag.Turn(t.ctx, prompt)
		status, final, iterations = res.Status, res.Final, res.Iterations
		as.FinishExtraction(t.ctx)
	}
	usage := providers.UsageSince(ag.UsageByModel(), before)
	st.WriteResult(st.Result(s.opts.Outcome(as, status, final, iterations, usage, err)))
	close(t.resulted)
	s.metrics.turn(status, s.now().Sub(t.started), providers.TotalUsage(usage), providers.Charge(usage, as.Prices()).USD)
	l.takeSnapshot()
}
