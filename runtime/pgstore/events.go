package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/clawseed/clawseed/runtime/eventlog"
	"github.com/clawseed/clawseed/runtime/session"
)

// eventsChannel is the LISTEN/NOTIFY channel of appended events; the
// payload is the session id.
const eventsChannel = "clawseed_events"

// Events is the event log on PostgreSQL (an eventlog.Log): rows of
// clawseed.events, numbered per session through clawseed.event_seqs. An
// append notifies eventsChannel, so that a Wait on any replica returns as
// soon as the event is committed.
//
// Each Events listens on one connection of its own, opened at the first
// Wait and reopened when it breaks; after every (re)connection the waiters
// look at the table again, so an event notified while no one listened is
// not missed. A Wait also looks every [waitPoll] whatever happens.
type Events struct {
	db *DB

	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{}
	started bool
	stop    context.CancelFunc
	done    chan struct{}
}

// waitPoll bounds how long a Wait goes without looking at the table, for a
// listener that cannot connect.
const waitPoll = 5 * time.Second

// Events returns the database's event log; every call returns the same one,
// closed with the database.
func (db *DB) Events() *Events {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.events == nil {
		db.events = &Events{db: db, waiters: map[string]map[chan struct{}]struct{}{}}
	}
	return db.events
}

// Append stores data (one JSON value, compacted) as session's next event,
// numbered in the same statement, and notifies the waiters of every
// replica.
func (e *Events) Append(ctx context.Context, sess string, data []byte) (int64, error) {
	if err := session.CheckID(sess); err != nil {
		return 0, err
	}
	data, err := eventlog.Compact(data)
	if err != nil {
		return 0, err
	}
	var seq int64
	var notified string
	err = e.db.pool.QueryRow(ctx, `WITH n AS (
			INSERT INTO clawseed.event_seqs AS s (session_id, last) VALUES ($1, 1)
			ON CONFLICT (session_id) DO UPDATE SET last = s.last + 1
			RETURNING last
		), ins AS (
			INSERT INTO clawseed.events (session_id, seq, data) SELECT $1, last, $2::json FROM n
			RETURNING seq
		)
		SELECT seq, pg_notify('`+eventsChannel+`', $1)::text FROM ins`, sess, string(data)).Scan(&seq, &notified)
	if err != nil {
		return 0, fmt.Errorf("event log %s: %w", sess, err)
	}
	return seq, nil
}

// After returns session's events above seq, at most limit (<= 0: all).
func (e *Events) After(ctx context.Context, sess string, seq int64, limit int) ([]eventlog.Event, error) {
	if err := session.CheckID(sess); err != nil {
		return nil, err
	}
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := e.db.pool.Query(ctx, `SELECT seq, data::text, created FROM clawseed.events
		WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, sess, seq, lim)
	if err != nil {
		return nil, fmt.Errorf("event log %s: %w", sess, err)
	}
	var out []eventlog.Event
	var ev eventlog.Event
	var data string
	_, err = pgx.ForEachRow(rows, []any{&ev.Seq, &data, &ev.Created}, func() error {
		ev.Data = json.RawMessage(data)
		out = append(out, ev)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("event log %s: %w", sess, err)
	}
	return out, nil
}

// Wait returns when session has an event above seq.
func (e *Events) Wait(ctx context.Context, sess string, seq int64) error {
	if err := session.CheckID(sess); err != nil {
		return err
	}
	ch := e.subscribe(sess)
	defer e.unsubscribe(sess, ch)
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	for {
		// Subscribed before looking: an event committed after the look
		// wakes ch.
		var has bool
		err := e.db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM clawseed.events WHERE session_id = $1 AND seq > $2)`,
			sess, seq).Scan(&has)
		if err != nil {
			return fmt.Errorf("event log %s: %w", sess, err)
		}
		if has {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		case <-tick.C:
		}
	}
}

// subscribe registers a waiter of session and starts the listener.
func (e *Events) subscribe(sess string) chan struct{} {
	ch := make(chan struct{}, 1)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.waiters[sess] == nil {
		e.waiters[sess] = map[chan struct{}]struct{}{}
	}
	e.waiters[sess][ch] = struct{}{}
	if !e.started {
		e.started = true
		ctx, cancel := context.WithCancel(context.Background())
		e.stop, e.done = cancel, make(chan struct{})
		go e.listen(ctx)
	}
	return ch
}

func (e *Events) unsubscribe(sess string, ch chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.waiters[sess], ch)
	if len(e.waiters[sess]) == 0 {
		delete(e.waiters, sess)
	}
}

// wake tells the waiters of session (all of them when sess is "") to look
// again.
func (e *Events) wake(sess string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for s, chans := range e.waiters {
		if sess != "" && s != sess {
			continue
		}
		for ch := range chans {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// listen holds the LISTEN connection until ctx ends, reconnecting with
// backoff when it breaks.
func (e *Events) listen(ctx context.Context) {
	defer close(e.done)
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		if e.listenOnce(ctx) {
			backoff = 100 * time.Millisecond // it was up: the next try is soon
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// listenOnce connects, listens, and delivers notifications until the
// connection breaks or ctx ends; it reports whether it listened.
func (e *Events) listenOnce(ctx context.Context) bool {
	conn, err := e.db.connect(ctx)
	if err != nil {
		return false
	}
	defer closeConn(conn)
	if _, err := conn.Exec(ctx, "LISTEN "+eventsChannel); err != nil {
		return false
	}
	e.wake("") // what was appended while no one listened
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true
		}
		e.wake(n.Payload)
	}
}

// close stops the listener.
func (e *Events) close() {
	e.mu.Lock()
	stop, done := e.stop, e.done
	e.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

// Remove deletes session's events and numbering (removing a session with
// [Sessions.Remove] does it too).
func (e *Events) Remove(ctx context.Context, sess string) error {
	if err := session.CheckID(sess); err != nil {
		return err
	}
	err := pgx.BeginFunc(ctx, e.db.pool, func(tx pgx.Tx) error { return deleteEvents(ctx, tx, sess) })
	if err != nil {
		return fmt.Errorf("event log %s: %w", sess, err)
	}
	return nil
}

// deleteEvents removes session id's events and numbering (when the
// session is removed).
func deleteEvents(ctx context.Context, tx pgx.Tx, id string) error {
	_, err := tx.Exec(ctx, `DELETE FROM clawseed.events WHERE session_id = $1;`, id)
	if err == nil {
		_, err = tx.Exec(ctx, `DELETE FROM clawseed.event_seqs WHERE session_id = $1`, id)
	}
	return err
}

// Last returns session's highest sequence number, 0 for none (the
// server's check, before a turn, of where its events start).
func (e *Events) Last(ctx context.Context, sess string) (int64, error) {
	if err := session.CheckID(sess); err != nil {
		return 0, err
	}
	var last int64
	err := e.db.pool.QueryRow(ctx, `SELECT COALESCE(MAX(last), 0) FROM clawseed.event_seqs WHERE session_id = $1`, sess).Scan(&last)
	if err != nil {
		return 0, fmt.Errorf("event log %s: %w", sess, err)
	}
	return last, nil
}
