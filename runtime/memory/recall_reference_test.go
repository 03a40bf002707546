package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// recallReference is Recall as it was before issue 24 (one bm25 query over
// every match, then one query per term to score the candidates), kept to
// check that the faster Recall returns exactly the same hits.
func (s *Store) recallReference(ctx context.Context, q RecallQuery) ([]Hit, error) {
	terms := queryTerms(q.Query)
	if len(terms) == 0 {
		return nil, nil
	}
	if q.Type != "" && ScopeOf(q.Type) == "" {
		return nil, fmt.Errorf("memory: recall: %w: type %q is not one of user, feedback, project, reference", ErrInvalid, q.Type)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 5
	}
	if s.dirStamps() == ([2]fileStamp{}) {
		// Neither folder exists: nothing to recall, and automatic recall
		// must not create index.db in a session that never used memory.
		return nil, nil
	}
	if _, err := s.reindex(ctx); err != nil {
		return nil, err
	}
	db, err := s.database(ctx)
	if err != nil {
		return nil, err
	}
	args := append([]any{matchExpr(terms)}, s.folderKeys()...)
	typeCond := ""
	if q.Type != "" {
		typeCond = " AND f.type = ?"
		args = append(args, q.Type)
	}
	args = append(args, limit*4+len(q.Exclude)+8)
	rows, err := db.QueryContext(ctx, `SELECT f.id, f.path, f.name, f.description, f.type, f.created, f.updated, f.body, bm25(mem_fts, 4.0, 2.0, 1.0) AS rank
		FROM mem_fts JOIN mem_files f ON f.id = mem_fts.rowid
		WHERE mem_fts MATCH ? AND f.folder IN (?, ?)`+typeCond+` ORDER BY rank, f.path LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("memory: recall %q: %w", q.Query, err)
	}
	type cand struct {
		id   int64
		hit  Hit
		bm25 float64
	}
	var cands []cand
	excluded := map[string]bool{}
	for _, p := range q.Exclude {
		excluded[p] = true
	}
	for rows.Next() {
		var c cand
		var rel, created, updated string
		m := &c.hit.Memory
		if err := rows.Scan(&c.id, &rel, &m.Name, &m.Description, &m.Type, &created, &updated, &m.Body, &c.bm25); err != nil {
			rows.Close()
			return nil, fmt.Errorf("memory: recall: %w", err)
		}
		m.Path = filepath.Join(s.dir, filepath.FromSlash(rel))
		if !strings.HasPrefix(rel, "user/") {
			m.Scope = ScopeProject
		} else {
			m.Scope = ScopeUser
		}
		m.Created, _ = time.Parse(time.RFC3339, created)
		m.Updated, _ = time.Parse(time.RFC3339, updated)
		if !excluded[m.Path] {
			cands = append(cands, c)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("memory: recall: %w", err)
	}
	if len(cands) == 0 {
		return nil, nil
	}
	// Score each candidate by the share of query words it contains; the
	// bm25 rank alone cannot be thresholded (FTS5 clamps idf, so in a small
	// collection every match scores near zero).
	ids := make([]any, len(cands))
	pos := map[int64]int{}
	for i, c := range cands {
		ids[i] = c.id
		pos[c.id] = i
	}
	in := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	for _, t := range terms {
		rs, err := db.QueryContext(ctx, `SELECT rowid, bm25(mem_fts, 1.0, 1.0, 0.0) FROM mem_fts WHERE mem_fts MATCH ? AND rowid IN (`+in+`)`,
			append([]any{quoteTerm(t)}, ids...)...)
		if err != nil {
			return nil, fmt.Errorf("memory: recall %q: %w", q.Query, err)
		}
		for rs.Next() {
			var id int64
			var head float64
			if err := rs.Scan(&id, &head); err != nil {
				rs.Close()
				return nil, fmt.Errorf("memory: recall: %w", err)
			}
			w := 0.6 // only in the body
			if head != 0 {
				w = 1
			}
			cands[pos[id]].hit.Score += w / float64(len(terms))
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return nil, fmt.Errorf("memory: recall: %w", err)
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.hit.Score != b.hit.Score:
			if a.hit.Score > b.hit.Score {
				return -1
			}
			return 1
		case a.bm25 != b.bm25:
			if a.bm25 < b.bm25 {
				return -1
			}
			return 1
		}
		return strings.Compare(a.hit.Memory.Path, b.hit.Memory.Path)
	})
	var hits []Hit
	for _, c := range cands {
		if c.hit.Score < q.MinScore || len(hits) == limit {
			break
		}
		c.hit.Snippet = truncate(c.hit.Memory.Body, SnippetChars)
		hits = append(hits, c.hit)
	}
	return hits, nil
}

// TestRecallMatchesReference checks that Recall returns exactly what the
// reference implementation does (same hits, order, scores, fields) over
// random queries on corpora of different sizes, with another workspace's
// memories in the same index.
func TestRecallMatchesReference(t *testing.T) {
	ctx := context.Background()
	sizes, queries := []int{30, 300, 1000}, 80
	if raceEnabled {
		sizes, queries = []int{30, 300}, 30
	}
	for _, size := range sizes {
		dir := t.TempDir()
		other, err := Open(ctx, Options{Dir: dir, Workspace: "/w/other"})
		if err != nil {
			t.Fatal(err)
		}
		writeGoldenCorpus(t, other, size/3, uint32(size))
		if _, err := other.Reindex(ctx); err != nil {
			t.Fatal(err)
		}
		other.Close()
		s, err := Open(ctx, Options{Dir: dir, Workspace: "/w/proj"})
		if err != nil {
			t.Fatal(err)
		}
		writeGoldenCorpus(t, s, size, uint32(size)+1)
		if _, err := s.Reindex(ctx); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(size), 2))
		extra := []string{"the", "zzz", "nothing", "about", "dup", "note", "body", "else", "42", "7"}
		types := []string{"", "", "", TypeUser, TypeFeedback, TypeProject, TypeReference}
		for i := range queries {
			var words []string
			for range 1 + rng.IntN(6) {
				if rng.IntN(4) == 0 {
					words = append(words, extra[rng.IntN(len(extra))])
				} else {
					words = append(words, goldenWords[rng.IntN(len(goldenWords))])
				}
			}
			q := RecallQuery{Query: strings.Join(words, " "), Limit: rng.IntN(12), MinScore: []float64{0, 0, DefaultMinScore, 0.5, 0.9}[rng.IntN(5)],
				Type: types[rng.IntN(len(types))]}
			for range rng.IntN(3) {
				q.Exclude = append(q.Exclude, filepath.Join(s.folder(ScopeProject), fmt.Sprintf("m-%d.md", rng.IntN(size))))
			}
			want, err := s.recallReference(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			// passRows 0 makes a second ranking pass likely.
			for _, extra := range []int{passRows, 0} {
				got, err := s.recall(ctx, q, extra)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("size %d query %d %+v, passRows %d:\n got %s\nwant %s", size, i, q, extra, hitList(got), hitList(want))
				}
			}
		}
		s.Close()
	}
}

func hitList(hs []Hit) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "\n  %.6f %s", h.Score, filepath.Base(h.Memory.Path))
	}
	return b.String()
}
