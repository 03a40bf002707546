package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// The daily logs ([memory].mode = "daily_log"): the model appends short
// timestamped notes to <dir>/logs/YYYY-MM-DD.md instead of writing topic
// files mid-session, and [Store.Distill] later turns the logs into topic
// files and moves them to <dir>/logs/done/.
//
//	logs/2025-01-31.md         "# 2025-01-31", a blank line, then "- HH:MM note" lines
//	logs/done/2025-01-30.md    a log already distilled
//	logs/.distill-pending.json an interrupted distillation (see distill.go)
//	logs/.distill.lock         held for the whole of a distillation

// Limits of the logs.
const (
	// MaxLogEntry bounds one note, in characters: a log line is a short
	// fact, the details go in the topic file distillation makes of it.
	MaxLogEntry = 1000
	logsDir     = "logs"
	doneDir     = "done"
)

// logName matches the name of a day's log.
var logName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}\.md$`) })

// A LogEntry is one note appended to a day's log.
type LogEntry struct {
	Path string // absolute path of the day's log
	Day  string // YYYY-MM-DD
	Line string // the line appended, without its newline: "- HH:MM note"
}

// LogsDir returns the folder of the daily logs.
func (s *Store) LogsDir() string { return filepath.Join(s.dir, logsDir) }

// AppendLog appends "- HH:MM text" to the log of the day the store's clock
// says, in the clock's time zone (the process's local time for
// time.Now), creating the file with a "# YYYY-MM-DD" title. A note is one
// line: runs of white space, line breaks included, become one space. A log
// is append-only: the lines already there are kept byte for byte, and the
// file is replaced whole (temporary file and rename, under the store's
// lock) so that a crash never leaves half a line and a reader never sees
// one.
func (s *Store) AppendLog(ctx context.Context, text string) (LogEntry, error) {
	text = strings.Join(strings.Fields(text), " ")
	switch {
	case text == "":
		return LogEntry{}, fmt.Errorf("memory log: %w: the note is empty", ErrInvalid)
	case utf8.RuneCountInString(text) > MaxLogEntry:
		return LogEntry{}, fmt.Errorf("memory log: %w: the note is longer than %d characters; log a short fact", ErrInvalid, MaxLogEntry)
	case strings.IndexFunc(text, unicode.IsControl) >= 0:
		return LogEntry{}, fmt.Errorf("memory log: %w: the note contains control characters", ErrInvalid)
	}
	now := s.now()
	day := now.Format(time.DateOnly)
	e := LogEntry{Path: filepath.Join(s.LogsDir(), day+".md"), Day: day, Line: "- " + now.Format("15:04") + " " + text}
	unlock, err := s.lock(ctx)
	if err != nil {
		return LogEntry{}, err
	}
	defer unlock()
	old, _, err := s.readFile(e.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = []byte("# " + day + "\n\n")
	case err != nil:
		return LogEntry{}, fmt.Errorf("memory log: %w", err)
	case len(old) > 0 && old[len(old)-1] != '\n':
		old = append(old, '\n') // a hand edit without a final newline
	}
	data := append(old, e.Line+"\n"...)
	if len(data) > maxFileBytes {
		return LogEntry{}, fmt.Errorf("memory log: %s is full (%d bytes); `clawseed memory distill` empties the logs of past days", e.Path, maxFileBytes)
	}
	if err := writeAtomic(e.Path, data); err != nil {
		return LogEntry{}, err
	}
	return e, nil
}

// A logFile is one day's log waiting to be distilled.
type logFile struct {
	Name string `json:"file"`   // "2025-01-31.md"
	Hash string `json:"sha256"` // of its content when it was read
	text string
}

// day is the log's date, YYYY-MM-DD.
func (l logFile) day() string { return strings.TrimSuffix(l.Name, ".md") }

// pendingLogs lists the logs of logs/ named YYYY-MM-DD.md, oldest first,
// from since on ("" = all) and before today (a log still being written is
// distilled once its day is over).
func (s *Store) pendingLogs(since, today string) ([]string, error) {
	ents, err := os.ReadDir(s.LogsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("memory: read %s: %w", s.LogsDir(), err)
	}
	var names []string
	for _, e := range ents { // ReadDir sorts by name, which is by date
		name := e.Name()
		if e.IsDir() || !logName().MatchString(name) {
			continue
		}
		day := strings.TrimSuffix(name, ".md")
		if day >= today || since != "" && day < since {
			continue
		}
		names = append(names, name)
	}
	return names, nil
}
