package memory

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// How Recall ranks (issue 24: "rank once and score from that").
//
// What it returns is defined as: the candidates are the want best matches of
// the OR of the query's words in this Store's folders by FTS5's
// bm25(mem_fts, 4, 2, 1), then path; they are ordered by Score, then bm25,
// then path. Computing bm25 for every match (thousands for common words,
// each a docsize lookup inside FTS5) is what made recall slow, so:
//
//  1. termMatches lists, per word, the rows that contain it: one statement,
//     no bm25, no join. A row's words bound its bm25 from above (bm25Bound).
//  2. bestByBM25 asks FTS5 for bm25 only where the bound can still reach
//     the candidates: first the rows with the highest bounds, then those
//     whose bound is not below the want-th best bm25 found.
//  3. headMatches finds which of the candidates' words are in their name or
//     description, for their Score.
//
// FTS5 computes the very same bm25 values either way (the MATCH expression,
// hence its phrases and their IDFs, is the same; a row filter changes which
// rows are scored, not how), so the candidates are exactly those of ranking
// every match; TestRecallMatchesReference checks it against the old code.

// bm25K1 and bm25B are FTS5's constants in its bm25() (fts5_aux.c).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// querier is what ranking reads through: Recall's read transaction, one
// snapshot of the index for all of its statements.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// A match is a row containing at least one query word.
type match struct {
	id   int64
	mask uint32 // bit i: word i occurs in the row
}

// termRows is what termMatches found.
type termRows struct {
	rows []match // by id
	// hits[i] is the number of rows containing word i, in the whole index
	// (every folder: FTS5's IDF counts them all).
	hits []int
}

// mask returns the words of row id (0 when it matches none).
func (tr termRows) mask(id int64) uint32 {
	i, ok := slices.BinarySearchFunc(tr.rows, id, func(m match, id int64) int { return cmp.Compare(m.id, id) })
	if !ok {
		return 0
	}
	return tr.rows[i].mask
}

// termMatches runs one statement with a scalar subquery per word, each the
// rowids of the word's matches joined with commas.
func termMatches(ctx context.Context, db querier, terms []string) (termRows, error) {
	var b strings.Builder
	b.WriteString("SELECT ")
	args := make([]any, len(terms))
	for i, t := range terms {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(SELECT group_concat(rowid) FROM mem_fts WHERE mem_fts MATCH ?)")
		args[i] = quoteTerm(t)
	}
	lists := make([]sql.NullString, len(terms))
	dest := make([]any, len(lists))
	for i := range lists {
		dest[i] = &lists[i]
	}
	if err := db.QueryRowContext(ctx, b.String(), args...).Scan(dest...); err != nil {
		return termRows{}, err
	}
	tr := termRows{hits: make([]int, len(terms))}
	for i, l := range lists {
		ids, err := parseIDs(l.String)
		if err != nil {
			return termRows{}, err
		}
		tr.hits[i] = len(ids)
		tr.rows = mergeMatches(tr.rows, ids, 1<<i)
	}
	return tr, nil
}

// parseIDs reads a group_concat list of rowids, sorted (FTS5 returns them in
// order; sorted again only if it did not).
func parseIDs(list string) ([]int64, error) {
	if list == "" {
		return nil, nil
	}
	ids := make([]int64, 0, strings.Count(list, ",")+1)
	var v int64
	digits := 0
	for i := 0; i <= len(list); i++ {
		if i < len(list) && list[i] != ',' {
			d := int64(list[i]) - '0'
			if d < 0 || d > 9 || v > (math.MaxInt64-d)/10 {
				return nil, fmt.Errorf("rowid list: unexpected %q", list)
			}
			v = v*10 + d
			digits++
			continue
		}
		if digits == 0 {
			return nil, fmt.Errorf("rowid list: unexpected %q", list)
		}
		ids = append(ids, v)
		v, digits = 0, 0
	}
	if !slices.IsSorted(ids) {
		slices.Sort(ids)
	}
	return ids, nil
}

