package pgstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/clawseed/clawseed/runtime/session"
)

// Sessions is the session store on PostgreSQL: the methods of
// session.Files, with the same records, ids and errors
// (session.ErrNotFound, session.ErrInUse, session.ErrInvalidID,
// *session.AmbiguousError). A session's records are rows of
// clawseed.records in the order written, its summary a row of
// clawseed.summaries.
type Sessions struct {
	db *DB
	// Now stamps records and new headers; nil means time.Now.
	Now func() time.Time
}

// Sessions returns the session store of the database.
func (db *DB) Sessions() *Sessions { return &Sessions{db: db} }

// Location names the store in messages.
func (s *Sessions) Location() string { return "the database " + s.db.Location() }

// Create returns a Writer for a new session. Nothing is stored until its
// first message; then the session is locked, as by Open, until the Writer
// is closed. An invalid h.ID is reported at that message.
func (s *Sessions) Create(h session.Header) *session.Writer {
	return session.NewWriter(h, s.Now, &sink{db: s.db, id: h.ID}, false)
}

// Open loads session id and opens it for appending, locked against every
// other process of every replica ([session.ErrInUse]) until the Writer is
// closed. The lock is taken first, so nothing is appended between the
// load and the first record of this Writer.
func (s *Sessions) Open(ctx context.Context, id string) (*session.Writer, *session.Session, error) {
	if err := session.CheckID(id); err != nil {
		return nil, nil, err
	}
	conn, err := s.db.lock(ctx, id)
	if err != nil {
		return nil, nil, fmt.Errorf("open session %s: %w", id, err)
	}
	sess, seq, err := s.load(ctx, conn, id)
	if err != nil {
		unlock(conn)
		return nil, nil, err
	}
	return session.NewWriter(sess.Header, s.Now, &sink{db: s.db, id: id, conn: conn, seq: seq}, true), sess, nil
}

// Load reads session id.
func (s *Sessions) Load(ctx context.Context, id string) (*session.Session, error) {
	if err := session.CheckID(id); err != nil {
		return nil, err
	}
	sess, _, err := s.load(ctx, s.db.pool, id)
	return sess, err
}

