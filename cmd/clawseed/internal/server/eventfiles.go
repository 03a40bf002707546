package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// FileEvents is the [EventLog] of the files backend: one append-only JSON
// Lines file per session, <Dir>/<id>.jsonl, one event (its "seq"
// included) per line. Dir is the events folder inside the sessions folder
// (<sessions>/events: a folder, so `clawseed sessions list` never takes
// an events file for a session). Lines are not synced one by one: a
// crash loses at most what the kernel had not written, and a torn last
// line is cut off when the file is next read, as session files are.
//
// The last events of each session are kept in memory, so that a stream
// following a turn reads them without reading the file again; the state
// of sessions nobody uses is dropped past maxCachedLogs.
type FileEvents struct {
	Dir string

	mu   sync.Mutex
	logs map[string]*fileLog
	tick uint64 // use counter, for dropping the least recently used
}

const (
	// recentEvents is how many of a session's last events stay in memory.
	recentEvents = 2048
	// maxCachedLogs is how many sessions' states are kept while unused.
	maxCachedLogs = 256
	// maxEventLine caps one line when a file is read (a stream-json
	// object holds a whole tool result, at most max_tool_output_chars).
	maxEventLine = 16 << 20
)

// fileLog is the state of one session's file.
type fileLog struct {
	mu     sync.Mutex
	loaded bool
	last   int64
	recent []Event
	// changed is closed by the next Append (Wait).
	changed chan struct{}
	// refs counts the callers holding it; used is the FileEvents tick
	// of the last use. Both under FileEvents.mu.
	refs int
	used uint64
}

// get returns the state of session id, holding a reference to it
// (release it with put).
func (f *FileEvents) get(id string) (*fileLog, error) {
	if err := checkSessionID(id); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.logs == nil {
		f.logs = map[string]*fileLog{}
	}
	l := f.logs[id]
	if l == nil {
		l = &fileLog{changed: make(chan struct{})}
		f.logs[id] = l
		f.evict()
	}
	f.tick++
	l.refs++
	l.used = f.tick
	return l, nil
}

func (f *FileEvents) put(l *fileLog) {
	f.mu.Lock()
	l.refs--
	f.mu.Unlock()
}

// evict drops the least recently used states nobody holds while there are
// more than maxCachedLogs. A dropped state is read from its file again.
func (f *FileEvents) evict() {
	for len(f.logs) > maxCachedLogs {
		victim, oldest := "", ^uint64(0)
		for id, l := range f.logs {
			if l.refs == 0 && l.used < oldest {
				victim, oldest = id, l.used
			}
		}
		if victim == "" {
			return // every one is in use
		}
		delete(f.logs, victim)
	}
}

func (f *FileEvents) path(id string) string { return filepath.Join(f.Dir, id+".jsonl") }

// load reads the file of id once: its last sequence number and its last
// events. A torn last line (a crash while writing it) is cut off.
func (f *FileEvents) load(id string, l *fileLog) error {
	if l.loaded {
		return nil
	}
	events, size, err := f.read(id, 0, -1)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(f.path(id)); err == nil && fi.Size() > size {
		if err := os.Truncate(f.path(id), size); err != nil {
			return fmt.Errorf("repair events of %s: %w", id, err)
		}
	}
	if n := len(events); n > 0 {
		l.last = events[n-1].Seq
		l.recent = events[max(0, n-recentEvents):]
	}
	l.loaded = true
	return nil
}

// read returns the events of id's file above seq, at most limit (< 0: at
// least the last recentEvents), and the size of the file's whole lines.
func (f *FileEvents) read(id string, seq int64, limit int) ([]Event, int64, error) {
	file, err := os.Open(f.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read events: %w", err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64<<10), maxEventLine)
	sc.Split(scanWholeLines)
	var out []Event
	var size int64
	for sc.Scan() {
		line := sc.Bytes()
		size += int64(len(line))
		var head struct {
			Seq int64 `json:"seq"`
		}
		if json.Unmarshal(line, &head) != nil || head.Seq <= seq {
			continue
		}
		if limit >= 0 && len(out) >= limit {
			continue // go on: size counts every whole line
		}
		out = append(out, Event{Seq: head.Seq, Data: bytes.TrimSpace(bytes.Clone(line))})
		if limit < 0 && len(out) >= 2*recentEvents {
			// All of them are asked for only to load the state, which
			// keeps the last recentEvents.
			out = append(out[:0:0], out[len(out)-recentEvents:]...)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("read events of %s: %w", id, err)
	}
	return out, size, nil
}

// scanWholeLines splits at newlines, keeping each newline, and drops a
// last line without one (torn).
func scanWholeLines(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i+1], nil
	}
	if atEOF {
		return len(data), nil, bufio.ErrFinalToken
	}
	return 0, nil, nil
}

