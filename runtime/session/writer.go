package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/clawseed/clawseed/providers"
)

// errClosed is returned by a [Writer] used after [Writer.Close].
var errClosed = errors.New("session writer is closed")

// errNoSink is the error of a Writer whose store had no place for it (a
// files store without a folder).
var errNoSink = errors.New("session store has no directory")

// errNoSessionFile is returned by [Writer.WriteSummary] before the session
// is stored or after Close: a summary is never left without its transcript.
var errNoSessionFile = errors.New("the session file is not open")

// A Writer appends records to one session. Each Record method checks and
// marshals its record and hands the whole line, newline included, to the
// store's [Sink] before it returns.
//
// A Writer from [Store.Create] (or another store's Create) stores nothing
// until the first [Writer.RecordMessage]: records before it are kept in
// memory and stored right after the header, so a session in which nothing
// was said leaves nothing behind. A Writer is safe for concurrent use; it
// calls its Sink from one goroutine at a time.
type Writer struct {
	mu     sync.Mutex
	header Header
	now    func() time.Time
	// sink is nil when the id is invalid (err says so).
	sink Sink
	// err is an invalid id from Create; every later record returns it.
	err     error
	created bool     // the sink holds the session
	pending [][]byte // lines recorded before it does
	closed  bool
}

// A Sink is where a [Writer]'s lines go: a session file of a [Store], or
// rows of a database (runtime/pgstore). The Writer does what every store
// shares — stamping, checking that a record written is a record read,
// encoding, holding records back until the first message, refusing use
// after Close — and the Sink stores, locks the session against other
// writers, and keeps the session summary. A Writer never calls its Sink
// concurrently.
type Sink interface {
	// Create stores a new session's first lines (the header, then the
	// records held back) and takes the session's lock; a session that
	// exists already is an error. A Create that fails leaves nothing
	// behind, so a later message may try again.
	Create(lines [][]byte) error
	// Append stores one more line. A Sink that can no longer store fails
	// every later Append.
	Append(line []byte) error
	// Close flushes and releases the session's lock; nothing is called
	// after it.
	Close() error
	// Transcript names the stored transcript for hooks
	// (transcript_path): a file's path, "" when it is no file.
	Transcript() string
	// SummaryLocation names the session summary for messages and the
	// model (a file's path, or where else it is kept).
	SummaryLocation() string
	// ReadSummary reads the session summary; ok is false when there is
	// none.
	ReadSummary() (s Summary, ok bool, err error)
	// WriteSummary replaces the session summary whole. The Writer calls
	// it only while the session is stored and open.
	WriteSummary(Summary) error
}

// NewWriter returns a Writer for header h over sink: created says whether
// the sink holds the session already (a store's Open) or is to create it
// at the first message (a store's Create). now stamps records; nil means
// time.Now. A zero h.Version becomes [FormatVersion] and a zero h.Created
// the current time. An id [CheckID] refuses makes a Writer whose every
// record fails with that error, sink or not.
func NewWriter(h Header, now func() time.Time, sink Sink, created bool) *Writer {
	if now == nil {
		now = time.Now
	}
	if h.Version == 0 {
		h.Version = FormatVersion
	}
	if h.Created.IsZero() {
		h.Created = now()
	}
	w := &Writer{header: h, now: now, sink: sink, created: created}
	switch w.err = CheckID(h.ID); {
	case w.err != nil:
		w.sink = nil
	case sink == nil:
		w.err = errNoSink
	}
	return w
}

// Stored reports whether the session is in its store: opened there, or
// created by its first message (records before it wait in memory).
func (w *Writer) Stored() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.created
}

// ID returns the session id.
func (w *Writer) ID() string { return w.header.ID }

// Path returns the session file's path: "" when the id is invalid or the
// store keeps no files. The file may not exist yet: see [Writer].
func (w *Writer) Path() string {
	if w.sink == nil {
		return ""
	}
	return w.sink.Transcript()
}

// RecordMessage appends a history message. The first one creates the file.
func (w *Writer) RecordMessage(m providers.Message) error {
	return w.record(Record{Type: TypeMessage, Message: &m})
}

// RecordSkill appends a skill activation or deactivation.
func (w *Writer) RecordSkill(c SkillChange) error {
	return w.record(Record{Type: TypeSkill, Skill: &c})
}

// RecordCompaction appends a compaction: loading then starts from c.Messages.
func (w *Writer) RecordCompaction(c Compaction) error {
	return w.record(Record{Type: TypeCompaction, Compaction: &c})
}

