package pgstore

import (
	"context"
	"os"
	"testing"

	"github.com/clawseed/clawseed/internal/pgtest"
)

// pg is the package's PostgreSQL server (internal/pgtest).
var pg = pgtest.New()

func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }

// openDB opens a new migrated database for t, closed at its end.
func openDB(t *testing.T) *DB {
	t.Helper()
	return replica(t, pg.Database(t))
}

// replica opens the database at url as one more replica, migrated.
func replica(t *testing.T, url string) *DB {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, url, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}