// Append implements [EventLog].
func (f *FileEvents) Append(ctx context.Context, id string, data json.RawMessage) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	l, err := f.get(id)
	if err != nil {
		return 0, err
	}
	defer f.put(l)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := f.load(id, l); err != nil {
		return 0, err
	}
	seq := l.last + 1
	obj, err := WithSeq(data, seq)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(f.Dir, 0o700); err != nil {
		return 0, fmt.Errorf("events folder: %w", err)
	}
	file, err := os.OpenFile(f.path(id), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, fmt.Errorf("open events: %w", err)
	}
	_, werr := file.Write(append(obj, '\n'))
	if err := errors.Join(werr, file.Close()); err != nil {
		return 0, fmt.Errorf("write events of %s: %w", id, err)
	}
	l.last = seq
	l.recent = append(l.recent, Event{Seq: seq, Data: obj})
	if len(l.recent) > recentEvents {
		l.recent = append(l.recent[:0:0], l.recent[len(l.recent)-recentEvents/2:]...)
	}
	close(l.changed)
	l.changed = make(chan struct{})
	return seq, nil
}

// After implements [EventLog].
func (f *FileEvents) After(ctx context.Context, id string, seq int64, limit int) ([]Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, err := f.get(id)
	if err != nil {
		return nil, err
	}
	defer f.put(l)
	l.mu.Lock()
	if err := f.load(id, l); err != nil {
		l.mu.Unlock()
		return nil, err
	}
	if seq >= l.last {
		l.mu.Unlock()
		return nil, nil
	}
	if n := len(l.recent); n > 0 && l.recent[0].Seq <= seq+1 {
		i := int(seq + 1 - l.recent[0].Seq)
		out := l.recent[i:min(n, i+limit)]
		l.mu.Unlock()
		return out, nil // recent is only ever appended to or replaced
	}
	l.mu.Unlock()
	out, _, err := f.read(id, seq, limit)
	return out, err
}

// Last implements [EventLog].
func (f *FileEvents) Last(ctx context.Context, id string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	l, err := f.get(id)
	if err != nil {
		return 0, err
	}
	defer f.put(l)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := f.load(id, l); err != nil {
		return 0, err
	}
	return l.last, nil
}

// Wait implements [EventLog].
func (f *FileEvents) Wait(ctx context.Context, id string, seq int64) error {
	l, err := f.get(id)
	if err != nil {
		return err
	}
	defer f.put(l)
	l.mu.Lock()
	if err := f.load(id, l); err != nil {
		l.mu.Unlock()
		return err
	}
	if l.last > seq {
		l.mu.Unlock()
		return nil
	}
	ch := l.changed
	l.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Remove implements [EventLog].
func (f *FileEvents) Remove(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l, err := f.get(id)
	if err != nil {
		return err
	}
	defer f.put(l)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.Remove(f.path(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove events of %s: %w", id, err)
	}
	// The numbers are never reused: a session id is not either.
	l.loaded, l.recent = true, nil
	return nil
}

// Ready implements [EventLog]: the folder can be created and written.
func (f *FileEvents) Ready(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(f.Dir, 0o700); err != nil {
		return fmt.Errorf("events folder: %w", err)
	}
	probe, err := os.CreateTemp(f.Dir, ".ready-*")
	if err != nil {
		return fmt.Errorf("events folder not writable: %w", err)
	}
	name := probe.Name()
	return errors.Join(probe.Close(), os.Remove(name))
}
