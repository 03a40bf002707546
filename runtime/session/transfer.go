package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/clawseed/clawseed/internal/atomicfile"
	"github.com/clawseed/clawseed/internal/confine"
)

// A Stored session is a session whole, as a store keeps it: what `clawseed
// storage export|import` moves from one store to another without losing
// a byte.
type Stored struct {
	ID string
	// Data is its records as the lines of a session file, each ending
	// with "\n".
	Data []byte
	// Updated is when it was last written (a file's modification time).
	Updated time.Time
	// Summary is its summary as stored ([Summary.Render]'s text), "" when
	// it has none.
	Summary string
}

// ErrExists is returned (wrapped) by an Import of a session id the store
// holds already.
var ErrExists = errors.New("session exists already")

// RecordLines returns the lines of a session file that are records, as
// [Parse] reads them, without their newlines: a header only first, no
// torn last line, no line Parse skips. skipped counts the other non-blank
// lines. Stores keep exactly these lines.
func RecordLines(data []byte) (lines [][]byte, skipped int) {
	for len(data) > 0 {
		// A last line without its newline is used when whole, as Parse
		// does.
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r Record
		if json.Unmarshal(line, &r) != nil || check(&r) != nil || r.Type == TypeHeader && len(lines) > 0 {
			skipped++
			continue
		}
		lines = append(lines, line)
	}
	return lines, skipped
}

// ImportLines returns the records of st a store imports (see
// [RecordLines]), or why it cannot: an invalid id, no header first.
func ImportLines(st Stored) ([][]byte, error) {
	if err := CheckID(st.ID); err != nil {
		return nil, err
	}
	lines, _ := RecordLines(st.Data)
	var first Record
	if len(lines) == 0 || json.Unmarshal(lines[0], &first) != nil || first.Type != TypeHeader {
		return nil, fmt.Errorf("import session %s: %w (a session starts with its header)", st.ID, ErrNoRecords)
	}
	return lines, nil
}

// Export reads session id whole: its file's record lines (a torn or
// unreadable line is left out), its modification time, its summary file.
func (s *Store) Export(id string) (Stored, error) {
	sess, data, err := s.read(id)
	if err != nil {
		return Stored{}, err
	}
	lines, _ := RecordLines(data)
	st := Stored{ID: id, Data: joinLines(lines), Updated: sess.Updated}
	path, _ := s.SummaryPath(id)
	sum, err := confine.Read(path, confine.Options{Roots: []string{s.Dir}, Max: MaxSummaryBytes})
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return Stored{}, fmt.Errorf("read session summary: %w", err)
	default:
		st.Summary = string(sum)
	}
	return st, nil
}

// Import writes a session exported from any store as its file (never over
// an existing one: [ErrExists]), with its modification time, and its
// summary file.
func (s *Store) Import(st Stored) error {
	lines, err := ImportLines(st)
	if err != nil {
		return err
	}
	path, err := s.path(st.ID)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("import session: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("import session %s: %w", st.ID, ErrExists)
	}
	if err != nil {
		return fmt.Errorf("import session: %w", err)
	}
	_, err = f.Write(joinLines(lines))
	err = errors.Join(err, f.Sync(), f.Close())
	if err == nil && st.Summary != "" {
		err = atomicfile.Write(summaryPathOf(path), []byte(st.Summary), 0o600)
	}
	if err == nil && !st.Updated.IsZero() {
		err = os.Chtimes(path, st.Updated, st.Updated)
	}
	if err != nil {
		return errors.Join(fmt.Errorf("import session %s: %w", st.ID, err), os.Remove(path), removeSummary(path))
	}
	return nil
}

// joinLines makes a file of lines.
func joinLines(lines [][]byte) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}
