package tools

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
)

// goSearch is the pure-Go [searchEngine]. It walks like ripgrep with
// --hidden --no-ignore --no-follow: every file except .git and node_modules,
// no symlinks, skipping binary files (any NUL byte) and files over 10 MiB.
func (t *contentSearch) goSearch(ctx context.Context, q *searchQuery, target string, isDir bool, emit func(fileMatches) bool) error {
	if !isDir {
		if f, ok := searchFile(target, q); ok {
			emit(f)
		}
		return nil
	}
	include := includeMatcher(q.include)
	return walkFiles(ctx, t.sb, target, false, func(path, rel string) error {
		if !include(rel) {
			return nil
		}
		if f, ok := searchFile(path, q); ok && !emit(f) {
			return fs.SkipAll
		}
		return nil
	})
}

// searchFile searches one file; ok is false when it has no match or cannot
// be searched (unreadable, too large, binary).
func searchFile(path string, q *searchQuery) (fileMatches, bool) {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() > maxFileBytes {
		return fileMatches{}, false
	}
	data, err := readChecked(path, maxFileBytes)
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		return fileMatches{}, false
	}
	data = bytes.TrimSuffix(data, []byte("\n"))
	var lines [][]byte
	if len(data) > 0 || fi.Size() > 0 {
		lines = bytes.Split(data, []byte("\n"))
	}
	var hits []int // 0-based indexes of matching lines
	for i, l := range lines {
		if q.re.Match(l) {
			hits = append(hits, i)
			if q.mode == modeContent && len(hits) > q.max {
				break // the collector cannot show more
			}
		}
	}
	if len(hits) == 0 {
		return fileMatches{}, false
	}
	f := fileMatches{path: filepath.Clean(path), count: len(hits)}
	if q.mode != modeContent {
		return f, true
	}
	next := 0 // first line not yet output
	for k, h := range hits {
		from := max(h-q.before, next)
		to := min(h+q.after, len(lines)-1)
		if k+1 < len(hits) {
			to = min(to, hits[k+1]-1)
		} else if len(hits) > q.max {
			to = h // the collector stops at this match; see trimAfterCap
		}
		for i := from; i <= to; i++ {
			f.lines = append(f.lines, matchLine{n: i + 1, text: string(lines[i]), match: i == h})
		}
		next = to + 1
	}
	return f, true
}
