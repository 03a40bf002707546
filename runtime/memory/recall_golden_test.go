package memory

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/recall_golden.txt from the current Recall")

// goldenWords mixes stems and their inflections ("deploy", "deploying",
// "deployment") so the porter tokenizer's matching is part of what the
// golden file pins down.
var goldenWords = []string{"deploy", "deploying", "deployment", "kubernetes", "helix", "editor", "editors", "postgres",
	"migration", "migrations", "billing", "stripe", "terse", "review", "reviews", "golang", "python", "latency",
	"cache", "caching", "redis", "pipeline", "release", "releases", "staging", "grafana", "alerts", "alerting",
	"tests", "testing", "race", "nginx", "port", "queue", "queues", "backup", "restore", "schema", "index", "vim"}

// writeGoldenCorpus writes a fixed, varied corpus into the store's folders:
// both scopes, all four types, bodies of different lengths (so bm25 spreads)
// and many near-identical files (so rank ties occur at the candidate cut).
func writeGoldenCorpus(t testing.TB, s *Store, n int, seed uint32) {
	t.Helper()
	x := seed
	next := func(k int) int {
		x = x*1664525 + 1013904223
		return int(x>>8) % k
	}
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = goldenWords[next(len(goldenWords))]
		}
		return strings.Join(w, " ")
	}
	base := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	types := []string{TypeProject, TypeReference, TypeUser, TypeFeedback}
	for i := range n {
		typ := types[next(len(types))]
		var m Memory
		if i%5 == 0 {
			// Near duplicates: same shape, one distinguishing word.
			w := goldenWords[i/5%len(goldenWords)]
			m = Memory{Name: "dup " + w, Description: "about " + w, Body: "Body about " + w + " and nothing else."}
		} else {
			m = Memory{Name: fmt.Sprintf("note %d %s", i, words(1+next(2))), Description: words(1 + next(6)),
				Body: strings.Repeat(words(3+next(20))+". ", 1+next(4))}
		}
		m.Type = typ
		m.Name = fmt.Sprintf("%s %d", m.Name, i)
		m.Created = base.Add(time.Duration(i) * time.Hour)
		m.Updated = m.Created.Add(time.Duration(next(100)) * time.Hour)
		data, err := render(m)
		if err != nil {
			t.Fatal(err)
		}
		folder := s.folder(ScopeOf(typ))
		if err := os.MkdirAll(folder, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, fmt.Sprintf("m-%d.md", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecallRankingGolden pins Recall's results (order, scores, snippets)
// on a fixed corpus, so a change in how recall computes them (the speed work
// of issue 24) cannot change what it returns. Another workspace's memories
// share index.db and must never appear.
func TestRecallRankingGolden(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	other, err := Open(ctx, Options{Dir: dir, Workspace: "/home/u/src/other"})
	if err != nil {
		t.Fatal(err)
	}
	writeGoldenCorpus(t, other, 400, 7)
	if _, err := other.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	other.Close()
	s, err := Open(ctx, Options{Dir: dir, Workspace: "/home/u/src/proj"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	writeGoldenCorpus(t, s, 1500, 1)
	if _, err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	proj := s.folder(ScopeProject)
	queries := []RecallQuery{
		{Query: "how do we deploy to kubernetes staging?", Limit: 3, MinScore: DefaultMinScore},
		{Query: "how do we deploy to kubernetes staging?", Limit: 10},
		{Query: "deployments", Limit: 5},
		{Query: "which editor does the user prefer", MinScore: DefaultMinScore},
		{Query: "editors helix vim", Limit: 8},
		{Query: "postgres migration latency", Limit: 3, MinScore: DefaultMinScore},
		{Query: "postgres migration latency", Limit: 40},
		{Query: "what is the capital of France", Limit: 3, MinScore: DefaultMinScore},
		{Query: "billing stripe review tests race nginx port queue backup restore schema index cache redis pipeline release grafana alerts", Limit: 10},
		{Query: "testing the race detector", Limit: 5, Type: TypeFeedback},
		{Query: "testing the race detector", Limit: 5, Type: TypeReference, MinScore: 0.5},
		{Query: "caching redis", Limit: 6, Exclude: []string{filepath.Join(proj, "m-1.md"), filepath.Join(proj, "m-3.md"), filepath.Join(s.folder(ScopeUser), "m-2.md")}},
		{Query: "about", Limit: 5},
		{Query: "dup alerting", Limit: 12},
		{Query: "terse", Limit: 100},
		{Query: "golang python", Limit: 1, MinScore: 0.9},
		{Query: "nothing matches zzzz", Limit: 5},
	}
	var b strings.Builder
	for _, q := range queries {
		hits, err := s.Recall(ctx, q)
		if err != nil {
			t.Fatalf("Recall(%+v): %v", q, err)
		}
		fmt.Fprintf(&b, "query %q limit=%d min=%g type=%q exclude=%d\n", q.Query, q.Limit, q.MinScore, q.Type, len(q.Exclude))
		for _, h := range hits {
			rel, _ := filepath.Rel(dir, h.Memory.Path)
			fmt.Fprintf(&b, "  %.6f %s %s %q %s %s %s snippet=%d:%q\n", h.Score, filepath.ToSlash(rel), h.Memory.Scope, h.Memory.Name,
				h.Memory.Type, formatTime(h.Memory.Created), formatTime(h.Memory.Updated), len(h.Snippet), firstLines(h.Snippet, 1))
			if h.Memory.Body == "" || h.Memory.Description == "" {
				t.Errorf("hit %s lacks its fields: %+v", rel, h.Memory)
			}
		}
	}
	golden := filepath.Join("testdata", "recall_golden.txt")
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("Recall results changed (go test -run TestRecallRankingGolden -update rewrites)\n%s", lineDiff(string(want), got))
	}
}

// lineDiff lists the lines that differ, with their numbers.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "%d:\n- %s\n+ %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}
