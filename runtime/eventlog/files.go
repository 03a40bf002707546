package eventlog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/clawseed/clawseed/internal/flock"
	"github.com/clawseed/clawseed/runtime/session"
)

// pollInterval is how often [Files.Wait] looks at the file for events
// appended by another process (those of its own process wake it at once).
const pollInterval = 250 * time.Millisecond

// Files is a [Log] in a folder, `<dir>/<session>.jsonl`: one line per
// event, {"seq":N,"time":"…","data":…}. An append holds the file's lock
// (internal/flock), so processes sharing the folder number events without
// gaps or repeats; a process killed in the middle of a line leaves a torn
// last line, which readers skip and the next append cuts off.
type Files struct {
	dir string

	mu sync.Mutex
	// tails caches the size and last number of each file this process
	// appended to, valid while the size is unchanged (another process's
	// append changes it, and the file is read again).
	tails   map[string]tail
	waiters map[string]map[chan struct{}]struct{}
}

type tail struct {
	size int64
	seq  int64
}

// line is one event in its file.
type line struct {
	Seq  int64           `json:"seq"`
	Time time.Time       `json:"time"`
	Data json.RawMessage `json:"data"`
}

// NewFiles returns the log kept in dir (created at the first append).
func NewFiles(dir string) *Files {
	return &Files{dir: dir, tails: map[string]tail{}, waiters: map[string]map[chan struct{}]struct{}{}}
}

// path is the file of session's events.
func (f *Files) path(sess string) (string, error) {
	if err := session.CheckID(sess); err != nil {
		return "", err
	}
	return filepath.Join(f.dir, sess+".jsonl"), nil
}

// Append stores data, compacted, as session's next event.
func (f *Files) Append(ctx context.Context, sess string, data []byte) (int64, error) {
	data, err := Compact(data)
	if err != nil {
		return 0, err
	}
	path, err := f.path(sess)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return 0, fmt.Errorf("event log: %w", err)
	}
	unlock, err := flock.LockContext(ctx, path)
	if err != nil {
		return 0, fmt.Errorf("event log %s: %w", sess, err)
	}
	defer unlock()
	seq, err := f.appendLocked(sess, path, data)
	if err != nil {
		return 0, fmt.Errorf("event log %s: %w", sess, err)
	}
	f.wake(sess)
	return seq, nil
}

// appendLocked writes the next line; the caller holds the file's lock.
func (f *Files) appendLocked(sess, path string, data []byte) (int64, error) {
	file, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return 0, err
	}
	f.mu.Lock()
	t, ok := f.tails[sess]
	f.mu.Unlock()
	if !ok || t.size != fi.Size() {
		if t, err = scanTail(file, fi.Size()); err != nil {
			return 0, err
		}
	}
	// Not json.Marshal: it would HTML-escape data, which must read back
	// byte for byte.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(line{Seq: t.seq + 1, Time: time.Now().UTC(), Data: data}); err != nil { // ends with "\n"
		return 0, err
	}
	n, err := file.Write(buf.Bytes())
	if err != nil {
		if n > 0 {
			_ = file.Truncate(t.size) // never leave a fragment to glue onto
		}
		f.mu.Lock()
		delete(f.tails, sess)
		f.mu.Unlock()
		return 0, err
	}
	t = tail{size: t.size + int64(n), seq: t.seq + 1}
	f.mu.Lock()
	f.tails[sess] = t
	f.mu.Unlock()
	return t.seq, nil
}

// scanTail reads the last number in the file, cutting off a torn last
// line first.
func scanTail(file *os.File, size int64) (tail, error) {
	data := make([]byte, size)
	if _, err := file.ReadAt(data, 0); err != nil && size > 0 {
		return tail{}, err
	}
	whole := bytes.LastIndexByte(data, '\n') + 1
	if whole < len(data) {
		if err := file.Truncate(int64(whole)); err != nil {
			return tail{}, err
		}
	}
	t := tail{size: int64(whole)}
	for _, l := range parseLines(data[:whole]) {
		t.seq = max(t.seq, l.Seq)
	}
	return t, nil
}

// parseLines decodes the whole lines of data, skipping what does not
// decode.
func parseLines(data []byte) []line {
	var out []line
	for len(data) > 0 {
		raw, rest, complete := bytes.Cut(data, []byte("\n"))
		data = rest
		var l line
		if complete && json.Unmarshal(raw, &l) == nil && l.Seq > 0 {
			out = append(out, l)
		}
	}
	return out
}

// After returns session's events above seq.
func (f *Files) After(ctx context.Context, sess string, seq int64, limit int) ([]Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path, err := f.path(sess)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("event log %s: %w", sess, err)
	}
	var out []Event
	for _, l := range parseLines(data) {
		if l.Seq <= seq {
			continue
		}
		out = append(out, Event{Seq: l.Seq, Data: l.Data, Created: l.Time})
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// Wait returns when session has an event above seq: at once for an append
// of this process, within [pollInterval] for another's.
func (f *Files) Wait(ctx context.Context, sess string, seq int64) error {
	path, err := f.path(sess)
	if err != nil {
		return err
	}
	ch := make(chan struct{}, 1)
	f.mu.Lock()
	if f.waiters[sess] == nil {
		f.waiters[sess] = map[chan struct{}]struct{}{}
	}
	f.waiters[sess][ch] = struct{}{}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.waiters[sess], ch)
		if len(f.waiters[sess]) == 0 {
			delete(f.waiters, sess)
		}
		f.mu.Unlock()
	}()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	lastSize := int64(-1)
	for {
		// Read only when the file changed since the last look.
		if fi, err := os.Stat(path); err == nil && fi.Size() != lastSize {
			lastSize = fi.Size()
			evs, err := f.After(ctx, sess, seq, 1)
			if err != nil {
				return err
			}
			if len(evs) > 0 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		case <-tick.C:
		}
	}
}

// Remove deletes session's file, under its lock.
func (f *Files) Remove(ctx context.Context, sess string) error {
	path, err := f.path(sess)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	unlock, err := flock.LockContext(ctx, path)
	if err != nil {
		return fmt.Errorf("event log %s: %w", sess, err)
	}
	defer unlock()
	f.mu.Lock()
	delete(f.tails, sess)
	f.mu.Unlock()
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("event log %s: %w", sess, err)
	}
	return nil
}

// wake tells session's waiters in this process to look again.
func (f *Files) wake(sess string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.waiters[sess] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Compact checks that data is one JSON value and removes its insignificant
// whitespace, so that it fits on one line: what every Log stores.
func Compact(data []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil || b.Len() == 0 {
		return nil, ErrNotJSON
	}
	return b.Bytes(), nil
}