// mergeMatches adds bit to the rows ids (sorted) of rows (sorted by id),
// adding the rows not there yet.
func mergeMatches(rows []match, ids []int64, bit uint32) []match {
	out := make([]match, 0, len(rows)+len(ids))
	i, j := 0, 0
	for i < len(rows) || j < len(ids) {
		switch {
		case j == len(ids) || i < len(rows) && rows[i].id < ids[j]:
			out = append(out, rows[i])
			i++
		case i == len(rows) || ids[j] < rows[i].id:
			out = append(out, match{ids[j], bit})
			j++
		default:
			out = append(out, match{rows[i].id, rows[i].mask | bit})
			i++
			j++
		}
	}
	return out
}

// headMatches returns, for each of the rows ids, the words found in its name
// or description (bit i for word i); words no row contains (hits 0) are not
// looked up.
func headMatches(ctx context.Context, db querier, terms []string, hits []int, ids []int64) (map[int64]uint32, error) {
	var b strings.Builder
	b.WriteString("SELECT ")
	args := make([]any, 0, len(terms)+1)
	args = append(args, idList(ids))
	for i, t := range terms {
		if i > 0 {
			b.WriteString(", ")
		}
		if hits[i] == 0 {
			b.WriteString("NULL")
			continue
		}
		fmt.Fprintf(&b, "(SELECT group_concat(rowid) FROM mem_fts WHERE mem_fts MATCH ?%d AND +rowid IN (SELECT value FROM json_each(?1)))", len(args)+1)
		args = append(args, "{name description}: "+quoteTerm(t))
	}
	lists := make([]sql.NullString, len(terms))
	dest := make([]any, len(lists))
	for i := range lists {
		dest[i] = &lists[i]
	}
	if err := db.QueryRowContext(ctx, b.String(), args...).Scan(dest...); err != nil {
		return nil, err
	}
	out := make(map[int64]uint32, len(ids))
	for i, l := range lists {
		ids, err := parseIDs(l.String)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			out[id] |= 1 << i
		}
	}
	return out, nil
}

// score is a row's Score: the share of the words it contains, a word in its
// name or description counting 1 and one only in its body 0.6. It adds in
// word order so the sum is the same float every time.
func score(words, head uint32, nTerms int) float64 {
	var s float64
	for i := range nTerms {
		switch {
		case head&(1<<i) != 0:
			s += 1 / float64(nTerms)
		case words&(1<<i) != 0:
			s += 0.6 / float64(nTerms)
		}
	}
	return s
}

