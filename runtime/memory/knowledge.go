package memory

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A Node of the knowledge graph. Unlike memories, nodes live only in
// index.db; their ids are random and stored, so they are stable across
// sessions.
type Node struct {
	ID, Type, Title, Content, Source string
	Tags                             []string
	Created, Updated                 time.Time
}

// A Relation is a directed, labelled edge between two nodes.
type Relation struct {
	From, To, Relation string
}

// Capture stores n. Without an ID a new node is created ("k-" + 16 hex
// digits); with one, that node is updated (ErrNotFound when missing): empty
// fields and nil Tags keep their old values, so the model can change one
// field without repeating the others.
func (s *Store) Capture(ctx context.Context, n Node) (Node, error) {
	db, err := s.database(ctx)
	if err != nil {
		return Node{}, err
	}
	now := s.now().UTC().Truncate(time.Second)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return Node{}, fmt.Errorf("knowledge: capture: %w", err)
	}
	defer tx.Rollback()
	var rid int64
	if n.ID == "" {
		var b [8]byte
		rand.Read(b[:])
		n.ID = "k-" + hex.EncodeToString(b[:])
		n.Created = now
	} else {
		old, r, err := getNode(ctx, tx, n.ID)
		if err != nil {
			return Node{}, err
		}
		rid = r
		n.Created = old.Created
		n.Type = cmpOr(n.Type, old.Type)
		n.Title = cmpOr(n.Title, old.Title)
		n.Content = cmpOr(n.Content, old.Content)
		n.Source = cmpOr(n.Source, old.Source)
		if n.Tags == nil {
			n.Tags = old.Tags
		}
	}
	n.Type = cmpOr(strings.TrimSpace(n.Type), "note")
	n.Title = strings.TrimSpace(n.Title)
	if n.Title == "" && strings.TrimSpace(n.Content) == "" {
		return Node{}, fmt.Errorf("knowledge: capture: %w: a node needs a title or content", ErrInvalid)
	}
	if n.Tags == nil {
		n.Tags = []string{}
	}
	n.Updated = now
	tags, _ := json.Marshal(n.Tags)
	if rid == 0 {
		res, err := tx.ExecContext(ctx, `INSERT INTO k_nodes(id, type, title, content, tags, source, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			n.ID, n.Type, n.Title, n.Content, string(tags), n.Source, formatTime(n.Created), formatTime(n.Updated))
		if err != nil {
			return Node{}, fmt.Errorf("knowledge: capture %s: %w", n.ID, err)
		}
		if rid, err = res.LastInsertId(); err != nil {
			return Node{}, fmt.Errorf("knowledge: capture %s: %w", n.ID, err)
		}
	} else {
		if _, err := tx.ExecContext(ctx, `UPDATE k_nodes SET type = ?, title = ?, content = ?, tags = ?, source = ?, updated = ? WHERE rid = ?`,
			n.Type, n.Title, n.Content, string(tags), n.Source, formatTime(n.Updated), rid); err != nil {
			return Node{}, fmt.Errorf("knowledge: capture %s: %w", n.ID, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM k_fts WHERE rowid = ?`, rid); err != nil {
			return Node{}, fmt.Errorf("knowledge: capture %s: %w", n.ID, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO k_fts(rowid, title, content, tags) VALUES (?, ?, ?, ?)`,
		rid, n.Title, n.Content, strings.Join(n.Tags, " ")); err != nil {
		return Node{}, fmt.Errorf("knowledge: capture %s: %w", n.ID, err)
	}
	if err := tx.Commit(); err != nil {
		return Node{}, fmt.Errorf("knowledge: capture %s: %w", n.ID, err)
	}
	return n, nil
}

// SearchKnowledge returns the nodes best matching query (bm25 over title,
// content and tags), at most limit (default 10). Query text is sanitised
// like Recall's.
func (s *Store) SearchKnowledge(ctx context.Context, query string, limit int) ([]Node, error) {
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil, nil
	}
	if limit <= 0 {
		limit = 10
	}
	db, err := s.database(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT n.id, n.type, n.title, n.content, n.tags, n.source, n.created, n.updated
		FROM k_fts JOIN k_nodes n ON n.rid = k_fts.rowid
		WHERE k_fts MATCH ? ORDER BY bm25(k_fts, 3.0, 1.0, 2.0), n.id LIMIT ?`, matchExpr(terms), limit)
	if err != nil {
		return nil, fmt.Errorf("knowledge: search %q: %w", query, err)
	}
	defer rows.Close()
	var out []Node
	for rows.Next() {
		n, err := scanNode(rows)
		if err != nil {
			return nil, fmt.Errorf("knowledge: search: %w", err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("knowledge: search: %w", err)
	}
	return out, nil
}

// Relate adds the edge r (idempotent). Both nodes must exist, so the graph
// never points at nothing.
func (s *Store) Relate(ctx context.Context, r Relation) error {
	r.Relation = strings.TrimSpace(r.Relation)
	if r.Relation == "" {
		return fmt.Errorf("knowledge: relate: %w: relation must not be empty", ErrInvalid)
	}
	db, err := s.database(ctx)
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("knowledge: relate: %w", err)
	}
	defer tx.Rollback()
	for _, id := range []string{r.From, r.To} {
		if _, _, err := getNode(ctx, tx, id); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO k_relations(from_id, to_id, relation, created) VALUES (?, ?, ?, ?)`,
		r.From, r.To, r.Relation, formatTime(s.now())); err != nil {
		return fmt.Errorf("knowledge: relate %s -> %s: %w", r.From, r.To, err)
	}
	return tx.Commit()
}

// Node returns the node id and every relation from or to it, sorted.
func (s *Store) Node(ctx context.Context, id string) (Node, []Relation, error) {
	db, err := s.database(ctx)
	if err != nil {
		return Node{}, nil, err
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return Node{}, nil, fmt.Errorf("knowledge: get %s: %w", id, err)
	}
	defer tx.Rollback()
	n, _, err := getNode(ctx, tx, id)
	if err != nil {
		return Node{}, nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT from_id, to_id, relation FROM k_relations WHERE from_id = ? OR to_id = ?
		ORDER BY from_id, relation, to_id`, id, id)
	if err != nil {
		return Node{}, nil, fmt.Errorf("knowledge: get %s: %w", id, err)
	}
	defer rows.Close()
	var rels []Relation
	for rows.Next() {
		var r Relation
		if err := rows.Scan(&r.From, &r.To, &r.Relation); err != nil {
			return Node{}, nil, fmt.Errorf("knowledge: get %s: %w", id, err)
		}
		rels = append(rels, r)
	}
	return n, rels, rows.Err()
}

// KnowledgeStats counts nodes, relations and nodes per type.
func (s *Store) KnowledgeStats(ctx context.Context) (nodes, relations int, byType map[string]int, err error) {
	db, err := s.database(ctx)
	if err != nil {
		return 0, 0, nil, err
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM k_relations`).Scan(&relations); err != nil {
		return 0, 0, nil, fmt.Errorf("knowledge: stats: %w", err)
	}
	rows, err := db.QueryContext(ctx, `SELECT type, count(*) FROM k_nodes GROUP BY type`)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("knowledge: stats: %w", err)
	}
	defer rows.Close()
	byType = map[string]int{}
	for rows.Next() {
		var t string
		var c int
		if err := rows.Scan(&t, &c); err != nil {
			return 0, 0, nil, fmt.Errorf("knowledge: stats: %w", err)
		}
		byType[t] = c
		nodes += c
	}
	return nodes, relations, byType, rows.Err()
}

func getNode(ctx context.Context, tx *sql.Tx, id string) (Node, int64, error) {
	row := tx.QueryRowContext(ctx, `SELECT rid, id, type, title, content, tags, source, created, updated FROM k_nodes WHERE id = ?`, id)
	var rid int64
	n, err := scanNode(row, &rid)
	if errors.Is(err, sql.ErrNoRows) {
		return Node{}, 0, fmt.Errorf("knowledge: node %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Node{}, 0, fmt.Errorf("knowledge: node %q: %w", id, err)
	}
	return n, rid, nil
}

type scanner interface{ Scan(...any) error }

func scanNode(sc scanner, prefix ...any) (Node, error) {
	var n Node
	var tags, created, updated string
	if err := sc.Scan(append(prefix, &n.ID, &n.Type, &n.Title, &n.Content, &tags, &n.Source, &created, &updated)...); err != nil {
		return Node{}, err
	}
	if err := json.Unmarshal([]byte(tags), &n.Tags); err != nil || n.Tags == nil {
		n.Tags = []string{}
	}
	n.Created, _ = time.Parse(time.RFC3339, created)
	n.Updated, _ = time.Parse(time.RFC3339, updated)
	return n, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
