package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/clawseed/clawseed/runtime/memory"
)

// Memories are the long-term memories on PostgreSQL: the rows of
// clawseed.memories under runtime/memory's RowStore, which holds the
// rules (checks, file names, scopes, MEMORY.md, the recall score). Full-
// text search is PostgreSQL's: the generated tsvector column `search`
// (English stemming, name and description weighted above the body) and its
// GIN index. A change holds a transaction-level advisory lock per folder,
// so that replicas saving the same name at once neither lose one nor
// store it twice.
type Memories struct {
	db *DB
}

var _ memory.Rows = (*Memories)(nil)

// Memories returns the database's memory rows.
func (db *DB) Memories() *Memories { return &Memories{db: db} }

// Location names the database in messages.
func (s *Memories) Location() string { return "the database " + s.db.Location() }

// textConfig is the text search configuration of the search column and
// of every query made against it.
const textConfig = "'english'::regconfig"

const memoryColumns = "folder, name, file, type, description, body, created, updated"

func scanMemory(row pgx.Row) (memory.Row, error) {
	var r memory.Row
	err := row.Scan(&r.Folder, &r.Name, &r.File, &r.Type, &r.Description, &r.Body, &r.Created, &r.Updated)
	r.Created, r.Updated = r.Created.UTC(), r.Updated.UTC()
	return r, err
}

// List returns the rows of folders; bodies empty unless bodies.
func (s *Memories) List(ctx context.Context, folders []string, bodies bool) ([]memory.Row, error) {
	rows, err := s.db.pool.Query(ctx, `SELECT folder, name, file, type, description,
		CASE WHEN $2 THEN body ELSE '' END, created, updated
		FROM clawseed.memories WHERE folder = ANY($1)`, folders, bodies)
	if err != nil {
		return nil, fmt.Errorf("read memories: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (memory.Row, error) { return scanMemory(r) })
	if err != nil {
		return nil, fmt.Errorf("read memories: %w", err)
	}
	return out, nil
}

// Get returns the row of folder called name.
func (s *Memories) Get(ctx context.Context, folder, name string) (memory.Row, bool, error) {
	return getMemory(ctx, s.db.pool, "name", folder, name)
}

// GetFile returns the row of folder whose file is file.
func (s *Memories) GetFile(ctx context.Context, folder, file string) (memory.Row, bool, error) {
	return getMemory(ctx, s.db.pool, "file", folder, file)
}

// rowQuerier is a pool or a transaction.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// getMemory reads the row of folder whose column (name or file, never
// user input) is value.
func getMemory(ctx context.Context, q rowQuerier, column, folder, value string) (memory.Row, bool, error) {
	r, err := scanMemory(q.QueryRow(ctx, "SELECT "+memoryColumns+" FROM clawseed.memories WHERE folder = $1 AND "+column+" = $2", folder, value))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return memory.Row{}, false, nil
	case err != nil:
		return memory.Row{}, false, fmt.Errorf("read memory: %w", err)
	}
	return r, true, nil
}

// searchSQL finds the rows of folders $2 (of type $3 when set) that hold
// one of the words $1, through the GIN index (the words ORed by
// websearch_to_tsquery: each word is letters and digits, and "or", the
// only operator word, is a stop-word Recall never sends), with per word
// whether the row holds it (words) and whether its name or description
// does (head, the lexemes weighted A or B), as bit masks; points orders
// them as Recall's score does (5 for a word in the head, 3 for one in the
// body only), ts_rank_cd breaks ties, then the name, in byte order.
const searchSQL = `WITH t AS (
	SELECT i, plainto_tsquery(` + textConfig + `, w) AS q FROM unnest($1::text[]) WITH ORDINALITY AS u(w, i)
), query AS (
	SELECT websearch_to_tsquery(` + textConfig + `, array_to_string($1::text[], ' or ')) AS q
)
SELECT m.folder, m.name, m.file, m.type, m.description, m.body, m.created, m.updated,
	ts_rank_cd(m.search, query.q)::float8 AS rank, w.words, w.head
FROM clawseed.memories m, query, LATERAL (
	SELECT coalesce(sum(CASE WHEN m.search @@ t.q THEN 1::bigint << (t.i - 1)::int ELSE 0 END), 0)::bigint AS words,
		coalesce(sum(CASE WHEN ts_filter(m.search, '{a,b}') @@ t.q THEN 1::bigint << (t.i - 1)::int ELSE 0 END), 0)::bigint AS head,
		coalesce(sum(CASE WHEN ts_filter(m.search, '{a,b}') @@ t.q THEN 5 WHEN m.search @@ t.q THEN 3 ELSE 0 END), 0) AS points
	FROM t
) w
WHERE m.folder = ANY($2) AND ($3 = '' OR m.type = $3) AND m.search @@ query.q
ORDER BY w.points DESC, rank DESC, m.name COLLATE "C", m.folder COLLATE "C"
LIMIT $4`

// Search returns the best q.Limit rows holding one of q.Terms.
func (s *Memories) Search(ctx context.Context, q memory.Search) ([]memory.Match, error) {
	if len(q.Terms) == 0 || q.Limit <= 0 {
		return nil, nil
	}
	rows, err := s.db.pool.Query(ctx, searchSQL, q.Terms, q.Folders, q.Type, q.Limit)
	if err != nil {
		return nil, fmt.Errorf("search memories: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (memory.Match, error) {
		var m memory.Match
		var words, head int64
		err := row.Scan(&m.Folder, &m.Name, &m.File, &m.Type, &m.Description, &m.Body, &m.Created, &m.Updated, &m.Rank, &words, &head)
		m.Created, m.Updated = m.Created.UTC(), m.Updated.UTC()
		m.Words, m.Head = uint32(words), uint32(head)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("search memories: %w", err)
	}
	return out, nil
}

// memoryLockSQL is the advisory lock key of the memory folder $1, in a
// name space of its own.
const memoryLockSQL = "hashtextextended('clawseed.memory:' || $1, 0)"

// Update runs fn in a transaction holding the locks of folders, taken in
// byte order so that two updates of overlapping folders cannot deadlock.
func (s *Memories) Update(ctx context.Context, folders []string, fn func(memory.RowsTx) error) error {
	keys := slices.Clone(folders)
	slices.SortFunc(keys, strings.Compare)
	keys = slices.Compact(keys)
	return pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		for _, k := range keys {
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock("+memoryLockSQL+")", k); err != nil {
				return fmt.Errorf("lock memories: %w", err)
			}
		}
		return fn(memoriesTx{tx})
	})
}

