package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clawseed/clawseed/internal/atomicfile"
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

// errNoSessionFile is returned by [Writer.WriteSummary] when the session
// file is not open: a summary is never left without its transcript.
var errNoSessionFile = errors.New("the session file is not open")

// SummaryPath returns the session's summary file ("" when the id is
// invalid). It may not exist.
func (w *Writer) SummaryPath() string {
	if w.path == "" {
		return ""
	}
	return summaryPathOf(w.path)
}

// ReadSummary reads the session's summary; ok is false when it has none.
func (w *Writer) ReadSummary() (Summary, bool, error) {
	if w.path == "" {
		return Summary{}, false, w.err
	}
	return readSummary(filepath.Dir(w.path), w.SummaryPath())
}

// WriteSummary replaces the session's summary file with s (mode 0600, like
// the session file), while the session is open: not before its file exists
// (a session in which nothing was recorded leaves no file at all), not
// after [Writer.Close].
func (w *Writer) WriteSummary(s Summary) error {
	w.mu.Lock()
	open, err := w.f != nil && !w.closed, w.err
	w.mu.Unlock()
	if err != nil {
		return err
	}
	if !open {
		return errNoSessionFile
	}
	return atomicfile.Write(w.SummaryPath(), []byte(s.Render()), 0o600)
}
