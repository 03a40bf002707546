package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"
)

// An Event is one stored event of a session: its sequence number and the
// JSON object as clients get it, "seq" included (see [WithSeq]).
type Event struct {
	Seq  int64
	Data json.RawMessage
}

// An EventLog stores each session's events in order: what a turn's
// stream-json objects and the approval events are, so that
// `GET /v1/sessions/{id}/events?after=N` replays what a dropped stream
// missed. The server writes a session's events from one process at a
// time (the one that has the session open); readers may be anywhere.
//
// The files backend is [FileEvents]; a database backend implements the
// same methods (sequence numbers from one counter per session, in the
// same transaction as the row).
type EventLog interface {
	// Append stores data, one JSON object without "seq", as the session's
	// next event and returns its sequence number: 1 for the first, then
	// each one more, never reused (not after a restart either). The
	// object stored, and returned by After, is WithSeq(data, seq).
	Append(ctx context.Context, sessionID string, data json.RawMessage) (int64, error)
	// After returns up to limit of the session's events with a sequence
	// number above seq, in order; none (and no error) for a session
	// without events.
	After(ctx context.Context, sessionID string, seq int64, limit int) ([]Event, error)
	// Last returns the session's highest sequence number, 0 for none.
	Last(ctx context.Context, sessionID string) (int64, error)
	// Wait returns when the session may have an event above seq (it may
	// return early: the caller reads After and waits again), or with
	// ctx's error when ctx ends first.
	Wait(ctx context.Context, sessionID string, seq int64) error
	// Remove deletes the session's events (DELETE of the session).
	Remove(ctx context.Context, sessionID string) error
	// Ready reports whether the storage can be written (/readyz).
	Ready(ctx context.Context) error
}

// A TurnTracker is an EventLog that also knows whether a session's turn
// runs in another process (a database backend: the replica that holds
// the session's lock). With one, GET .../events on a replica follows a
// turn another replica runs, asking every remotePoll; without one
// ([FileEvents]: a session is open in one process only), a session not
// open in this server runs no turn and its stream ends after the stored
// events.
type TurnTracker interface {
	TurnRunning(ctx context.Context, sessionID string) (bool, error)
}

// remotePoll is how often a stream asks whether another replica's turn
// still runs.
const remotePoll = time.Second

// remoteTurn watches the turn another process may run in session id.
func (s *Server) remoteTurn(ctx context.Context, id string) turnWatch {
	tracker, ok := s.events.(TurnTracker)
	if !ok {
		return turnWatch{}
	}
	return turnWatch{poll: remotePoll, running: func() bool {
		running, err := tracker.TurnRunning(ctx, id)
		if err != nil {
			s.log.Error("Turn state unknown", "session", id, "error", err)
		}
		return running
	}}
}

// WithSeq returns the JSON object data with the field "seq": seq added
// last, so a stream-json object keeps its own field order in front. data
// must be a JSON object.
func WithSeq(data json.RawMessage, seq int64) (json.RawMessage, error) {
	obj := bytes.TrimSpace(data)
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return nil, errors.New("event is not a JSON object")
	}
	body := bytes.TrimSpace(obj[1 : len(obj)-1])
	out := make([]byte, 0, len(obj)+24)
	out = append(out, '{')
	if len(body) > 0 {
		out = append(out, body...)
		out = append(out, ',')
	}
	out = append(out, `"seq":`...)
	out = strconv.AppendInt(out, seq, 10)
	return append(out, '}'), nil
}

// eventType is the "type" of a stored event, "" when it has none.
func eventType(data json.RawMessage) string {
	var head struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(data, &head)
	return head.Type
}

// emit stores one of the server's own events of l (approval_request,
// approval_resolved, turn_interrupted).
func (s *Server) emit(l *live, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		s.log.Error("Event not encoded", "session", l.sessionID(), "error", err)
		return
	}
	s.appendEvent(l, data)
}
