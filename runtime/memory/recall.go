package memory

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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

// maxTerms bounds the work one query can cause (each term is a list of its
// matches when ranking, and a lookup when scoring). Words are bits of a
// uint32 mask when ranking, so it stays at most 32 (the constant below
// does not compile otherwise).
const maxTerms = 16

const _ = uint32(1 << (maxTerms - 1))

// Recall returns the memories of both scopes that best match q.Query, best
// first. It reindexes incrementally first, so files edited by hand since the
// last call are seen. User text never reaches FTS5 syntax: it is split into
// words, each quoted, and the words are ORed.
func (s *Store) Recall(ctx context.Context, q RecallQuery) ([]Hit, error) {
	return s.recall(ctx, q, passRows)
}

func (s *Store) recall(ctx context.Context, q RecallQuery, extra int) ([]Hit, error) {
	terms, limit, err := q.prepare()
	if err != nil || len(terms) == 0 {
		return nil, err
	}
	if s.dirStamps() == ([2]fileStamp{}) {
		// Neither folder exists: nothing to recall, and automatic recall
		// must not create index.db in a session that never used memory.
		return nil, nil
	}
	if _, err := s.reindex(ctx); err != nil {
		return nil, err
	}
	conn, err := s.database(ctx)
	if err != nil {
		return nil, err
	}
	// Read-only: a deferred BEGIN, so recall never waits for the write
	// lock, and its several statements see one snapshot.
	db, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("memory: recall: %w", err)
	}
	defer db.Rollback()
	tr, err := termMatches(ctx, db, terms)
	if err != nil {
		return nil, fmt.Errorf("memory: recall %q: %w", q.Query, err)
	}
	if len(tr.rows) == 0 {
		return nil, nil
	}
	best, err := s.bestByBM25(ctx, db, terms, q.Type, tr, limit*4+len(q.Exclude)+8, extra)
	if err != nil {
		return nil, fmt.Errorf("memory: recall %q: %w", q.Query, err)
	}
	excluded := map[string]bool{}
	for _, p := range q.Exclude {
		excluded[p] = true
	}
	type cand struct {
		ranked
		score float64
	}
	var cands []cand
	for _, r := range best {
		if !excluded[s.absPath(r.path)] {
			cands = append(cands, cand{ranked: r})
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(cands))
	for i, c := range cands {
		ids[i] = c.id
	}
	head, err := headMatches(ctx, db, terms, tr.hits, ids)
	if err != nil {
		return nil, fmt.Errorf("memory: recall %q: %w", q.Query, err)
	}
	for i := range cands {
		cands[i].score = score(tr.mask(cands[i].id), head[cands[i].id], len(terms))
	}
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.bm25, b.bm25), strings.Compare(a.path, b.path))
	})
	var chosen []cand
	for _, c := range cands {
		if c.score < q.MinScore || len(chosen) == limit {
			break
		}
		chosen = append(chosen, c)
	}
	if len(chosen) == 0 {
		return nil, nil
	}
	// Only the hits' fields are read: the other candidates need none.
	ids = make([]int64, len(chosen))
	for i, c := range chosen {
		ids[i] = c.id
	}
	mems, err := s.memoriesByID(ctx, db, ids)
	if err != nil {
		return nil, fmt.Errorf("memory: recall %q: %w", q.Query, err)
	}
	hits := make([]Hit, 0, len(chosen))
	for _, c := range chosen {
		m, ok := mems[c.id]
		if !ok {
			continue // not in the snapshot: cannot happen
		}
		hits = append(hits, Hit{Memory: m, Score: c.score, Snippet: truncate(m.Body, SnippetChars)})
	}
	return hits, nil
}

// prepare returns the words of q.Query (none: nothing to recall) and the
// number of hits wanted, or the error of a type that is none.
func (q RecallQuery) prepare() (terms []string, limit int, err error) {
	terms = queryTerms(q.Query)
	if len(terms) == 0 {
		return nil, 0, nil
	}
	if q.Type != "" && ScopeOf(q.Type) == "" {
		return nil, 0, fmt.Errorf("memory: recall: %w: type %q is not one of user, feedback, project, reference", ErrInvalid, q.Type)
	}
	limit = q.Limit
	if limit <= 0 {
		limit = 5
	}
	return terms, limit, nil
}

// absPath turns a mem_files path into the file's absolute path.
func (s *Store) absPath(rel string) string {
	return filepath.Join(s.dir, filepath.FromSlash(rel))
}

// memoriesByID reads indexed memories by row id.
func (s *Store) memoriesByID(ctx context.Context, db querier, ids []int64) (map[int64]Memory, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, path, name, description, type, created, updated, body FROM mem_files
		WHERE id IN (SELECT value FROM json_each(?))`, idList(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[int64]Memory, len(ids))
	for rows.Next() {
		var id int64
		var rel, created, updated string
		var m Memory
		if err := rows.Scan(&id, &rel, &m.Name, &m.Description, &m.Type, &created, &updated, &m.Body); err != nil {
			return nil, err
		}
		m.Path = s.absPath(rel)
		m.Scope, m.Agent = s.scopeOfRel(rel), s.agent
		m.Created, _ = time.Parse(time.RFC3339, created)
		m.Updated, _ = time.Parse(time.RFC3339, updated)
		out[id] = m
	}
	return out, rows.Err()
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
		if utf8.RuneCountInString(w) < 2 || stopWords()[w] || seen[w] || len(w) > 64 {
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

// stopWords is built at its first use (recall), not at every start.
var stopWords = sync.OnceValue(func() map[string]bool {
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
})