// idfs are FTS5's IDFs of the words (fts5Bm25GetData), or nil when the
// index's row count cannot be read (then nothing is pruned).
func idfs(ctx context.Context, db querier, hits []int) []float64 {
	nRow, ok := ftsRowCount(ctx, db)
	if !ok {
		return nil
	}
	out := make([]float64, len(hits))
	for i, h := range hits {
		n := float64(h)
		idf := math.Log((float64(nRow) - n + 0.5) / (n + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		out[i] = idf
	}
	return out
}

// ftsRowCount reads the row count FTS5 keeps (the N of bm25's IDF): the
// first varint of its averages record, rowid 1 of the %_data table. Counting
// the rows instead would walk the whole table.
func ftsRowCount(ctx context.Context, db querier) (uint64, bool) {
	var block []byte
	if err := db.QueryRowContext(ctx, "SELECT block FROM mem_fts_data WHERE id = 1").Scan(&block); err != nil {
		return 0, false
	}
	return fts5Varint(block)
}

// fts5Varint decodes SQLite's varint (big-endian, seven bits a byte with the
// high bit as continuation, the ninth byte whole), which FTS5 stores its
// counts in.
func fts5Varint(p []byte) (uint64, bool) {
	var v uint64
	for i := 0; i < len(p) && i < 9; i++ {
		if i == 8 {
			return v<<8 | uint64(p[i]), true
		}
		v = v<<7 | uint64(p[i]&0x7f)
		if p[i] < 0x80 {
			return v, true
		}
	}
	return 0, false
}

// bm25Bound is above the bm25 score (the negated bm25) of any row whose
// words are mask: each word adds idf·f·(k1+1)/(f + k1·K), with K ≥ 1-b > 0,
// which is below idf·(k1+1) whatever its frequency f.
func bm25Bound(mask uint32, idf []float64) float64 {
	var s float64
	for i, v := range idf {
		if mask&(1<<i) != 0 {
			s += v
		}
	}
	return s * (bm25K1 + 1)
}

// ranked is a row with its bm25 (negative: lower is better).
type ranked struct {
	id   int64
	path string
	bm25 float64
}

// A level is the rows with the same words, which share a bound.
type level struct {
	mask  uint32
	bound float64
	n     int
}

// passRows is about what one more ranking pass costs, in rows scored (each
// pass walks every match and recounts the IDFs; measured on 10,000
// memories). A first pass takes up to this many more rows rather than make
// a second pass likely.
const passRows = 1024

// bestByBM25 returns the want best rows by (bm25, path) among the matches
// in this Store's folders (and of typ, when set), evaluating bm25 only for
// rows whose bound can still reach them. extra is passRows (tests make it
// small to reach the second pass on small corpora).
func (s *Store) bestByBM25(ctx context.Context, db querier, terms []string, typ string, tr termRows, want, extra int) ([]ranked, error) {
	idf := idfs(ctx, db, tr.hits)
	if idf == nil {
		return s.rankPass(ctx, db, terms, typ, nil, want)
	}
	var levels []level
	at := map[uint32]int{}
	for _, r := range tr.rows {
		i, ok := at[r.mask]
		if !ok {
			i = len(levels)
			at[r.mask] = i
			levels = append(levels, level{mask: r.mask, bound: bm25Bound(r.mask, idf)})
		}
		levels[i].n++
	}
	slices.SortFunc(levels, func(a, b level) int {
		return cmp.Or(cmp.Compare(b.bound, a.bound), cmp.Compare(a.mask, b.mask))
	})
	// First pass: the highest levels, until they hold a few times want,
	// and the next ones while they are cheaper than a second pass.
	first, n := 0, 0
	for first < len(levels) && n < 4*want {
		n += levels[first].n
		first++
	}
	for more := 0; first < len(levels) && more+levels[first].n <= extra; first++ {
		more += levels[first].n
	}
	if first == len(levels) {
		return s.rankPass(ctx, db, terms, typ, nil, want)
	}
	best, err := s.rankPass(ctx, db, terms, typ, idsWith(tr, levels[:first]), want)
	if err != nil {
		return nil, err
	}
	// Second pass: the levels that could still beat the want-th best. A
	// row whose bound is below it scores below it (the margin covers
	// rounding in the bound), so it cannot be a candidate, not even by tying.
	threshold := 0.0
	if len(best) == want {
		threshold = -best[want-1].bm25 * (1 - 1e-9)
	}
	last := first
	for last < len(levels) && levels[last].bound >= threshold {
		last++
	}
	if last == first {
		return best, nil
	}
	more, err := s.rankPass(ctx, db, terms, typ, idsWith(tr, levels[first:last]), want)
	if err != nil {
		return nil, err
	}
	best = append(best, more...)
	sortRanked(best)
	return best[:min(len(best), want)], nil
}

// idsWith lists the rows whose words are those of one of the levels.
func idsWith(tr termRows, levels []level) []int64 {
	masks := make(map[uint32]bool, len(levels))
	for _, l := range levels {
		masks[l.mask] = true
	}
	var ids []int64
	for _, r := range tr.rows {
		if masks[r.mask] {
			ids = append(ids, r.id)
		}
	}
	return ids
}

// rankPass returns the want best rows by (bm25, path) among ids (every
// match when nil) that are in this Store's folders and of typ (when set).
//
// FTS5 scores the rows alone (no join) and SQLite's sorter keeps the best
// few hundred; their folders and paths are read afterwards, best first,
// until they settle the answer. bm25 ties are common (same lengths, same
// counts) and the path decides them, so when the want-th row kept ties with
// the last row returned, or too few rows are in this Store's folders, the
// pass runs again for every row.
func (s *Store) rankPass(ctx context.Context, db querier, terms []string, typ string, ids []int64, want int) ([]ranked, error) {
	for _, top := range []int{max(4*want, 256), -1} {
		rows, err := bm25Of(ctx, db, terms, ids, top)
		if err != nil {
			return nil, err
		}
		var kept []ranked
		start := 0
		for chunk := max(want, 16); start < len(rows); chunk *= 2 {
			// The rows after start score no better than it: once it scores
			// worse than the want-th kept row, none can take its place.
			if len(kept) >= want && rows[start].bm25 > kept[want-1].bm25 {
				break
			}
			end := min(len(rows), start+chunk)
			for end < len(rows) && rows[end].bm25 == rows[end-1].bm25 {
				end++ // ties go together
			}
			more, err := s.place(ctx, db, typ, rows[start:end])
			if err != nil {
				return nil, err
			}
			kept = append(kept, more...)
			sortRanked(kept)
			start = end
		}
		// Rows bm25Of left out score no better than the last it returned.
		settled := start < len(rows) || len(kept) >= want && kept[want-1].bm25 < rows[len(rows)-1].bm25
		if top < 0 || len(rows) < top || settled {
			return kept[:min(len(kept), want)], nil
		}
	}
	panic("unreachable: the second pass scores every row")
}

// bm25Of asks FTS5 for the bm25 of the rows ids (every match when nil),
// best first (ties in any order), at most top of them (top < 0: all). The
// row filter is `+rowid IN (...)`: the unary plus keeps it from FTS5's
// planner, which would otherwise run the MATCH again, and recount its IDFs,
// for each id.
func bm25Of(ctx context.Context, db querier, terms []string, ids []int64, top int) ([]ranked, error) {
	q := "SELECT rowid, bm25(mem_fts, 4.0, 2.0, 1.0) AS r FROM mem_fts WHERE mem_fts MATCH ?1"
	args := []any{matchExpr(terms), top}
	if ids != nil {
		q += " AND +rowid IN (SELECT value FROM json_each(?3))"
		args = append(args, idList(ids))
	}
	rs, err := db.QueryContext(ctx, q+" ORDER BY r LIMIT ?2", args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []ranked
	for rs.Next() {
		var r ranked
		if err := rs.Scan(&r.id, &r.bm25); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rs.Err()
}

// place keeps the rows that are in this Store's folders and of typ (when
// set), with their paths.
func (s *Store) place(ctx context.Context, db querier, typ string, rows []ranked) ([]ranked, error) {
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	paths, err := s.pathsOf(ctx, db, typ, ids)
	if err != nil {
		return nil, err
	}
	var kept []ranked
	for _, r := range rows {
		if p, ok := paths[r.id]; ok {
			r.path = p
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// pathsOf returns the paths of the rows ids that are in this Store's
// folders and of typ (when set).
func (s *Store) pathsOf(ctx context.Context, db querier, typ string, ids []int64) (map[int64]string, error) {
	q := "SELECT id, path FROM mem_files WHERE id IN (SELECT value FROM json_each(?)) AND folder IN (?, ?)"
	args := append([]any{idList(ids)}, s.folderKeys()...)
	if typ != "" {
		q += " AND type = ?"
		args = append(args, typ)
	}
	rs, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := make(map[int64]string, len(ids))
	for rs.Next() {
		var id int64
		var p string
		if err := rs.Scan(&id, &p); err != nil {
			return nil, err
		}
		out[id] = p
	}
	return out, rs.Err()
}

func sortRanked(rs []ranked) {
	slices.SortFunc(rs, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.bm25, b.bm25), strings.Compare(a.path, b.path))
	})
}

// idList is ids as a JSON array, for json_each.
func idList(ids []int64) string {
	b := make([]byte, 0, 8*len(ids)+2)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}
