package main

import (
	"context"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/clawseed/clawseed/internal/pgtest"
)

// scriptPG is the PostgreSQL server of the scripts that use one
// (internal/pgtest): started by the first `pgdb`, stopped after the tests.
var scriptPG = pgtest.New()

// stoppingM runs the tests, then stops scriptPG.
type stoppingM struct{ m interface{ Run() int } }

func (s stoppingM) Run() int {
	code := s.m.Run()
	scriptPG.Stop()
	return code
}

// cmdPGDB creates a new, empty database and puts its URL in
// $DATABASE_URL: `pgdb`. A script that uses it starts with
// `[!postgres] skip 'PostgreSQL not installed: apt-get install -y postgresql'`.
func cmdPGDB(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: pgdb")
	}
	url, err := scriptPG.NewDatabase(context.Background())
	ts.Check(err)
	ts.Setenv("DATABASE_URL", url)
}

// postgresCondition is [postgres]: a PostgreSQL server can run here.
func postgresCondition() bool { return pgtest.Available() == nil }
