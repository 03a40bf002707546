package memory

import (
	"context"
	"slices"
	"testing"
)

func TestFTS5Varint(t *testing.T) {
	tests := []struct {
		in   []byte
		want uint64
		ok   bool
	}{
		{[]byte{0x00}, 0, true},
		{[]byte{0x7f, 0xff}, 127, true},
		{[]byte{0x81, 0x00}, 128, true},
		{[]byte{0x82, 0x8f, 0x10, 0x01}, 2<<14 | 0x0f<<7 | 0x10, true},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 1<<64 - 1, true},
		{[]byte{0x81}, 0, false},
		{nil, 0, false},
	}
	for _, tt := range tests {
		got, ok := fts5Varint(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("fts5Varint(% x) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseIDs(t *testing.T) {
	tests := []struct {
		in   string
		want []int64
		ok   bool
	}{
		{"", nil, true},
		{"7", []int64{7}, true},
		{"1,20,300", []int64{1, 20, 300}, true},
		{"300,1,20", []int64{1, 20, 300}, true},
		{"1,,2", nil, false},
		{"1,", nil, false},
		{"-1", nil, false},
		{"1x", nil, false},
		{"9223372036854775807", []int64{9223372036854775807}, true},
		{"9223372036854775808", nil, false},
	}
	for _, tt := range tests {
		got, err := parseIDs(tt.in)
		if (err == nil) != tt.ok || tt.ok && !slices.Equal(got, tt.want) {
			t.Errorf("parseIDs(%q) = %v, %v; want %v (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// TestRankBound checks what pruning rests on: the row count read from
// FTS5's averages record is the table's, the per-word counts are FTS5's,
// and every row's bm25 is below the bound its words give.
func TestRankBound(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	writeGoldenCorpus(t, s, 300, 3)
	if _, err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	db, err := s.database(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM mem_fts").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if got, ok := ftsRowCount(ctx, db); !ok || got != n || n != 300 {
		t.Fatalf("ftsRowCount = %d, %v; count(*) = %d", got, ok, n)
	}
	terms := []string{"deploy", "zzz", "body", "tests"}
	tr, err := termMatches(ctx, db, terms)
	if err != nil {
		t.Fatal(err)
	}
	for i, term := range terms {
		var c int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM mem_fts WHERE mem_fts MATCH ?", quoteTerm(term)).Scan(&c); err != nil {
			t.Fatal(err)
		}
		if tr.hits[i] != c {
			t.Errorf("hits[%q] = %d, count %d", term, tr.hits[i], c)
		}
	}
	idf := idfs(ctx, db, tr.hits)
	rows, err := bm25Of(ctx, db, terms, nil, -1)
	if err != nil || len(rows) != len(tr.rows) {
		t.Fatalf("bm25Of = %d rows, %v; want %d", len(rows), err, len(tr.rows))
	}
	for _, r := range rows {
		if b := bm25Bound(tr.mask(r.id), idf); -r.bm25 >= b || r.bm25 >= 0 {
			t.Errorf("row %d: bm25 %g, bound %g", r.id, r.bm25, b)
		}
	}
}
