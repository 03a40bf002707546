package pgstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/clawseed/clawseed/runtime/session"
)

// A sink keeps one session's records as rows (a session.Sink). From Create
// (or Open) to Close it holds the session's advisory lock on conn, and
// writes on conn: a write that succeeds was made under the lock.
type sink struct {
	db   *DB
	id   string
	conn *pgxpool.Conn // a lock connection; nil until Create, and after Close
	seq  int64         // the last record's seq
	// broken is a failure after which nothing more may be written: the
	// connection (and so the lock) is gone, or the session was removed.
	broken error
}

// errNotOpen is the error of writing before Create or after Close.
var errNotOpen = errors.New("the session is not open")

// opContext bounds an operation that has no caller's context.
func opContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), opTimeout)
}

// Create locks the session on a connection of its own and stores the
// session row and its first records in one transaction.
func (s *sink) Create(lines [][]byte) error {
	ctx, cancel := opContext()
	defer cancel()
	conn, err := s.db.lock(ctx, s.id)
	if err != nil {
		return fmt.Errorf("create session %s: %w", s.id, err)
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		return insertSession(ctx, tx, s.id, lines, time.Time{})
	})
	if err != nil {
		unlock(conn)
		return fmt.Errorf("create session %s: %w", s.id, err)
	}
	s.conn, s.seq = conn, int64(len(lines))
	return nil
}

// Append stores one record after the last.
func (s *sink) Append(line []byte) error {
	if s.broken != nil {
		return s.broken
	}
	if s.conn == nil {
		return errNotOpen
	}
	ctx, cancel := opContext()
	defer cancel()
	// The update of sessions.updated fails too when the session was
	// removed (--force): the insert's foreign key has no row.
	_, err := s.conn.Exec(ctx, `WITH r AS (
			INSERT INTO clawseed.records (session_id, seq, record) VALUES ($1, $2, $3::json)
		)
		UPDATE clawseed.sessions SET updated = clock_timestamp() WHERE id = $1`,
		s.id, s.seq+1, string(bytes.TrimSuffix(line, []byte("\n"))))
	if err != nil {
		err = fmt.Errorf("write session %s: %w", s.id, err)
		var pe *pgconn.PgError
		if s.conn.Conn().IsClosed() || errors.As(err, &pe) && pe.Code == "23503" { // foreign_key_violation
			s.broken = err
		}
		return err
	}
	s.seq++
	return nil
}

// Close releases the lock, at once: the session is free to open anywhere
// when Close returns.
func (s *sink) Close() error {
	if s.conn == nil {
		return nil
	}
	unlock(s.conn)
	s.conn = nil
	return nil
}

// Transcript is "": the transcript is no file a hook could read.
func (s *sink) Transcript() string { return "" }

func (s *sink) SummaryLocation() string { return summaryLocation(s.id) }

// summaryLocation names a session's summary for messages and the model.
func summaryLocation(id string) string {
	return "the session summary of " + id + " in the clawseed database"
}

func (s *sink) ReadSummary() (session.Summary, bool, error) {
	ctx, cancel := opContext()
	defer cancel()
	return readSummary(ctx, s.db, s.id)
}

// WriteSummary replaces the summary, on the locked connection.
func (s *sink) WriteSummary(sum session.Summary) error {
	if s.broken != nil {
		return s.broken
	}
	if s.conn == nil {
		return errNotOpen
	}
	ctx, cancel := opContext()
	defer cancel()
	_, err := s.conn.Exec(ctx, `INSERT INTO clawseed.summaries (session_id, body) VALUES ($1, $2)
		ON CONFLICT (session_id) DO UPDATE SET body = excluded.body, updated = clock_timestamp()`, s.id, sum.Render())
	if err != nil {
		return fmt.Errorf("write session summary %s: %w", s.id, err)
	}
	return nil
}

// readSummary reads session id's summary.
func readSummary(ctx context.Context, db *DB, id string) (session.Summary, bool, error) {
	var body string
	err := db.pool.QueryRow(ctx, "SELECT body FROM clawseed.summaries WHERE session_id = $1", id).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return session.Summary{}, false, nil
	}
	if err != nil {
		return session.Summary{}, false, fmt.Errorf("read session summary %s: %w", id, err)
	}
	if len(body) > session.MaxSummaryBytes { // as the files store's read cap
		return session.Summary{}, false, fmt.Errorf("read session summary %s: larger than %d bytes", id, session.MaxSummaryBytes)
	}
	return session.ParseSummary(body), true, nil
}

// insertSession stores a new session: its row (updated now when zero)
// and its records, lines without their newlines, the header first. A
// session with the id is session.ErrExists.
func insertSession(ctx context.Context, tx pgx.Tx, id string, lines [][]byte, updated time.Time) error {
	var first session.Record
	if len(lines) == 0 || json.Unmarshal(lines[0], &first) != nil || first.Header == nil {
		return errors.New("the first record is not a header")
	}
	var upd *time.Time
	if !updated.IsZero() {
		upd = &updated
	}
	tag, err := tx.Exec(ctx, `INSERT INTO clawseed.sessions (id, workspace, created, updated)
		VALUES ($1, $2, $3, coalesce($4, clock_timestamp()))
		ON CONFLICT (id) DO NOTHING`, id, first.Header.Workspace, first.Header.Created, upd)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return session.ErrExists
	}
	rows := make([]string, len(lines))
	for i, l := range lines {
		rows[i] = string(bytes.TrimSuffix(l, []byte("\n")))
	}
	_, err = tx.Exec(ctx, `INSERT INTO clawseed.records (session_id, seq, record)
		SELECT $1, n, r::json FROM unnest($2::text[]) WITH ORDINALITY AS t(r, n)`, id, rows)
	return err
}
