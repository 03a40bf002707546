// Package eventlog is the server's per-session event log: every event a
// turn emits (the stream-json objects and clawseed's own) is stored with
// its sequence number, so that a client that lost its stream resumes it
// (GET /v1/sessions/{id}/events?after=N), on any replica.
//
// A [Log] numbers each session's events 1, 2, 3… in the order they are
// appended, never reusing a number. [Files] keeps them in files for one
// machine; runtime/pgstore's Events in PostgreSQL for replicas.
package eventlog

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// An Event is one stored event.
type Event struct {
	// Seq is the event's number in its session: 1 for the first.
	Seq int64
	// Data is the event as appended: one JSON value, byte for byte.
	Data json.RawMessage
	// Created is when it was appended.
	Created time.Time
}

// A Log stores the events of sessions. Its methods are safe for
// concurrent use, from several processes too.
type Log interface {
	// Append stores data (one JSON value) as session's next event and
	// returns its sequence number.
	Append(ctx context.Context, session string, data []byte) (int64, error)
	// After returns session's events with a sequence number above seq,
	// in order, at most limit of them (limit <= 0: all).
	After(ctx context.Context, session string, seq int64, limit int) ([]Event, error)
	// Wait returns when session has an event above seq (at once if it
	// has one already), or with ctx's error.
	Wait(ctx context.Context, session string, seq int64) error
	// Remove deletes session's events (the session was deleted); a
	// session without events is no error. Numbering starts again at 1.
	Remove(ctx context.Context, session string) error
}

// ErrNotJSON is the error of appending data that is not one JSON value.
var ErrNotJSON = errors.New("event data is not a JSON value")
