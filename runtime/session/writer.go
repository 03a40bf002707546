package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/clawseed/clawseed/providers"
)

// errClosed is returned by a [Writer] used after [Writer.Close].
var errClosed = errors.New("session writer is closed")

// A Writer appends records to one session file. Each Record method marshals
// its record and writes the whole line, newline included, with one write
// before it returns: a process killed at any moment leaves at most a torn
// last line. There is no fsync per record (SIGKILL-safe, not power-loss-safe);
// [Writer.Close] fsyncs.
//
// A Writer from [Store.Create] creates its file lazily, at the first
// [Writer.RecordMessage]: records before it are kept in memory and written
// right after the header, so a session in which nothing was said leaves no
// file. A Writer is safe for concurrent use.
type Writer struct {
	mu     sync.Mutex
	dir    string
	path   string
	header Header
	now    func() time.Time
	// err is an invalid id from Create, or a failure that left the file in
	// an unknown state; every later record returns it.
	err     error
	f       *os.File
	size    int64    // bytes of whole lines in the file
	pending [][]byte // lines recorded before the file exists
	closed  bool
}

// ID returns the session id.
func (w *Writer) ID() string { return w.header.ID }

// Path returns the session file's path ("" when the id is invalid). The file
// may not exist yet: see [Writer].
func (w *Writer) Path() string { return w.path }

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

// Close fsyncs and closes the file, if one was created. Records still held in
// memory (no message was ever recorded) are dropped. Close is idempotent.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	w.pending = nil
	if w.f == nil {
		return nil
	}
	err := errors.Join(w.f.Sync(), w.f.Close())
	w.f = nil
	if err != nil {
		return fmt.Errorf("close session %s: %w", w.path, err)
	}
	return nil
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
	// Refuse what Parse would skip: a record written must be a record read.
	if err := check(&r); err != nil {
		return fmt.Errorf("session %s: %w", w.header.ID, err)
	}
	line, err := marshalLine(r)
	if err != nil {
		return fmt.Errorf("session %s: %w", w.header.ID, err)
	}
	if w.f == nil {
		if r.Type != TypeMessage {
			w.pending = append(w.pending, line)
			return nil
		}
		if err := w.create(); err != nil {
			return err
		}
	}
	return w.write(line)
}

// marshalLine encodes r as one line. HTML escaping is off so that summaries
// and skill blocks stay readable (and greppable) in the file.
func marshalLine(r Record) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil { // Encode ends the line with "\n"
		return nil, err
	}
	return b.Bytes(), nil
}

// create makes the file and writes the header and the pending records. On
// failure it removes what it made, so a later message can try again.
func (w *Writer) create() error {
	if err := os.MkdirAll(w.dir, 0o700); err != nil {
		return fmt.Errorf("create session directory: %w", err)
	}
	// O_EXCL: never append a second header to a session that already exists.
	f, err := os.OpenFile(w.path, os.O_APPEND|os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	// Locked from the start, so a --resume from another terminal cannot
	// slip in between the header and the first message.
	if err := lock(f); err != nil {
		return errors.Join(fmt.Errorf("create session: %w", err), f.Close())
	}
	w.f, w.size = f, 0
	header, err := marshalLine(Record{Type: TypeHeader, Time: w.header.Created, Header: &w.header})
	if err == nil {
		err = w.write(header)
	}
	for _, line := range w.pending {
		if err != nil {
			break
		}
		err = w.write(line)
	}
	if err != nil {
		w.f = nil
		return errors.Join(err, f.Close(), os.Remove(w.path))
	}
	w.pending = nil
	return nil
}

// write appends one line. A failed write that left part of the line behind
// is cut back, so the next record never glues onto a fragment; if that fails
// too, the writer stops.
func (w *Writer) write(line []byte) error {
	n, err := w.f.Write(line)
	if err == nil {
		w.size += int64(n)
		return nil
	}
	err = fmt.Errorf("write session %s: %w", w.path, err)
	if n > 0 {
		if terr := w.f.Truncate(w.size); terr != nil {
			w.err = errors.Join(err, terr)
			return w.err
		}
	}
	return err
}
