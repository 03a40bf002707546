package memory

import (
	"os"
	"path/filepath"
	"testing"
)

// Close closes the index database, which removes SQLite's index.db-wal
// and index.db-shm (issue 20, item 22); a later recall opens it again.
func TestCloseRemovesWAL(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	mustSave(t, s, "editor", TypeUser, "Edits code with Helix", "The user edits code with Helix.")
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(s.Dir(), name))
		return err == nil
	}
	for round := range 2 {
		if got := recallNames(t, s, RecallQuery{Query: "helix"}); len(got) != 1 {
			t.Fatalf("round %d: recall = %v", round, got)
		}
		if !exists("index.db-wal") {
			t.Fatalf("round %d: no index.db-wal while the database is open", round)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"index.db-wal", "index.db-shm"} {
			if exists(f) {
				t.Errorf("round %d: %s left after Close", round, f)
			}
		}
		if !exists("index.db") {
			t.Errorf("round %d: index.db gone", round)
		}
	}
}
