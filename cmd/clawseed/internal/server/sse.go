package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Server-sent events: every stored event is
//
//	id: SEQ
//	event: message
//	data: {JSON}
//
// and a comment line keeps an idle stream open through proxies. A client
// that reads too slowly is dropped (each write has a deadline); it comes
// back with ?after=N and loses nothing.

const (
	// pingEvery is the longest a stream stays silent.
	pingEvery = 15 * time.Second
	// sseWriteTimeout bounds one write to a client.
	sseWriteTimeout = 30 * time.Second
	// replayBatch is how many stored events are read at a time.
	replayBatch = 500
)

// sseStream writes events to one client.
type sseStream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// startSSE answers 200 with an event stream. The request's read deadline
// is lifted (the body was read; the connection's background read must not
// end the stream) and writes get one deadline each.
func startSSE(w http.ResponseWriter) *sseStream {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	st := &sseStream{w: w, rc: rc}
	_ = st.flush()
	return st
}

func (st *sseStream) flush() error {
	_ = st.rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
	return st.rc.Flush()
}

func (st *sseStream) send(ev Event) error {
	_ = st.rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
	if _, err := fmt.Fprintf(st.w, "id: %d\nevent: message\ndata: %s\n\n", ev.Seq, ev.Data); err != nil {
		return err
	}
	return st.flush()
}

func (st *sseStream) ping() error {
	_ = st.rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
	if _, err := fmt.Fprint(st.w, ": ping\n\n"); err != nil {
		return err
	}
	return st.flush()
}

// A turnWatch says whether the turn a stream follows still runs: done is
// closed when it ends (a turn of this server), or running is asked every
// poll (a turn another replica runs: [TurnTracker]).
type turnWatch struct {
	done    <-chan struct{}
	running func() bool
	poll    time.Duration
}

// localTurn watches a turn of this server; nil: none.
func localTurn(t *turn) turnWatch {
	if t == nil {
		return turnWatch{}
	}
	return turnWatch{done: t.done, running: t.running, poll: pingEvery}
}

// follow streams session id's events after seq: the stored ones, then,
// while the turn w watches runs, each as it is stored, until the turn
// ends and its last event is sent. It returns when the stream is done, the
// client went away, or the server shuts down.
func (s *Server) follow(ctx context.Context, st *sseStream, id string, after int64, w turnWatch) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	// wake ends a wait when the turn ends: its result is stored by then.
	wake, wakeCancel := context.WithCancel(ctx)
	defer wakeCancel()
	if w.done != nil {
		go func() {
			select {
			case <-w.done:
				wakeCancel()
			case <-wake.Done():
			}
		}()
	}
	lastPing := time.Now()
	for {
		finished := w.running == nil || !w.running()
		evs, err := s.events.After(ctx, id, after, replayBatch)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("Events not read", "session", id, "error", err)
			}
			return
		}
		for _, ev := range evs {
			if err := st.send(ev); err != nil {
				return
			}
			after = ev.Seq
		}
		switch {
		case len(evs) == replayBatch:
			continue
		case finished:
			return
		}
		wctx, wcancel := context.WithTimeout(wake, w.poll)
		err = s.events.Wait(wctx, id, after)
		wcancel()
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, context.DeadlineExceeded):
			if time.Since(lastPing) >= pingEvery {
				if st.ping() != nil {
					return
				}
				lastPing = time.Now()
			}
		case err != nil && wake.Err() == nil:
			s.log.Error("Events not followed", "session", id, "error", err)
			return
		}
	}
}
