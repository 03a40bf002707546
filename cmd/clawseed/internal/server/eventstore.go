package server

import (
	"context"
	"encoding/json"

	"github.com/clawseed/clawseed/runtime/eventlog"
)

// StoreEvents is the [EventLog] over an eventlog.Log (the postgres
// backend's, app.OpenEventLog): the log numbers the events as it appends
// them, so the one rule of the server's contract — the object stored and
// returned is WithSeq(data, seq) — is applied on the way out, by After.
// It is a [TurnTracker] when InUse is set: on the postgres backend a
// session is locked only while a replica runs a turn in it.
type StoreEvents struct {
	Log eventlog.Log
	// Ping reports whether the storage answers (/readyz); nil: always.
	Ping func(ctx context.Context) error
	// InUse reports whether a process holds session id's lock.
	InUse func(ctx context.Context, id string) (bool, error)
}

// lastSeqer is an eventlog.Log that knows a session's last number without
// reading its events.
type lastSeqer interface {
	Last(ctx context.Context, session string) (int64, error)
}

// Append stores data; its number is the log's.
func (e *StoreEvents) Append(ctx context.Context, id string, data json.RawMessage) (int64, error) {
	return e.Log.Append(ctx, id, data)
}

// After returns the events above seq, each with its "seq".
func (e *StoreEvents) After(ctx context.Context, id string, seq int64, limit int) ([]Event, error) {
	if limit <= 0 {
		limit = replayBatch
	}
	evs, err := e.Log.After(ctx, id, seq, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Event, 0, len(evs))
	for _, ev := range evs {
		data, err := WithSeq(ev.Data, ev.Seq)
		if err != nil {
			return nil, err
		}
		out = append(out, Event{Seq: ev.Seq, Data: data})
	}
	return out, nil
}

// Last returns the session's highest number.
func (e *StoreEvents) Last(ctx context.Context, id string) (int64, error) {
	if l, ok := e.Log.(lastSeqer); ok {
		return l.Last(ctx, id)
	}
	var last int64
	for {
		evs, err := e.Log.After(ctx, id, last, replayBatch)
		if err != nil || len(evs) == 0 {
			return last, err
		}
		last = evs[len(evs)-1].Seq
	}
}

// Wait returns when the session may have an event above seq.
func (e *StoreEvents) Wait(ctx context.Context, id string, seq int64) error {
	return e.Log.Wait(ctx, id, seq)
}

// Remove deletes the session's events.
func (e *StoreEvents) Remove(ctx context.Context, id string) error { return e.Log.Remove(ctx, id) }

// Ready reports whether the storage answers.
func (e *StoreEvents) Ready(ctx context.Context) error {
	if e.Ping == nil {
		return nil
	}
	return e.Ping(ctx)
}

// TurnRunning reports whether a replica holds the session's lock.
func (e *StoreEvents) TurnRunning(ctx context.Context, id string) (bool, error) {
	if e.InUse == nil {
		return false, nil
	}
	return e.InUse(ctx, id)
}

var (
	_ EventLog    = (*StoreEvents)(nil)
	_ TurnTracker = (*StoreEvents)(nil)
)
