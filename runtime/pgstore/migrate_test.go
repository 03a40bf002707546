package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sync"
	"testing"
)

// TestMigrationFiles: every embedded file is NNNN_name.sql, versions are
// 1, 2, 3… without gaps or repeats.
func TestMigrationFiles(t *testing.T) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`^[0-9]{4}_[a-z0-9_]+\.sql$`)
	for _, e := range entries {
		if !name.MatchString(e.Name()) {
			t.Errorf("migration file %s is not NNNN_name.sql", e.Name())
		}
	}
	ms := migrations()
	if len(ms) != len(entries) {
		t.Errorf("%d migrations of %d files", len(ms), len(entries))
	}
	for i, m := range ms {
		if m.Version != i+1 || m.sql == "" {
			t.Errorf("migration %d is version %d (%s)", i+1, m.Version, m.Name)
		}
	}
	if SchemaVersion() != len(ms) {
		t.Errorf("SchemaVersion %d", SchemaVersion())
	}
}

// TestMigrate: a new database is refused until migrated; migrating is
// idempotent and safe from several replicas at once (each version applied
// once); a database newer than this clawseed is refused.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	url := pg.Database(t)
	var dbs []*DB
	for range 4 {
		db, err := Open(ctx, url, 2)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		dbs = append(dbs, db)
	}
	if err := dbs[0].CheckSchema(ctx); !errors.Is(err, ErrNotMigrated) {
		t.Fatalf("CheckSchema of a new database: %v, want ErrNotMigrated", err)
	}
	if _, err := dbs[0].Sessions().List(ctx); err == nil {
		t.Error("List works without the schema")
	}
	var wg sync.WaitGroup
	applied := make([][]Migration, len(dbs))
	for i, db := range dbs {
		wg.Go(func() {
			var err error
			if applied[i], err = db.Migrate(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	total := 0
	for _, a := range applied {
		total += len(a)
	}
	if total != SchemaVersion() {
		t.Errorf("%d migrations applied by 4 concurrent replicas, want %d (each once)", total, SchemaVersion())
	}
	for _, db := range dbs {
		if err := db.CheckSchema(ctx); err != nil {
			t.Errorf("CheckSchema after Migrate: %v", err)
		}
	}
	if again, err := dbs[0].Migrate(ctx); err != nil || len(again) != 0 {
		t.Errorf("second Migrate: %v, %v; want nothing applied", again, err)
	}
	var n int
	if err := dbs[0].pool.QueryRow(ctx, "SELECT count(*) FROM clawseed.schema_migrations").Scan(&n); err != nil || n != SchemaVersion() {
		t.Errorf("schema_migrations has %d rows, %v", n, err)
	}

	// A newer clawseed migrated the database.
	if _, err := dbs[0].pool.Exec(ctx, "INSERT INTO clawseed.schema_migrations (version, name) VALUES ($1, 'future')", SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	if err := dbs[1].CheckSchema(ctx); !errors.Is(err, ErrNewerSchema) {
		t.Errorf("CheckSchema of a newer database: %v, want ErrNewerSchema", err)
	}
	if _, err := dbs[1].Migrate(ctx); !errors.Is(err, ErrNewerSchema) {
		t.Errorf("Migrate of a newer database: %v, want ErrNewerSchema", err)
	}
}

// TestMigrateFailureAppliesNothing: a migration that fails leaves the
// schema as it was (one transaction).
func TestMigrateFailureAppliesNothing(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, pg.Database(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A table in the way of the second migration.
	if _, err := db.pool.Exec(ctx, "CREATE SCHEMA clawseed; CREATE TABLE clawseed.events (x int)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Migrate(ctx); err == nil {
		t.Fatal("Migrate succeeded over a conflicting table")
	}
	var exists bool
	err = db.pool.QueryRow(ctx, "SELECT to_regclass('clawseed.sessions') IS NOT NULL").Scan(&exists)
	if err != nil || exists {
		t.Errorf("the first migration's table exists after a failed Migrate: %v, %v", exists, err)
	}
	if err := db.CheckSchema(ctx); !errors.Is(err, ErrNotMigrated) {
		t.Errorf("CheckSchema: %v", err)
	}
}

// TestOpenErrors: a bad URL or an unreachable server fails Open without
// repeating the password.
func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	for _, url := range []string{
		"postgres://u:sekrit-pw@127.0.0.1:1/db?sslmode=disable&connect_timeout=2",
		"postgres://u:sekrit-pw@%zz/db",
		"postgres://u:sekrit-pw@127.0.0.1/db?pool_max_conns=x",
	} {
		_, err := Open(ctx, url, 2)
		if err == nil {
			t.Errorf("Open(%s) succeeded", url)
			continue
		}
		if msg := fmt.Sprint(err); regexp.MustCompile("sekrit").MatchString(msg) {
			t.Errorf("error repeats the password: %v", msg)
		}
	}
}
