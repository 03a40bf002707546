package session

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clawseed/clawseed/internal/flock"
)

// ext is the extension of session files.
const ext = ".jsonl"

// ErrInvalidID is returned (wrapped) for an id that is not a plain file name:
// empty, starting with ".", or holding a path separator or "..".
var ErrInvalidID = errors.New("invalid session id")

// An AmbiguousError is returned by [Store.Resolve] when a prefix matches
// several sessions.
type AmbiguousError struct {
	Prefix  string
	Matches []string // sorted
}

// Error lists up to ten of the matching ids.
func (e *AmbiguousError) Error() string {
	const show = 10
	list := strings.Join(e.Matches[:min(len(e.Matches), show)], ", ")
	if n := len(e.Matches) - show; n > 0 {
		list += fmt.Sprintf(" and %d more", n)
	}
	return fmt.Sprintf("session prefix %q is ambiguous: it matches %s", e.Prefix, list)
}

// A Store is a directory of session files, `<Dir>/<id>.jsonl`.
type Store struct {
	Dir string
	// Now stamps records and new headers; nil means time.Now.
	Now func() time.Time
}

// Info describes one session file for listings.
type Info struct {
	ID        string `json:"id"`
	Path      string `json:"path"`
	Workspace string `json:"workspace"`
	Provider  string `json:"provider"`
	// Provider and Model are what the session last used: its last /model
	// switch, else the header's.
	Model   string    `json:"model"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Messages is the number of message records.
	Messages int `json:"messages"`
	// Title is the first user text message: see [Title].
	Title string `json:"title"`
	// Err is set when the file could not be read or parsed; such files are
	// still listed.
	Err string `json:"error,omitempty"`
}

// NewID returns a new session id for time t: `20261122-031937-a1b2c3`
// (UTC, so ids sort by creation time, plus 24 random bits).
func NewID(t time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// maxIDBytes bounds an id: a file name has at most 255 bytes, with the
// summary's extension.
const maxIDBytes = 200

// CheckID reports an id no store accepts (wrapping [ErrInvalidID]): one
// that could name a file outside the store, a hidden one, or a longer one
// than a file name can be. Every store checks ids here, so a session of one
// store can be moved to another.
func CheckID(id string) error {
	if id == "" || len(id) > maxIDBytes || strings.HasPrefix(id, ".") || strings.Contains(id, "..") ||
		strings.ContainsAny(id, `/\:`+"\x00") || !filepath.IsLocal(id) {
		return fmt.Errorf("%w %q", ErrInvalidID, clip(id))
	}
	return nil
}

// path returns the file of session id.
func (s *Store) path(id string) (string, error) {
	if err := CheckID(id); err != nil {
		return "", err
	}
	if s.Dir == "" {
		return "", errors.New("session store has no directory")
	}
	return filepath.Join(s.Dir, id+ext), nil
}

// Create returns a Writer for a new session. Nothing is written until its
// first message (see [Writer]); an invalid h.ID is reported then. A zero
// h.Version becomes [FormatVersion] and a zero h.Created the current time.
func (s *Store) Create(h Header) *Writer {
	var sink Sink
	if path, err := s.path(h.ID); err == nil {
		sink = &fileSink{dir: s.Dir, path: path}
	}
	return NewWriter(h, s.now, sink, false) // an invalid id: the Writer reports it
}

// Load reads session id.
func (s *Store) Load(id string) (*Session, error) {
	sess, _, err := s.read(id)
	return sess, err
}

// read loads session id and returns its bytes too.
func (s *Store) read(id string) (*Session, []byte, error) {
	path, err := s.path(id)
	if err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w: %q in %s", ErrNotFound, id, s.Dir)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read session: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read session: %w", err)
	}
	sess, err := Parse(path, data)
	if err != nil {
		return nil, nil, err
	}
	sess.Path, sess.Updated = path, fi.ModTime()
	if sess.Header.ID != id {
		sess.Warnings = append(sess.Warnings, fmt.Sprintf("%s: header id %q differs from the file name", path, clip(sess.Header.ID)))
	}
	return sess, data, nil
}

// Open loads session id and reopens it for appending (the header is not
// written again), locked against other processes ([ErrInUse]) until Close. A torn last line is cut off first, so the next record
// never glues onto a fragment; a last line that is a whole record missing
// only its newline gets the newline instead.
func (s *Store) Open(id string) (*Writer, *Session, error) {
	sess, data, err := s.read(id)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(sess.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open session: %w", err)
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("open session %s: %w", id, err)
	}
	sink := &fileSink{dir: s.Dir, path: sess.Path, f: f, size: int64(len(data))}
	if n := len(data); n > 0 && data[n-1] != '\n' {
		cut := bytes.LastIndexByte(data, '\n') + 1
		if wholeRecord(data[cut:]) {
			err = sink.write([]byte("\n"))
		} else if err = f.Truncate(int64(cut)); err == nil {
			sink.size = int64(cut)
		}
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("repair session %s: %w", sess.Path, err)
		}
	}
	return NewWriter(sess.Header, s.now, sink, true), sess, nil
}

// wholeRecord reports whether line is a record Parse accepts.
func wholeRecord(line []byte) bool {
	var r Record
	return len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &r) == nil && check(&r) == nil
}

// ids returns the ids of the session files in the store, sorted.
func (s *Store) ids() ([]string, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var ids []string
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ext)
		if ok && e.Type().IsRegular() && CheckID(id) == nil {
			ids = append(ids, id)
		}
	}
	return ids, nil // ReadDir sorts by name
}

// Resolve returns the id of the session named by an exact id or a unique
// prefix of one. It fails with [ErrNotFound], [ErrInvalidID] or an
// *[AmbiguousError] listing the candidates.
func (s *Store) Resolve(idOrPrefix string) (string, error) {
	path, err := s.path(idOrPrefix)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return idOrPrefix, nil
	}
	ids, err := s.ids()
	if err != nil {
		return "", err
	}
	var matches []string
	for _, id := range ids {
		if strings.HasPrefix(id, idOrPrefix) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("%w: %q in %s", ErrNotFound, idOrPrefix, s.Dir)
	case 1:
		return matches[0], nil
	}
	return "", &AmbiguousError{Prefix: idOrPrefix, Matches: matches}
}

// List describes every session file, newest first (by modification time,
// then by id descending). Files that cannot be read are listed with Err set.
// A missing directory holds no sessions.
func (s *Store) List() ([]Info, error) {
	ids, err := s.ids()
	if err != nil {
		return nil, err
	}
	infos := make([]Info, 0, len(ids))
	for _, id := range ids {
		sess, err := s.Load(id)
		if err != nil {
			info := Info{ID: id, Path: filepath.Join(s.Dir, id+ext), Err: err.Error()}
			if fi, serr := os.Stat(info.Path); serr == nil {
				info.Updated = fi.ModTime()
			}
			infos = append(infos, info)
			continue
		}
		info := sess.Info()
		info.ID = id // the file's name, which Open takes, even when the header says otherwise
		infos = append(infos, info)
	}
	SortInfos(infos)
	return infos, nil
}

// Info describes the session for listings, under its header's id.
func (sess *Session) Info() Info {
	h := sess.Header
	info := Info{ID: h.ID, Path: sess.Path, Workspace: h.Workspace, Provider: h.Provider, Model: h.Model, Created: h.Created,
		Updated: sess.Updated, Messages: sess.MessageRecords, Title: sess.Title}
	if m := sess.ModelSwitch; m != nil && m.Model != "" {
		info.Provider, info.Model = m.Provider, m.Model // what --resume goes on with
	}
	return info
}

// SortInfos sorts a listing newest first: by update time, then by id
// descending.
func SortInfos(infos []Info) {
	slices.SortFunc(infos, func(a, b Info) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
}

// LatestIn returns the id of the first readable session of a sorted
// listing whose header names workspace.
func LatestIn(infos []Info, workspace string) (string, bool) {
	want := filepath.Clean(workspace)
	for _, info := range infos {
		if info.Err == "" && info.Workspace != "" && filepath.Clean(info.Workspace) == want {
			return info.ID, true
		}
	}
	return "", false
}

// Latest returns the id of the most recently updated readable session whose
// header names workspace, or an error wrapping [ErrNotFound].
func (s *Store) Latest(workspace string) (string, error) {
	infos, err := s.List()
	if err != nil {
		return "", err
	}
	if id, ok := LatestIn(infos, workspace); ok {
		return id, nil
	}
	return "", fmt.Errorf("%w: no session for workspace %s in %s", ErrNotFound, workspace, s.Dir)
}

// Remove deletes session id's file and its summary. A session that another clawseed
// process has open (locked, see [Store.Open]) is not removed: the error
// wraps [ErrInUse], since that process would go on writing a file that no
// longer exists and lose its turn; force removes it all the same.
func (s *Store) Remove(id string, force bool) error {
	path, err := s.path(id)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %q in %s", ErrNotFound, id, s.Dir)
	}
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err == nil && !force {
		err = checkUnused(path)
	}
	if err == nil {
		err = os.Remove(path)
	}
	if err != nil {
		return fmt.Errorf("remove session %s: %w", path, err)
	}
	return removeSummary(path)
}

// InUse reports whether another Writer (of any process) has session id
// open: a turn is running there.
func (s *Store) InUse(id string) (bool, error) {
	path, err := s.path(id)
	if err != nil {
		return false, err
	}
	err = checkUnused(path)
	switch {
	case errors.Is(err, ErrInUse):
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("%w: %q in %s", ErrNotFound, id, s.Dir)
	case err != nil:
		return false, fmt.Errorf("session %s: %w", id, err)
	}
	return false, nil
}

// checkUnused fails with ErrInUse when another process holds the lock of the
// session file at path. The probe's own lock is released at once.
func checkUnused(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return lock(f)
}

// lock takes the exclusive lock on the open session file f without
// waiting; the kernel drops it when f is closed or the process dies, even by
// SIGKILL, so a crashed session never stays locked. A session another
// process has open fails with [ErrInUse]. Where flock does not exist this
// does nothing: two processes appending to one session are not detected.
func lock(f *os.File) error {
	err := flock.TryLockFile(f)
	if errors.Is(err, flock.ErrHeld) {
		return ErrInUse
	}
	return err
}
