package memory

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// ReindexStats counts what a Reindex changed.
type ReindexStats struct {
	Files       int // memory files seen (valid or not)
	Added       int
	Updated     int
	Removed     int
	Diagnostics int // files that failed to parse
}

// fileStamp is what the stat pass compares: a file whose mtime and size are
// unchanged is not re-read.
type fileStamp struct {
	mtime, size int64
}

// Reindex brings index.db up to date with the files of both scopes (files
// whose mtime or size changed are re-read and re-indexed when their hash
// changed; rows of deleted files are removed) and regenerates a MEMORY.md
// that no longer matches its folder.
func (s *Store) Reindex(ctx context.Context) (ReindexStats, error) {
	st, err := s.reindex(ctx)
	if err != nil {
		return st, err
	}
	db, err := s.database(ctx)
	if err != nil {
		return st, err
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM mem_files WHERE diag != '' AND folder IN (?, ?)", s.folderKeys()...).Scan(&st.Diagnostics); err != nil {
		return st, fmt.Errorf("memory: reindex: %w", err)
	}
	for _, scope := range s.scopes() {
		if err := s.syncIndexFile(ctx, scope); err != nil {
			return st, err
		}
	}
	return st, nil
}

// reindex updates the database only; Recall calls it before every query, so
// its common case (nothing changed) is one stat per file and no SQL.
func (s *Store) reindex(ctx context.Context) (ReindexStats, error) {
	db, err := s.database(ctx)
	if err != nil {
		return ReindexStats{}, err
	}
	if n, ok := s.current(); ok {
		return ReindexStats{Files: n}, nil
	}
	dirs := s.dirStamps()
	cur, err := s.statPass()
	if err != nil {
		return ReindexStats{}, err
	}
	st := ReindexStats{Files: len(cur)}
	s.dbMu.Lock()
	fresh := s.seen != nil && maps.Equal(s.seen, cur)
	if fresh {
		s.seenAt, s.seenDirs = time.Now(), dirs
	}
	s.dbMu.Unlock()
	if fresh {
		return st, nil
	}
	tx, err := db.BeginTx(ctx, nil) // immediate: see database
	if err != nil {
		return st, fmt.Errorf("memory: reindex: %w", err)
	}
	defer tx.Rollback()
	rows, err := s.loadRows(ctx, tx)
	if err != nil {
		return st, err
	}
	var changed []string
	for rel, stamp := range cur {
		if r, ok := rows[rel]; !ok || r.stamp != stamp {
			changed = append(changed, rel)
		}
	}
	for _, p := range s.readChanged(ctx, changed) {
		if err := s.apply(ctx, tx, p, rows, &st); err != nil {
			return st, err
		}
	}
	for rel, r := range rows {
		if _, ok := cur[rel]; ok {
			continue
		}
		if err := deleteRow(ctx, tx, r.id); err != nil {
			return st, fmt.Errorf("memory: reindex %s: %w", rel, err)
		}
		st.Removed++
	}
	if err := tx.Commit(); err != nil {
		return st, fmt.Errorf("memory: reindex: %w", err)
	}
	s.dbMu.Lock()
	s.seen, s.seenAt, s.seenDirs = cur, time.Now(), dirs
	s.dbMu.Unlock()
	return st, nil
}

// statInterval is how long a full stat pass is trusted while neither
// folder changed. Adding, removing or renaming a file (every write of a
// Store renames a temporary file into place) changes its folder's mtime and
// is seen at once; a file edited in place by hand is seen within this
// interval. It keeps recall over thousands of memories to milliseconds: the
// full pass stats every file.
const statInterval = time.Second

// current reports whether the index is known current without a full stat
// pass, and the number of files then.
func (s *Store) current() (int, bool) {
	s.dbMu.Lock()
	seen, at, dirs := s.seen, s.seenAt, s.seenDirs
	s.dbMu.Unlock()
	if seen == nil || time.Since(at) >= statInterval {
		return 0, false
	}
	if s.dirStamps() != dirs {
		return 0, false
	}
	return len(seen), true
}

// dirStamps stamps the Store's folders (at most two; zero for a missing
// one).
func (s *Store) dirStamps() [2]fileStamp {
	var out [2]fileStamp
	for i, scope := range s.scopes() {
		if fi, err := os.Stat(s.folder(scope)); err == nil {
			out[i] = fileStamp{fi.ModTime().UnixNano(), fi.Size()}
		}
	}
	return out
}

