package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// migrationFiles are the schema's versions, migrations/NNNN_name.sql, applied
// in order. A released file is never edited: a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// A Migration is one version of the schema.
type Migration struct {
	Version int
	Name    string // the file name without .sql: "0001_sessions"
	sql     string
}

// migrations returns the embedded migrations in version order. Their names
// are checked by TestMigrationFiles, so this cannot fail at run time.
func migrations() []Migration {
	entries, _ := fs.ReadDir(migrationFiles, "migrations")
	var out []Migration
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".sql")
		num, _, _ := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			continue
		}
		data, _ := fs.ReadFile(migrationFiles, path.Join("migrations", e.Name()))
		out = append(out, Migration{Version: v, Name: name, sql: string(data)})
	}
	slices.SortFunc(out, func(a, b Migration) int { return a.Version - b.Version })
	return out
}

// SchemaVersion is the version this clawseed's schema has: its last
// migration's.
func SchemaVersion() int {
	m := migrations()
	return m[len(m)-1].Version
}

// migrateLock is the advisory lock key that serializes migrations: every
// replica may run them at start, one at a time.
const migrateLock = "hashtextextended('clawseed.migrate', 0)"

// Migrate brings the database's clawseed schema to [SchemaVersion] and
// returns the migrations it applied (none when it was current). It is
// safe to run from several replicas at once: all of it runs in one
// transaction under an advisory lock, so the first applies each version
// and the others, waiting on the lock, find it applied; a failure applies
// nothing. A database whose schema is newer than this clawseed is refused
// ([ErrNewerSchema]).
func (db *DB) Migrate(ctx context.Context) ([]Migration, error) {
	var applied []Migration
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		applied = nil // a retried function starts over
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock("+migrateLock+")"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS clawseed;
			CREATE TABLE IF NOT EXISTS clawseed.schema_migrations (
				version integer PRIMARY KEY,
				name    text NOT NULL,
				applied timestamptz NOT NULL DEFAULT now()
			)`); err != nil {
			return err
		}
		var current int
		if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM clawseed.schema_migrations").Scan(&current); err != nil {
			return err
		}
		if current > SchemaVersion() {
			return fmt.Errorf("%w (database version %d, this clawseed's %d)", ErrNewerSchema, current, SchemaVersion())
		}
		for _, m := range migrations() {
			if m.Version <= current {
				continue
			}
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO clawseed.schema_migrations (version, name) VALUES ($1, $2)", m.Version, m.Name); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
			applied = append(applied, m)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("migrate %s: %w", db.Location(), err)
	}
	return applied, nil
}

// CheckSchema reports whether the database's schema is this clawseed's:
// [ErrNotMigrated] when it is missing or older, [ErrNewerSchema] when it
// is newer.
func (db *DB) CheckSchema(ctx context.Context) error {
	var current int
	err := db.pool.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM clawseed.schema_migrations").Scan(&current)
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && (pe.Code == "42P01" || pe.Code == "3F000"): // undefined table, schema
		current = 0
	case err != nil:
		return fmt.Errorf("postgres %s: %w", db.Location(), err)
	}
	switch {
	case current < SchemaVersion():
		return fmt.Errorf("postgres %s: %w (database version %d, this clawseed's %d)", db.Location(), ErrNotMigrated, current, SchemaVersion())
	case current > SchemaVersion():
		return fmt.Errorf("postgres %s: %w (database version %d, this clawseed's %d)", db.Location(), ErrNewerSchema, current, SchemaVersion())
	}
	return nil
}