// memoriesTx is the transaction of an Update.
type memoriesTx struct {
	tx pgx.Tx
}

func (t memoriesTx) Get(ctx context.Context, folder, name string) (memory.Row, bool, error) {
	return getMemory(ctx, t.tx, "name", folder, name)
}

func (t memoriesTx) Files(ctx context.Context, folder string) (map[string]bool, error) {
	rows, err := t.tx.Query(ctx, "SELECT file FROM clawseed.memories WHERE folder = $1", folder)
	if err != nil {
		return nil, fmt.Errorf("read memory files: %w", err)
	}
	files, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read memory files: %w", err)
	}
	out := make(map[string]bool, len(files))
	for _, f := range files {
		out[f] = true
	}
	return out, nil
}

func (t memoriesTx) Put(ctx context.Context, r memory.Row) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO clawseed.memories (`+memoryColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (folder, name) DO UPDATE SET file = excluded.file, type = excluded.type,
			description = excluded.description, body = excluded.body, created = excluded.created, updated = excluded.updated`,
		r.Folder, r.Name, r.File, r.Type, r.Description, r.Body, r.Created, r.Updated)
	if err != nil {
		return fmt.Errorf("write memory: %w", err)
	}
	return nil
}

func (t memoriesTx) Delete(ctx context.Context, folder, name string) error {
	if _, err := t.tx.Exec(ctx, "DELETE FROM clawseed.memories WHERE folder = $1 AND name = $2", folder, name); err != nil {
		return fmt.Errorf("delete memory: %w", err)
	}
	return nil
}

func (t memoriesTx) Clear(ctx context.Context, folder string) (int, error) {
	tag, err := t.tx.Exec(ctx, "DELETE FROM clawseed.memories WHERE folder = $1", folder)
	if err != nil {
		return 0, fmt.Errorf("delete memories: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// All reads every memory row of every folder, in folder and file order
// (byte order), for `clawseed storage export`. A database has no
// malformed file to report.
func (s *Memories) All(ctx context.Context) ([]memory.Row, []memory.Diagnostic, error) {
	rows, err := s.db.pool.Query(ctx, "SELECT "+memoryColumns+` FROM clawseed.memories ORDER BY folder COLLATE "C", file COLLATE "C"`)
	if err != nil {
		return nil, nil, fmt.Errorf("read memories: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (memory.Row, error) { return scanMemory(r) })
	if err != nil {
		return nil, nil, fmt.Errorf("read memories: %w", err)
	}
	return out, nil, nil
}

// Import stores rows as they are (folder, file, times), in one
// transaction holding their folders' locks, and skips a row whose name or
// file its folder holds already (`clawseed storage import`). A row a
// store would not make is refused before anything is stored.
func (s *Memories) Import(ctx context.Context, rows []memory.Row) (imported, skipped int, err error) {
	var folders []string
	for _, r := range rows {
		if err := memory.CheckRow(r); err != nil {
			return 0, 0, err
		}
		folders = append(folders, r.Folder)
	}
	err = s.Update(ctx, folders, func(tx memory.RowsTx) error {
		imported, skipped = 0, 0
		t := tx.(memoriesTx)
		for _, r := range rows {
			tag, err := t.tx.Exec(ctx, `INSERT INTO clawseed.memories (`+memoryColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
				ON CONFLICT DO NOTHING`, r.Folder, r.Name, r.File, r.Type, r.Description, r.Body, r.Created, r.Updated)
			if err != nil {
				return fmt.Errorf("import memory %q of %s: %w", r.Name, r.Folder, err)
			}
			if tag.RowsAffected() == 0 {
				skipped++
			} else {
				imported++
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	return imported, skipped, nil
}
