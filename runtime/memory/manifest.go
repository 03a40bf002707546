package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// A ManifestEntry is one memory as model-based recall shows it to a model:
// its file and frontmatter, never its body.
type ManifestEntry struct {
	// File is the memory's file relative to the memory dir, slash-separated
	// ("user/editor.md", "projects/<key>/deploy.md"): the name the model
	// answers with, and what ReadEntry reads.
	File              string
	Name, Description string
	Type              string
	Updated           time.Time
	// Agent is the subagent whose own memory it is ("" for the main
	// memory's), as [Memory.Agent]: the manifest line names it, so that a
	// subagent's memories offered with the session's (the message named
	// the subagent) are told apart.
	Agent string
}

// Manifest lists the memories of both scopes for model-based recall, newest
// first and then by file (an order that depends on the files only), at most
// limit of them (0: all), leaving out the files of exclude (absolute paths,
// as [Hit] gives them) and files that do not parse. Like [Store.Recall] it
// brings the index up to date first, and creates nothing when neither
// folder exists.
func (s *Store) Manifest(ctx context.Context, exclude []string, limit int) ([]ManifestEntry, error) {
	if s.dirStamps() == ([2]fileStamp{}) {
		return nil, nil
	}
	if _, err := s.reindex(ctx); err != nil {
		return nil, err
	}
	db, err := s.database(ctx)
	if err != nil {
		return nil, err
	}
	// The sorter keeps only the rows that can be shown: limit, and as many
	// more as there are excluded files (-1: no limit). updated is RFC 3339
	// in UTC (formatTime), so text order is time order.
	rows := -1
	if limit > 0 {
		rows = limit + len(exclude)
	}
	rs, err := db.QueryContext(ctx, `SELECT path, name, description, type, updated FROM mem_files
		WHERE diag = '' AND folder IN (?, ?) ORDER BY updated DESC, path LIMIT ?`, append(s.folderKeys(), rows)...)
	if err != nil {
		return nil, fmt.Errorf("memory: manifest: %w", err)
	}
	defer rs.Close()
	skip := map[string]bool{}
	for _, p := range exclude {
		skip[p] = true
	}
	var out []ManifestEntry
	for rs.Next() && (limit <= 0 || len(out) < limit) {
		var e ManifestEntry
		var updated string
		if err := rs.Scan(&e.File, &e.Name, &e.Description, &e.Type, &updated); err != nil {
			return nil, fmt.Errorf("memory: manifest: %w", err)
		}
		if skip[s.absPath(e.File)] {
			continue
		}
		e.Updated, _ = time.Parse(time.RFC3339, updated)
		e.Agent = s.agent
		out = append(out, e)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("memory: manifest: %w", err)
	}
	return out, nil
}

// ReadEntry reads the memory whose file is file, as a [ManifestEntry]
// names it. Only a memory file directly in one of this Store's two folders
// is read (never MEMORY.md, another workspace's folder, or a path that
// leaves the memory dir), through the same confined read as every memory
// file: the name may come from a model's answer.
func (s *Store) ReadEntry(file string) (Memory, error) {
	a, base, err := s.entryArea(file)
	if err != nil {
		return Memory{}, err
	}
	return s.readMemory(filepath.Join(s.folder(a.scope), base), a.scope)
}
