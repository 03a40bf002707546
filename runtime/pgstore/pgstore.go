// Package pgstore keeps clawseed's shared state in PostgreSQL, so that
// several `clawseed serve` replicas can work on the same sessions: the
// session records ([Sessions]: the same records as the JSONL files, one row
// each), the session summaries, and the server's event log ([Events]). The
// schema lives in the `clawseed` schema of the database and is created and
// upgraded by [DB.Migrate] (embedded, versioned migrations/*.sql).
//
// Exactly one process drives a session: a session open for writing holds
// a PostgreSQL advisory lock on a connection of its own, which the server
// drops when the process dies, even by SIGKILL. Its records are written
// on that connection, so a write that succeeds was made by the lock's
// holder.
package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/clawseed/clawseed/runtime/session"
)

// opTimeout bounds a write made without a caller's context: a session
// record (the agent's Recorder has none, since a cancelled turn's records
// must still be written) and closing a session's connection.
const opTimeout = 30 * time.Second

// A DB is an open clawseed database: a pool for short queries, a pool of
// the connections that hold sessions' locks, and the configuration of the
// event listener's connection. It is safe for concurrent use.
type DB struct {
	pool *pgxpool.Pool
	// locks are the connections of open sessions, one each while open:
	// apart from pool, so that open sessions never starve the short
	// queries, and pooled, so that opening a session for a turn costs no
	// new connection. A connection goes back only with its locks released.
	locks *pgxpool.Pool
	// conn configures the event listener's connection.
	conn *pgx.ConnConfig

	mu     sync.Mutex
	events *Events // made at the first Events call
}

// Open connects to the database at url (a postgres:// URL or libpq
// key=value settings) with at most poolSize pooled connections, and checks
// that it answers. It does not check the schema: see [DB.CheckSchema].
func Open(ctx context.Context, url string, poolSize int) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgconn's parse errors redact the password.
		return nil, fmt.Errorf("postgres: %w", err)
	}
	cfg.MaxConns = int32(max(poolSize, 1))
	cfg.MinConns = 0
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = "clawseed"
	}
	lockCfg := cfg.Copy()
	// As many as sessions are open: the server's max_connections is the
	// bound (an error, not a wait). Idle ones go after a while.
	lockCfg.MaxConns = maxLockConns
	lockCfg.MaxConnIdleTime = 30 * time.Second
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	locks, err := pgxpool.NewWithConfig(ctx, lockCfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	db := &DB{pool: pool, locks: locks, conn: cfg.ConnConfig.Copy()}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// maxLockConns bounds the lock connections of one process: in practice
// never reached before the server's max_connections.
const maxLockConns = 10000

// Close stops the event listener and closes the pool. Sessions still open
// keep their own connections until their Writers are closed.
func (db *DB) Close() {
	db.mu.Lock()
	ev := db.events
	db.mu.Unlock()
	if ev != nil {
		ev.close()
	}
	db.pool.Close()
	db.locks.Close()
}

// Ping reports whether the database answers (the server's /readyz).
func (db *DB) Ping(ctx context.Context) error {
	if err := db.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres %s: %w", db.Location(), err)
	}
	return nil
}

// Location names the database in messages: host and database, never the
// password.
func (db *DB) Location() string {
	host := db.conn.Host
	if len(host) > 0 && host[0] == '/' {
		host = "socket " + host
	}
	return fmt.Sprintf("%s:%d/%s", host, db.conn.Port, db.conn.Database)
}

// lockSQL is the advisory lock key of session $1: a 64-bit hash of its id
// in a name space of its own (the migrations' lock has another).
const lockSQL = "hashtextextended('clawseed.session:' || $1, 0)"

// lock takes a lock connection holding session id's advisory lock, or
// fails with [session.ErrInUse] when another connection holds it. The
// lock lasts until [unlock] (or until the connection dies with its
// process).
func (db *DB) lock(ctx context.Context, id string) (*pgxpool.Conn, error) {
	conn, err := db.locks.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres %s: %w", db.Location(), err)
	}
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock("+lockSQL+")", id).Scan(&ok); err != nil {
		unlock(conn)
		return nil, fmt.Errorf("lock session: %w", err)
	}
	if !ok {
		unlock(conn)
		return nil, session.ErrInUse
	}
	return conn, nil
}

// unlock releases a lock connection's session locks and gives it back to
// the pool; one whose locks cannot be released is closed instead (which
// releases them), never pooled while holding one.
func unlock(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock_all()"); err != nil {
		_ = conn.Hijack().Close(ctx)
		return
	}
	conn.Release()
}

// connect opens a connection outside the pools.
func (db *DB) connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, db.conn.Copy())
	if err != nil {
		return nil, fmt.Errorf("postgres %s: %w", db.Location(), err)
	}
	return conn, nil
}

// closeConn closes a connection of its own, bounded in time.
func closeConn(conn *pgx.Conn) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return conn.Close(ctx)
}

// The errors of [DB.CheckSchema].
var (
	ErrNotMigrated = errors.New("the database's clawseed schema is missing or older than this clawseed: run `clawseed storage migrate` (or start `clawseed serve --migrate`)")
	ErrNewerSchema = errors.New("the database's clawseed schema is newer than this clawseed: upgrade clawseed")
)