// statPass stats every memory file of the Store's folders, keyed by path
// relative to the memory dir. Only files directly in a folder count, so
// the main memory does not see the subagents' folders below its own.
func (s *Store) statPass() (map[string]fileStamp, error) {
	cur := map[string]fileStamp{}
	for _, a := range s.areas {
		folder := filepath.Join(s.dir, filepath.FromSlash(a.key))
		ents, err := os.ReadDir(folder)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("memory: read %s: %w", folder, err)
		}
		prefix := a.key + "/"
		for _, e := range ents {
			if !isMemoryFile(e.Name()) || e.IsDir() {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue // deleted since ReadDir
			}
			cur[prefix+e.Name()] = fileStamp{fi.ModTime().UnixNano(), fi.Size()}
		}
	}
	return cur, nil
}

type indexedRow struct {
	id    int64
	stamp fileStamp
	hash  string
}

func (s *Store) loadRows(ctx context.Context, tx *sql.Tx) (map[string]indexedRow, error) {
	rs, err := tx.QueryContext(ctx, "SELECT id, path, mtime, size, hash FROM mem_files WHERE folder IN (?, ?)", s.folderKeys()...)
	if err != nil {
		return nil, fmt.Errorf("memory: reindex: %w", err)
	}
	defer rs.Close()
	rows := map[string]indexedRow{}
	for rs.Next() {
		var r indexedRow
		var path string
		if err := rs.Scan(&r.id, &path, &r.stamp.mtime, &r.stamp.size, &r.hash); err != nil {
			return nil, fmt.Errorf("memory: reindex: %w", err)
		}
		rows[path] = r
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("memory: reindex: %w", err)
	}
	return rows, nil
}

// parsed is one changed file, read and parsed off the database transaction.
type parsed struct {
	rel   string
	stamp fileStamp
	hash  string
	mem   Memory
	diag  string
	gone  bool
}

// readChanged reads and parses files in parallel: on a cold rebuild of
// 10,000 files parsing dominates, and it needs no database.
func (s *Store) readChanged(ctx context.Context, rels []string) []parsed {
	out := make([]parsed, len(rels))
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				out[i] = s.readOne(rels[i])
			}
		})
	}
	for i := range rels {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func (s *Store) readOne(rel string) parsed {
	p := parsed{rel: rel}
	path := filepath.Join(s.dir, filepath.FromSlash(rel))
	data, fi, err := s.readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		p.gone = true
		return p
	}
	if err != nil {
		// Stamped as found, so that it is not read again until it changes.
		if li, lerr := os.Lstat(path); lerr == nil {
			p.stamp = fileStamp{li.ModTime().UnixNano(), li.Size()}
			p.hash = fmt.Sprintf("refused:%d", li.Size())
		}
		p.diag = err.Error()
		return p
	}
	p.stamp = fileStamp{fi.ModTime().UnixNano(), fi.Size()}
	sum := sha256.Sum256(data)
	p.hash = hex.EncodeToString(sum[:])
	m, err := ParseFile(path, data)
	if err != nil {
		p.diag = err.Error()
		return p
	}
	fillDefaults(&m, s.scopeOfRel(rel), fi.ModTime())
	p.mem = m
	return p
}

// apply writes one changed file's row and FTS row.
func (s *Store) apply(ctx context.Context, tx *sql.Tx, p parsed, rows map[string]indexedRow, st *ReindexStats) error {
	if p.gone {
		return nil // the removal pass deletes its row
	}
	old, had := rows[p.rel]
	if had && old.hash == p.hash {
		_, err := tx.ExecContext(ctx, "UPDATE mem_files SET mtime = ?, size = ? WHERE id = ?", p.stamp.mtime, p.stamp.size, old.id)
		return wrapRel(p.rel, err)
	}
	if had {
		if err := deleteRow(ctx, tx, old.id); err != nil {
			return wrapRel(p.rel, err)
		}
		st.Updated++
	} else {
		st.Added++
	}
	folder := p.rel[:len(p.rel)-len(filepath.Base(p.rel))-1]
	m := p.mem
	res, err := tx.ExecContext(ctx, `INSERT INTO mem_files(path, folder, mtime, size, hash, name, description, type, created, updated, body, diag)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.rel, folder, p.stamp.mtime, p.stamp.size, p.hash, m.Name, m.Description, m.Type,
		formatTime(m.Created), formatTime(m.Updated), m.Body, p.diag)
	if err != nil {
		return wrapRel(p.rel, err)
	}
	if p.diag != "" {
		return nil
	}
	id, err := res.LastInsertId()
	if err != nil {
		return wrapRel(p.rel, err)
	}
	_, err = tx.ExecContext(ctx, "INSERT INTO mem_fts(rowid, name, description, body) VALUES (?, ?, ?, ?)", id, m.Name, m.Description, m.Body)
	return wrapRel(p.rel, err)
}

func deleteRow(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, "DELETE FROM mem_fts WHERE rowid = ?", id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "DELETE FROM mem_files WHERE id = ?", id)
	return err
}

func wrapRel(rel string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("memory: index %s: %w", rel, err)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
