package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/clawseed/clawseed/internal/confine"
)

// The summary file of a session lives in the store's folder and nowhere
// else: its path is made here, from a checked id, and it is read through
// confine (a regular file whose real path is inside the folder, size-capped)
// and replaced whole through atomicfile (a reader, or a crash, sees the old
// file or the new one, never half of one).

// SummaryPath returns the summary file of session id (see [Summary]).
func (s *Store) SummaryPath(id string) (string, error) {
	p, err := s.path(id)
	if err != nil {
		return "", err
	}
	return summaryPathOf(p), nil
}

// summaryPathOf is the summary file beside the session file at path.
func summaryPathOf(path string) string {
	return strings.TrimSuffix(path, ext) + summaryExt
}

// ReadSummary reads session id's summary; ok is false when it has none.
func (s *Store) ReadSummary(id string) (sum Summary, ok bool, err error) {
	p, err := s.SummaryPath(id)
	if err != nil {
		return Summary{}, false, err
	}
	return readSummary(s.Dir, p)
}

// readSummary reads the summary file at path, which must lie in dir.
func readSummary(dir, path string) (Summary, bool, error) {
	data, err := confine.Read(path, confine.Options{Roots: []string{dir}, Max: MaxSummaryBytes})
	if errors.Is(err, fs.ErrNotExist) {
		return Summary{}, false, nil
	}
	if err != nil {
		return Summary{}, false, fmt.Errorf("read session summary: %w", err)
	}
	return ParseSummary(string(data)), true, nil
}

// removeSummary deletes the summary beside the session file at path, if any.
func removeSummary(path string) error {
	err := os.Remove(summaryPathOf(path))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove session summary: %w", err)
	}
	return nil
}
