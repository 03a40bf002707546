package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// Recall returns the memories of the store's folders that best match
// q.Query, best first, as [Store.Recall] does: the query's words (the same
// split, stop-words dropped), a memory's Score the same share of them
// (a word in its name or description counting 1, one only in its body
// 0.6), MinScore, Limit and Exclude the same. The order is Score, then the
// database's rank, then name and path; the words reach the database as
// values, never as query syntax.
func (s *RowStore) Recall(ctx context.Context, q RecallQuery) ([]Hit, error) {
	terms, limit, err := q.prepare()
	if err != nil || len(terms) == 0 {
		return nil, err
	}
	// Excluded rows are among the best at most once each: asking for as
	// many more leaves limit rows after them.
	matches, err := s.rows.Search(ctx, Search{Folders: s.keys(), Terms: terms, Type: q.Type, Limit: limit + len(q.Exclude)})
	if err != nil {
		return nil, fmtRows("recall "+strings.Join(terms, " "), "", err)
	}
	excluded := make(map[string]bool, len(q.Exclude))
	for _, p := range q.Exclude {
		excluded[p] = true
	}
	type cand struct {
		hit  Hit
		rank float64
	}
	var cands []cand
	for _, mt := range matches {
		m := s.memory(mt.Row)
		if excluded[m.Path] {
			continue
		}
		cands = append(cands, cand{Hit{Memory: m, Score: score(mt.Words, mt.Head, len(terms))}, mt.Rank})
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(b.hit.Score, a.hit.Score), cmp.Compare(b.rank, a.rank),
			strings.Compare(a.hit.Memory.Name, b.hit.Memory.Name), strings.Compare(a.hit.Memory.Path, b.hit.Memory.Path))
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

// Manifest lists the memories for model-based recall as [Store.Manifest]
// does: newest first, then by file, at most limit (0: all), leaving out
// those whose paths are in exclude.
func (s *RowStore) Manifest(ctx context.Context, exclude []string, limit int) ([]ManifestEntry, error) {
	rows, err := s.rows.List(ctx, s.keys(), false)
	if err != nil {
		return nil, fmtRows("manifest", "", err)
	}
	skip := make(map[string]bool, len(exclude))
	for _, p := range exclude {
		skip[p] = true
	}
	var out []ManifestEntry
	for _, r := range rows {
		if skip[s.path(r.Folder, r.File)] {
			continue
		}
		out = append(out, ManifestEntry{File: r.Folder + "/" + r.File, Name: r.Name, Description: r.Description, Type: r.Type, Updated: r.Updated.UTC(), Agent: s.agent})
	}
	slices.SortFunc(out, func(a, b ManifestEntry) int {
		return cmp.Or(b.Updated.Compare(a.Updated), strings.Compare(a.File, b.File))
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// ReadEntry reads the memory whose file is file, as a [ManifestEntry]
// names it: only one of this store's folders is looked in (the name may
// come from a model's answer).
func (s *RowStore) ReadEntry(file string) (Memory, error) {
	a, base, err := s.entryArea(file)
	if err != nil {
		return Memory{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), rowsTimeout)
	defer cancel()
	r, found, err := s.rows.GetFile(ctx, a.key, base)
	switch {
	case err != nil:
		return Memory{}, fmtRows("read "+file, "", err)
	case !found:
		return Memory{}, fmt.Errorf("memory file %q: %w", file, ErrNotFound)
	}
	return s.memory(r), nil
}
