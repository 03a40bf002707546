package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var benchWords = []string{"deploy", "kubernetes", "helix", "editor", "postgres", "migration", "billing", "stripe", "terse", "review",
	"golang", "python", "latency", "cache", "redis", "pipeline", "release", "staging", "grafana", "alerts"}

// writeMemoryFiles writes n memory files directly (as a user syncing a
// folder would), so the benchmark measures indexing, not n Saves.
func writeMemoryFiles(b testing.TB, s *Store, n int) {
	b.Helper()
	folder := s.folder(ScopeProject)
	os.MkdirAll(folder, 0o755)
	for i := range n {
		w1, w2, w3 := benchWords[i%20], benchWords[(i/20)%20], benchWords[(i/400)%20]
		m := Memory{Name: fmt.Sprintf("note %d %s", i, w1), Type: TypeProject, Description: fmt.Sprintf("%s with %s for item %d", w1, w2, i),
			Body: fmt.Sprintf("Details about %s, %s and %s. Memory number %d keeps some body text to index.", w1, w2, w3, i)}
		data, err := render(m)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, fmt.Sprintf("note-%d.md", i)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRecall10000(b *testing.B) {
	s := newStore(b)
	writeMemoryFiles(b, s, 10000)
	ctx := context.Background()
	if _, err := s.Reindex(ctx); err != nil {
		b.Fatal(err)
	}
	queries := []string{"how do we deploy to kubernetes staging?", "which editor does the user prefer", "postgres migration latency", "what is the capital of France"}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Recall(ctx, RecallQuery{Query: queries[i%len(queries)], Limit: 3, MinScore: DefaultMinScore}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReindexCold10000(b *testing.B) {
	s := newStore(b)
	writeMemoryFiles(b, s, 10000)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		s.Close()
		os.Remove(filepath.Join(s.Dir(), "index.db"))
		os.Remove(filepath.Join(s.Dir(), "index.db-wal"))
		os.Remove(filepath.Join(s.Dir(), "index.db-shm"))
		b.StartTimer()
		st, err := s.reindex(ctx)
		if err != nil || st.Added != 10000 {
			b.Fatalf("reindex = %+v, %v", st, err)
		}
	}
}