// RecordUsage appends the token usage of one or more responses to requests
// for model.
func (w *Writer) RecordUsage(model string, u providers.Usage) error {
	return w.record(Record{Type: TypeUsage, Usage: &u, Model: model})
}

// RecordPurposeUsage appends the usage of requests clawseed made on its own
// for purpose ("memory extraction") to model: counted in the totals, and
// apart per purpose.
func (w *Writer) RecordPurposeUsage(purpose, model string, u providers.Usage) error {
	return w.record(Record{Type: TypeUsage, Usage: &u, Model: model, Purpose: purpose})
}

// RecordFork appends a fork skill's sub-agent transcript.
func (w *Writer) RecordFork(f Fork) error {
	return w.record(Record{Type: TypeFork, Fork: &f})
}

// RecordRecall appends the memories automatic recall gave the model.
func (w *Writer) RecordRecall(memories []string) error {
	return w.record(Record{Type: TypeRecall, Recall: &Recall{Memories: memories}})
}

// RecordModel appends a switch of the session's model (/model).
func (w *Writer) RecordModel(m ModelChange) error {
	return w.record(Record{Type: TypeModel, Switch: &m})
}

// RecordTodos appends the model's todo list as it now stands (empty: cleared).
func (w *Writer) RecordTodos(items []Todo) error {
	return w.record(Record{Type: TypeTodos, Todos: &TodoList{Items: items}})
}

// Close flushes and closes the session (the file is fsynced) and releases
// its lock. Records still held in memory (no message was ever recorded)
// are dropped. Close is idempotent.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	w.pending = nil
	if w.sink == nil {
		return nil
	}
	return w.sink.Close()
}

func (w *Writer) record(r Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errClosed
	}
	if w.err != nil {
		return w.err
	}
	r.Time = w.now()
	line, err := EncodeRecord(r)
	if err != nil {
		return fmt.Errorf("session %s: %w", w.header.ID, err)
	}
	if !w.created {
		if r.Type != TypeMessage {
			w.pending = append(w.pending, line)
			return nil
		}
		return w.create(line)
	}
	return w.sink.Append(line)
}

// PrepareEncoding builds the JSON encoders of the record types now. The
// first record a process writes would build them otherwise: a quarter of a
// millisecond of reflection on the way to a session's first request. A
// session start calls it while it waits for other work.
func PrepareEncoding() {
	json.NewEncoder(io.Discard).Encode(Record{})
}

// EncodeRecord checks r and encodes it as one line, newline included: the
// bytes every store keeps of a record. A record Parse would skip is
// refused, so a record written is a record read. HTML escaping is off so
// that summaries and skill blocks stay readable (and greppable).
func EncodeRecord(r Record) ([]byte, error) {
	if err := check(&r); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil { // Encode ends the line with "\n"
		return nil, err
	}
	return b.Bytes(), nil
}

// create stores the header, the pending records and first, the first
// message. On failure nothing is stored and the records stay pending, so a
// later message can try again.
func (w *Writer) create(first []byte) error {
	header, err := EncodeRecord(Record{Type: TypeHeader, Time: w.header.Created, Header: &w.header})
	if err != nil {
		return fmt.Errorf("session %s: %w", w.header.ID, err)
	}
	lines := make([][]byte, 0, len(w.pending)+2)
	lines = append(append(append(lines, header), w.pending...), first)
	if err := w.sink.Create(lines); err != nil {
		return err
	}
	w.created, w.pending = true, nil
	return nil
}

// SummaryPath returns where the session's summary is kept ("" when the id
// is invalid): a file's path for the files store. It may not exist.
func (w *Writer) SummaryPath() string {
	if w.sink == nil {
		return ""
	}
	return w.sink.SummaryLocation()
}

// ReadSummary reads the session's summary; ok is false when it has none.
func (w *Writer) ReadSummary() (Summary, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return Summary{}, false, w.err
	}
	return w.sink.ReadSummary()
}

// WriteSummary replaces the session's summary (a file of mode 0600, like
// the session file, replaced whole) while the session is open: not before
// it is stored (a session in which nothing was recorded leaves nothing at
// all), not after [Writer.Close].
func (w *Writer) WriteSummary(s Summary) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if !w.created || w.closed {
		return errNoSessionFile
	}
	return w.sink.WriteSummary(s)
}
