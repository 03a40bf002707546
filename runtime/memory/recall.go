package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// RecallQuery asks for memories matching free text.
type RecallQuery struct {
	Query    string
	Type     string // optional: only memories of this type
	Limit    int    // default 5
	MinScore float64
	Exclude  []string // paths already recalled
}

// A Hit is one recalled memory.
type Hit struct {
	Memory  Memory
	Score   float64 // higher is better; see DefaultMinScore
	Snippet string  // the body, cut to SnippetChars characters
}

// SnippetChars bounds Hit.Snippet (§8: at most 700 characters per recalled
// memory).
const SnippetChars = 700

// maxTerms bounds the work one query can cause (each term costs one FTS
// lookup when scoring).
const maxTerms = 16

// Recall returns the memories of both scopes that best match q.Query, best
// first. It reindexes incrementally first, so files edited by hand since the
// last call are seen. User text never reaches FTS5 syntax: it is split into
// words, each quoted, and the words are ORed.
func (s *Store) Recall(ctx context.Context, q RecallQuery) ([]Hit, error) {
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

// queryTerms splits text into lower-case words the way FTS5's unicode61
// tokenizer does (letters and digits; everything else separates), drops
// stop-words and one-letter words, and keeps the first maxTerms distinct
// ones. A query of nothing but stop-words yields no terms: "what do you
// think?" should recall nothing rather than every memory containing "you".
func queryTerms(text string) []string {
	var terms []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if utf8.RuneCountInString(w) < 2 || stopWords[w] || seen[w] || len(w) > 64 {
			continue
		}
		seen[w] = true
		terms = append(terms, w)
		if len(terms) == maxTerms {
			break
		}
	}
	return terms
}

// quoteTerm makes a word an FTS5 string (a phrase), the only syntax user
// text is allowed to produce.
func quoteTerm(t string) string {
	return `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
}

// matchExpr ORs the quoted terms.
func matchExpr(terms []string) string {
	q := make([]string, len(terms))
	for i, t := range terms {
		q[i] = quoteTerm(t)
	}
	return strings.Join(q, " OR ")
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
		before being below between both but by can could did do does doing don down during each few for from
		further had has have having he her here hers herself him himself his how i if in into is it its itself
		just me more most my myself no nor not now of off on once only or other our ours ourselves out over own
		please same she should so some such than that the their theirs them themselves then there these they
		this those through to too under until up very was we were what when where which while who whom why will
		with would you your yours yourself yourselves let lets tell know think thing things get got make want
		need like also use using used one ok okay yes hi hello thanks thank could would s t ll re ve d m`) {
		m[w] = true
	}
	return m
}()
