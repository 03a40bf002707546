package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

var pg = New()

func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }

// TestDatabase: each call gives a fresh, empty database of the one shared
// server, and the server does not run as root.
func TestDatabase(t *testing.T) {
	ctx := context.Background()
	var names []string
	for range 2 {
		conn, err := pgx.Connect(ctx, pg.Database(t))
		if err != nil {
			t.Fatal(err)
		}
		var name string
		var tables int
		err = conn.QueryRow(ctx, `SELECT current_database(), (SELECT count(*) FROM pg_tables WHERE schemaname = 'public')`).Scan(&name, &tables)
		conn.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if tables != 0 {
			t.Errorf("database %s has %d tables, want 0", name, tables)
		}
		names = append(names, name)
	}
	if names[0] == names[1] {
		t.Errorf("two calls gave the same database %s", names[0])
	}
	if pg.cmd == nil || pg.cmd.SysProcAttr == nil {
		t.Fatal("no server process")
	}
	if os.Geteuid() == 0 && (pg.cmd.SysProcAttr.Credential == nil || pg.cmd.SysProcAttr.Credential.Uid == 0) {
		t.Errorf("running as root, the server runs as uid 0")
	}
}
