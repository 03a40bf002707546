package memory

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // registers driver "sqlite" (pure Go, FTS5 compiled in)
)

// schemaVersion is stored in PRAGMA user_version. The memory tables are
// only an index and are rebuilt when it changes; the knowledge tables are
// the truth for the graph and are never dropped.
const schemaVersion = 1

const schema = `
CREATE TABLE IF NOT EXISTS mem_files(
	id INTEGER PRIMARY KEY,
	path TEXT NOT NULL UNIQUE,   -- relative to the memory dir, slash-separated
	folder TEXT NOT NULL,        -- "user" or "projects/<key>"
	mtime INTEGER NOT NULL,      -- UnixNano
	size INTEGER NOT NULL,
	hash TEXT NOT NULL,          -- sha256 of the content
	name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '', type TEXT NOT NULL DEFAULT '',
	created TEXT NOT NULL DEFAULT '', updated TEXT NOT NULL DEFAULT '', body TEXT NOT NULL DEFAULT '',
	diag TEXT NOT NULL DEFAULT '' -- parse error; such rows have no FTS row
);
CREATE INDEX IF NOT EXISTS mem_files_folder ON mem_files(folder);
CREATE VIRTUAL TABLE IF NOT EXISTS mem_fts USING fts5(name, description, body, tokenize='porter unicode61 remove_diacritics 2');

CREATE TABLE IF NOT EXISTS k_nodes(
	rid INTEGER PRIMARY KEY,
	id TEXT NOT NULL UNIQUE,
	type TEXT NOT NULL, title TEXT NOT NULL, content TEXT NOT NULL,
	tags TEXT NOT NULL,          -- JSON array
	source TEXT NOT NULL,
	created TEXT NOT NULL, updated TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS k_fts USING fts5(title, content, tags, tokenize='porter unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS k_relations(
	from_id TEXT NOT NULL, to_id TEXT NOT NULL, relation TEXT NOT NULL, created TEXT NOT NULL,
	PRIMARY KEY(from_id, to_id, relation)
);
CREATE INDEX IF NOT EXISTS k_relations_to ON k_relations(to_id);
`

// database opens <dir>/index.db on first use. WAL lets one process read
// while another writes, busy_timeout makes writers queue instead of failing
// with SQLITE_BUSY, and _txlock=immediate takes the write lock at BEGIN so
// two processes reindexing at once cannot deadlock on lock upgrades.
func (s *Store) database(ctx context.Context) (*sql.DB, error) {
	s.dbMu.Lock()
	defer s.dbMu.Unlock()
	if s.db != nil {
		return s.db, nil
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, fmt.Errorf("memory: create %s: %w", s.dir, err)
	}
	path := filepath.Join(s.dir, "index.db")
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("memory: open %s: %w", path, err)
	}
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("memory: open %s: %w", path, err)
	}
	s.db = db
	return db, nil
}

func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v != schemaVersion {
		// Only the memory index is dropped: it is rebuilt from the files.
		for _, q := range []string{"DROP TABLE IF EXISTS mem_files", "DROP TABLE IF EXISTS mem_fts"} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
	}
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}
