package cronriver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// ErrNotMigrated means River's tables are missing or older than this
// clawseed's River.
var ErrNotMigrated = errors.New("River's tables (the scheduled jobs' queue) are missing or out of date: run `clawseed storage migrate` (or start `clawseed serve --migrate`)")

// migrateLock is the advisory lock key that serializes River's migrations
// (rivermigrate takes none): every replica may migrate at start.
const migrateLock = "hashtextextended('clawseed.migrate.river', 0)"

func migrator(pool *pgxpool.Pool, schema string) (*rivermigrate.Migrator[pgx.Tx], error) {
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{
		Schema: schema,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return nil, fmt.Errorf("River migrations: %w", err)
	}
	return m, nil
}

// Migrate brings River's tables in schema up to this River's version and
// returns the versions it applied as one name, "river_001-008" (none when
// they were current). Replicas may run it at once: an advisory lock lets one at a time
// in, and the others find the tables current.
func Migrate(ctx context.Context, pool *pgxpool.Pool, schema string) ([]string, error) {
	m, err := migrator(pool, schema)
	if err != nil {
		return nil, err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("River migrations: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock("+migrateLock+")"); err != nil {
		return nil, fmt.Errorf("River migrations: %w", err)
	}
	defer func() {
		// The lock is the connection's: released before it goes back to
		// the pool, or the connection is dropped with it.
		if _, err := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock("+migrateLock+")"); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	if _, err := conn.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize()); err != nil {
		return nil, fmt.Errorf("River migrations: %w", err)
	}
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return nil, fmt.Errorf("River migrations: %w", err)
	}
	switch n := len(res.Versions); n {
	case 0:
		return nil, nil
	case 1:
		return []string{fmt.Sprintf("river_%03d", res.Versions[0].Version)}, nil
	default:
		return []string{fmt.Sprintf("river_%03d-%03d", res.Versions[0].Version, res.Versions[n-1].Version)}, nil
	}
}

// Check reports whether River's tables in schema are current
// ([ErrNotMigrated] when not).
func Check(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	m, err := migrator(pool, schema)
	if err != nil {
		return err
	}
	res, err := m.Validate(ctx, nil)
	if err != nil {
		return fmt.Errorf("River migrations: %w", err)
	}
	if !res.OK {
		return fmt.Errorf("%w (%s)", ErrNotMigrated, strings.Join(res.Messages, "; "))
	}
	return nil
}
