package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/clawseed/clawseed/internal/atomicfile"
)

// A fileSink keeps a session in its file `<dir>/<id>.jsonl`, with the
// summary beside it. Each line is written with one write: a process killed
// at any moment leaves at most a torn last line, which [Parse] ignores and
// [Store.Open] cuts off. There is no fsync per line (SIGKILL-safe, not
// power-loss-safe); Close fsyncs.
type fileSink struct {
	dir  string
	path string
	f    *os.File // nil until Create (or Open) and after Close
	size int64    // bytes of whole lines in the file
	// broken is a failed write that could not be cut back: the file's
	// end is unknown, so nothing more is written.
	broken error
}

// Create makes the file (never over an existing one), locks it, and writes
// the first lines. On failure it removes what it made.
func (s *fileSink) Create(lines [][]byte) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("create session directory: %w", err)
	}
	// O_EXCL: never append a second header to a session that already exists.
	f, err := os.OpenFile(s.path, os.O_APPEND|os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	// Locked from the start, so a --resume from another terminal cannot
	// slip in between the header and the first message.
	if err := lock(f); err != nil {
		return errors.Join(fmt.Errorf("create session: %w", err), f.Close(), os.Remove(s.path))
	}
	s.f, s.size = f, 0
	for _, line := range lines {
		if err = s.write(line); err != nil {
			break
		}
	}
	if err != nil {
		s.f, s.broken = nil, nil
		return errors.Join(err, f.Close(), os.Remove(s.path))
	}
	return nil
}

// Append writes one line.
func (s *fileSink) Append(line []byte) error {
	if s.f == nil {
		return errNoSessionFile
	}
	return s.write(line)
}

// write appends one line. A failed write that left part of the line behind
// is cut back, so the next record never glues onto a fragment; if that fails
// too, the sink stops.
func (s *fileSink) write(line []byte) error {
	if s.broken != nil {
		return s.broken
	}
	n, err := s.f.Write(line)
	if err == nil {
		s.size += int64(n)
		return nil
	}
	err = fmt.Errorf("write session %s: %w", s.path, err)
	if n > 0 {
		if terr := s.f.Truncate(s.size); terr != nil {
			s.broken = errors.Join(err, terr)
			return s.broken
		}
	}
	return err
}

// Close fsyncs and closes the file, which drops its lock.
func (s *fileSink) Close() error {
	if s.f == nil {
		return nil
	}
	err := errors.Join(s.f.Sync(), s.f.Close())
	s.f = nil
	if err != nil {
		return fmt.Errorf("close session %s: %w", s.path, err)
	}
	return nil
}

func (s *fileSink) Transcript() string { return s.path }

func (s *fileSink) SummaryLocation() string { return summaryPathOf(s.path) }

func (s *fileSink) ReadSummary() (Summary, bool, error) {
	return readSummary(filepath.Dir(s.path), s.SummaryLocation())
}

func (s *fileSink) WriteSummary(sum Summary) error {
	return atomicfile.Write(s.SummaryLocation(), []byte(sum.Render()), 0o600)
}
