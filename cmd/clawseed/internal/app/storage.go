package app

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/runtime/cronriver"
	"github.com/clawseed/clawseed/runtime/eventlog"
	"github.com/clawseed/clawseed/runtime/memory"
	"github.com/clawseed/clawseed/runtime/pgstore"
	"github.com/clawseed/clawseed/runtime/session"
)

// Where sessions and memories are kept ([storage].backend, issue 26): the
// JSONL files of [sessions].dir (session.Files) and the Markdown files of
// [memory].dir (memory.Store), or a PostgreSQL database (runtime/pgstore)
// that several `clawseed serve` replicas share. This file is the one place
// that chooses: [OpenSessionStore] for sessions, [openMemoryStore] for
// memories, [OpenEventLog] for the server's event log, [MigrateStorage]
// for the schema. A process opens its database once (the [Process] keeps it) and
// closes it at exit ([Process.Close]).

// SessionStore is what the commands need of a session store: the one
// contract of runtime/session ([session.Backend]).
type SessionStore = session.Backend

// OpenSessionStore returns the session store cfg configures. The
// postgres backend's database must be reachable and migrated; a store that
// cannot be opened is a [StoreError], a bad or unset postgres_url a
// *config.Error. [sessions].enabled is not consulted: callers decide.
func OpenSessionStore(ctx context.Context, cfg *config.Config, p *Process) (SessionStore, error) {
	if cfg.Storage.Backend != config.StoragePostgres {
		return session.Files{Store: &session.Store{Dir: cfg.SessionsDir()}}, nil
	}
	db, err := p.database(ctx, cfg, true)
	if err != nil {
		return nil, err
	}
	return db.Sessions(), nil
}

// openMemoryStore returns the memory store of opts for cfg's backend: the
// Markdown files of [memory].dir, or the rows of the database, which every
// replica shares (the daily logs, their distillation and the knowledge
// graph stay with the files: see [memoryFiles]). [OpenMemory] and
// [OpenSubagentMemory] open through it.
func openMemoryStore(ctx context.Context, cfg *config.Config, p *Process, opts memory.Options) (MemoryStore, error) {
	if cfg.Storage.Backend != config.StoragePostgres {
		s, err := memory.Open(ctx, opts)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	db, err := p.database(ctx, cfg, true)
	if err != nil {
		return nil, err
	}
	s, err := memory.OpenRows(opts, db.Memories())
	if err != nil {
		return nil, err
	}
	return s, nil
}

// MemoryRows are all the memories of a store, every folder's, as
// `clawseed storage export|import` moves them: memory.Files (a memory dir)
// and *pgstore.Memories.
type MemoryRows interface {
	Location() string
	All(ctx context.Context) ([]memory.Row, []memory.Diagnostic, error)
	Import(ctx context.Context, rows []memory.Row) (imported, skipped int, err error)
}

// OpenMemoryRows returns all the memories of cfg's backend: the memory dir's
// files, or the database's rows.
func OpenMemoryRows(ctx context.Context, cfg *config.Config, p *Process) (MemoryRows, error) {
	if cfg.Storage.Backend != config.StoragePostgres {
		return memory.Files{Dir: cfg.MemoryDir()}, nil
	}
	db, err := p.database(ctx, cfg, true)
	if err != nil {
		return nil, err
	}
	return db.Memories(), nil
}

// OpenEventLog returns the server's event log for cfg's backend: files in
// the sessions folder's events/ (never taken for sessions: those are
// files, not folders), or the database's.
func OpenEventLog(ctx context.Context, cfg *config.Config, p *Process) (eventlog.Log, error) {
	if cfg.Storage.Backend != config.StoragePostgres {
		return p.filesEvents(filepath.Join(cfg.SessionsDir(), "events")), nil
	}
	db, err := p.database(ctx, cfg, true)
	if err != nil {
		return nil, err
	}
	return db.Events(), nil
}

// MigrateStorage brings the postgres backend's schema up to date (`clawseed
// storage migrate`, `clawseed serve --migrate`), River's tables included,
// and returns the names of the migrations it applied; the files backend has nothing to migrate.
// Replicas may run it at once: pgstore serializes them.
func MigrateStorage(ctx context.Context, cfg *config.Config, p *Process) ([]string, error) {
	if cfg.Storage.Backend != config.StoragePostgres {
		return nil, nil
	}
	db, err := p.database(ctx, cfg, false)
	if err != nil {
		return nil, err
	}
	applied, err := db.Migrate(ctx)
	if err != nil {
		return nil, &StoreError{Err: err}
	}
	var names []string
	for _, m := range applied {
		names = append(names, m.Name)
	}
	// River's tables: the scheduled jobs' queue (StartJobs).
	river, err := cronriver.Migrate(ctx, db.Pool(), pgstore.Schema)
	if err != nil {
		return names, &StoreError{Err: err}
	}
	p.storage.markChecked(db)
	return append(names, river...), nil
}

// Ready reports whether cfg's storage answers (the server's /readyz):
// always for files, a ping for the database.
func Ready(ctx context.Context, cfg *config.Config, p *Process) error {
	if cfg.Storage.Backend != config.StoragePostgres {
		return nil
	}
	db, err := p.database(ctx, cfg, true)
	if err != nil {
		return err
	}
	return db.Ping(ctx)
}

// processStorage is what a Process keeps of the storage: the databases it
// opened, by URL, and the files event logs, by folder (their waiters are
// woken in the process).
type processStorage struct {
	mu      sync.Mutex
	dbs     map[string]*pgstore.DB
	checked map[*pgstore.DB]bool // CheckSchema passed (or Migrate ran)
	events  map[string]*eventlog.Files
}

func (ps *processStorage) markChecked(db *pgstore.DB) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.checked == nil {
		ps.checked = map[*pgstore.DB]bool{}
	}
	ps.checked[db] = true
}

// database returns the process's database for cfg, opened at the first
// call; check requires its schema to be current. Without a Process, each
// call opens one that is never closed before the process exits: only
// tests build sessions without one.
func (p *Process) database(ctx context.Context, cfg *config.Config, check bool) (*pgstore.DB, error) {
	url, err := cfg.PostgresURL()
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = &Process{}
	}
	ps := &p.storage
	ps.mu.Lock()
	defer ps.mu.Unlock()
	db := ps.dbs[url]
	if db == nil {
		if db, err = pgstore.Open(ctx, url, cfg.Storage.PoolSize); err != nil {
			return nil, &StoreError{Err: err}
		}
		if ps.dbs == nil {
			ps.dbs = map[string]*pgstore.DB{}
		}
		ps.dbs[url] = db
	}
	if check && !ps.checked[db] {
		if err := db.CheckSchema(ctx); err != nil {
			return nil, &StoreError{Err: err}
		}
		if ps.checked == nil {
			ps.checked = map[*pgstore.DB]bool{}
		}
		ps.checked[db] = true
	}
	return db, nil
}

// filesEvents returns the process's files event log of dir.
func (p *Process) filesEvents(dir string) *eventlog.Files {
	if p == nil {
		return eventlog.NewFiles(dir)
	}
	ps := &p.storage
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.events[dir] == nil {
		if ps.events == nil {
			ps.events = map[string]*eventlog.Files{}
		}
		ps.events[dir] = eventlog.NewFiles(dir)
	}
	return ps.events[dir]
}

// Close closes the databases the process opened: call it before exiting,
// after [Process.Wait]. A later use opens them again.
func (p *Process) Close() {
	if p == nil {
		return
	}
	ps := &p.storage
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, db := range ps.dbs {
		db.Close()
	}
	ps.dbs, ps.checked = nil, nil
}