// querier is a pool or a connection.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// load reads session id's records with q and replays them as
// session.Parse does a file's; seq is the last record's.
func (s *Sessions) load(ctx context.Context, q querier, id string) (*session.Session, int64, error) {
	rows, err := q.Query(ctx, `SELECT s.updated, r.seq, r.record::text
		FROM clawseed.sessions s LEFT JOIN clawseed.records r ON r.session_id = s.id
		WHERE s.id = $1 ORDER BY r.seq`, id)
	if err != nil {
		return nil, 0, fmt.Errorf("read session %s: %w", id, err)
	}
	var (
		found   bool
		updated time.Time
		seq     *int64
		record  *string
		data    bytes.Buffer
		last    int64
	)
	_, err = pgx.ForEachRow(rows, []any{&updated, &seq, &record}, func() error {
		found = true
		if seq != nil && record != nil {
			last = *seq
			data.WriteString(*record)
			data.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("read session %s: %w", id, err)
	}
	if !found {
		return nil, 0, fmt.Errorf("%w: %q in %s", session.ErrNotFound, id, s.Location())
	}
	sess, err := session.Parse(id, data.Bytes())
	if err != nil {
		return nil, 0, err
	}
	sess.Updated = updated
	return sess, last, nil
}

// List describes every session, newest first (as session.Store.List).
func (s *Sessions) List(ctx context.Context) ([]session.Info, error) {
	rows, err := s.db.pool.Query(ctx, `SELECT s.id, s.updated, r.record::text
		FROM clawseed.sessions s JOIN clawseed.records r ON r.session_id = s.id
		ORDER BY s.id, r.seq`)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var (
		infos      []session.Info
		id, prev   string
		updated    time.Time
		prevUpdate time.Time
		record     []byte
		data       bytes.Buffer
	)
	flush := func() {
		if prev == "" {
			return
		}
		info := session.Info{ID: prev, Updated: prevUpdate}
		if sess, err := session.Parse(prev, data.Bytes()); err != nil {
			info.Err = err.Error()
		} else {
			sess.Updated = prevUpdate
			info = sess.Info()
			info.ID = prev
		}
		infos = append(infos, info)
		data.Reset()
	}
	_, err = pgx.ForEachRow(rows, []any{&id, &updated, &record}, func() error {
		if id != prev {
			flush()
			prev, prevUpdate = id, updated
		}
		data.Write(record)
		data.WriteByte('\n')
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	flush()
	session.SortInfos(infos)
	return infos, nil
}

// Latest returns the id of the most recently updated session whose header
// names workspace, or an error wrapping [session.ErrNotFound].
func (s *Sessions) Latest(ctx context.Context, workspace string) (string, error) {
	infos, err := s.List(ctx)
	if err != nil {
		return "", err
	}
	if id, ok := session.LatestIn(infos, workspace); ok {
		return id, nil
	}
	return "", fmt.Errorf("%w: no session for workspace %s in %s", session.ErrNotFound, workspace, s.Location())
}

// Resolve returns the id of the session named by an exact id or a unique
// prefix of one.
func (s *Sessions) Resolve(ctx context.Context, idOrPrefix string) (string, error) {
	if err := session.CheckID(idOrPrefix); err != nil {
		return "", err
	}
	rows, err := s.db.pool.Query(ctx, `SELECT id FROM clawseed.sessions WHERE starts_with(id, $1) ORDER BY id`, idOrPrefix)
	if err != nil {
		return "", fmt.Errorf("resolve session: %w", err)
	}
	matches, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", fmt.Errorf("resolve session: %w", err)
	}
	switch {
	case len(matches) == 0:
		return "", fmt.Errorf("%w: %q in %s", session.ErrNotFound, idOrPrefix, s.Location())
	case len(matches) == 1 || matches[0] == idOrPrefix: // an exact id wins over longer ones
		return matches[0], nil
	}
	return "", &session.AmbiguousError{Prefix: idOrPrefix, Matches: matches}
}

// Remove deletes session id with its summary and its events. A session
// open in any process of any replica is not removed ([session.ErrInUse])
// unless force; its holder's next write then fails.
func (s *Sessions) Remove(ctx context.Context, id string, force bool) error {
	if err := session.CheckID(id); err != nil {
		return err
	}
	err := pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		if !force {
			// Held to the end of the transaction: nobody opens the
			// session between the check and the delete.
			var ok bool
			if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock("+lockSQL+")", id).Scan(&ok); err != nil {
				return err
			}
			if !ok {
				return session.ErrInUse
			}
		}
		tag, err := tx.Exec(ctx, "DELETE FROM clawseed.sessions WHERE id = $1", id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%w: %q in %s", session.ErrNotFound, id, s.Location())
		}
		return deleteEvents(ctx, tx, id)
	})
	if errors.Is(err, session.ErrNotFound) {
		return err
	}
	if err != nil {
		return fmt.Errorf("remove session %s: %w", id, err)
	}
	return nil
}

// InUse reports whether a Writer of any process of any replica has
// session id open.
func (s *Sessions) InUse(ctx context.Context, id string) (bool, error) {
	if err := session.CheckID(id); err != nil {
		return false, err
	}
	var exists, free bool
	err := pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		// A transaction lock probes and is gone at the end of it.
		return tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM clawseed.sessions WHERE id = $1), pg_try_advisory_xact_lock("+lockSQL+")", id).Scan(&exists, &free)
	})
	if err != nil {
		return false, fmt.Errorf("session %s: %w", id, err)
	}
	if !exists {
		return false, fmt.Errorf("%w: %q in %s", session.ErrNotFound, id, s.Location())
	}
	return !free, nil
}

// SummaryPath names session id's summary in messages.
func (s *Sessions) SummaryPath(id string) (string, error) {
	if err := session.CheckID(id); err != nil {
		return "", err
	}
	return summaryLocation(id), nil
}

// ReadSummary reads session id's summary; ok is false when it has none.
func (s *Sessions) ReadSummary(ctx context.Context, id string) (session.Summary, bool, error) {
	if err := session.CheckID(id); err != nil {
		return session.Summary{}, false, err
	}
	return readSummary(ctx, s.db, id)
}
