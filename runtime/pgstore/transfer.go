package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/clawseed/clawseed/runtime/session"
)

// Export reads session id whole: its records as the lines of a session
// file, its last update, its summary.
func (s *Sessions) Export(ctx context.Context, id string) (session.Stored, error) {
	if err := session.CheckID(id); err != nil {
		return session.Stored{}, err
	}
	var st session.Stored
	err := pgx.BeginTxFunc(ctx, s.db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var updated time.Time
		err := tx.QueryRow(ctx, "SELECT updated FROM clawseed.sessions WHERE id = $1", id).Scan(&updated)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: %q in %s", session.ErrNotFound, id, s.Location())
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, "SELECT record::text FROM clawseed.records WHERE session_id = $1 ORDER BY seq", id)
		if err != nil {
			return err
		}
		var data []byte
		var rec string
		if _, err := pgx.ForEachRow(rows, []any{&rec}, func() error {
			data = append(append(data, rec...), '\n')
			return nil
		}); err != nil {
			return err
		}
		var summary *string
		err = tx.QueryRow(ctx, "SELECT body FROM clawseed.summaries WHERE session_id = $1", id).Scan(&summary)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		st = session.Stored{ID: id, Data: data, Updated: updated}
		if summary != nil {
			st.Summary = *summary
		}
		return nil
	})
	if errors.Is(err, session.ErrNotFound) {
		return session.Stored{}, err
	}
	if err != nil {
		return session.Stored{}, fmt.Errorf("export session %s: %w", id, err)
	}
	return st, nil
}

// Import stores a session exported from any store, with its update time
// and summary, in one transaction; an id the database holds is
// session.ErrExists.
func (s *Sessions) Import(ctx context.Context, st session.Stored) error {
	lines, err := session.ImportLines(st)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		if err := insertSession(ctx, tx, st.ID, lines, st.Updated); err != nil {
			return err
		}
		if st.Summary == "" {
			return nil
		}
		_, err := tx.Exec(ctx, "INSERT INTO clawseed.summaries (session_id, body) VALUES ($1, $2)", st.ID, st.Summary)
		return err
	})
	if err != nil {
		return fmt.Errorf("import session %s: %w", st.ID, err)
	}
	return nil
}
