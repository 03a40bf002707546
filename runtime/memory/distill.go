package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/clawseed/clawseed/internal/confine"
	"github.com/clawseed/clawseed/internal/flock"
)

// Distillation turns the daily logs into topic memories: one model pass
// over the logs of past days, the MEMORY.md indexes and the memories
// (with their content when it fits), whose answer lists the memories to
// create or update. They are written with [Store.Save] (validation,
// atomic writes, MEMORY.md regenerated from the files), index.db is brought
// up to date ([Store.Reindex]), then the logs move to logs/done/.
//
// Crash safety: before anything is written, the plan (the logs with the
// SHA-256 of the content the model saw, and the memories exactly as they
// will be written, an appended body already joined to the old one) is
// saved as logs/.distill-pending.json. Then the topic files are written
// (each Save regenerates its folder's MEMORY.md), then the logs are moved,
// then the plan is removed. A run that finds a plan finishes it first,
// without a model request: writing the same memories again and moving the
// logs still there is harmless, so a crash between any two steps neither
// loses a log nor duplicates a memory. A log whose content changed since
// the model saw it is not moved; the next run distils it again.
//
// Idempotence: a distilled log is in logs/done/, so the next run does not
// see it; a log of logs/ identical to one of logs/done/ (same name and
// content) is a leftover and is removed without a request. With nothing to
// distill no model request is made.

// Limits of a distillation.
const (
	// DefaultDistillChars is the request size when DistillOptions gives
	// none (about 50,000 tokens).
	DefaultDistillChars = 200_000
	// MaxDistillMemories bounds the memories one answer may write.
	MaxDistillMemories = 100

	pendingFile     = ".distill-pending.json"
	distillLockFile = ".distill.lock"
	journalVersion  = 1
)

// ErrDistillRunning means another distillation holds the lock.
var ErrDistillRunning = errors.New("another `clawseed memory distill` is running")

// A DistillModel makes the model pass: messages alternate user and
// assistant, starting and ending with a user message; it returns the
// answer's text.
type DistillModel func(ctx context.Context, system string, messages []string) (string, error)

// DistillOptions configure [Store.Distill].
type DistillOptions struct {
	// Since is the first day distilled (YYYY-MM-DD); "" = the oldest log.
	Since string
	// DryRun asks the model and reports what would be written, writing
	// and moving nothing.
	DryRun bool
	Model  DistillModel
	// MaxChars bounds the request (0 = DefaultDistillChars): logs that do
	// not fit wait for the next run (the oldest always goes), memories
	// whose content does not fit are listed without it.
	MaxChars int
}

// A DistilledMemory is a memory a distillation wrote (or, in a dry run,
// would write).
type DistilledMemory struct {
	Memory
	Created bool // a new memory, not an update
	// Appended means the model did not see the old content (over the
	// request's budget): the new content was added to its end.
	Appended bool
}

// DistillResult says what [Store.Distill] did.
type DistillResult struct {
	// Resumed is the number of logs of an interrupted distillation that
	// this run finished (without a model request).
	Resumed int
	// Logs are the logs distilled (file names, oldest first), Left those
	// that did not fit in the request and wait for the next run.
	Logs, Left []string
	// Duplicates are logs already distilled (identical to a file of
	// logs/done/), removed from logs/.
	Duplicates []string
	// Changed are logs that changed while they were distilled: left in
	// logs/ for the next run.
	Changed  []string
	Memories []DistilledMemory
	// Requests is the number of model requests made (a malformed answer
	// is asked again once).
	Requests int
	// Pending means a dry run found an interrupted distillation, which
	// only a real run finishes; it asked nothing.
	Pending bool
}

// Nothing reports whether the run found nothing to do.
func (r DistillResult) Nothing() bool {
	return r.Resumed == 0 && len(r.Logs) == 0 && len(r.Duplicates) == 0
}

// distillJournal is logs/.distill-pending.json: a plan being carried out.
type distillJournal struct {
	Version int `json:"version"`
	// Project is the project key the project and reference memories go
	// to, Workspace its workspace (for the message when another
	// workspace finds the plan).
	Project   string          `json:"project,omitempty"`
	Workspace string          `json:"workspace,omitempty"`
	Logs      []logFile       `json:"logs"`
	Memories  []journalMemory `json:"memories"`
	// memories are what the result reports of Memories.
	memories []DistilledMemory
}

type journalMemory struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	Content     string `json:"content"`
	Appended    bool   `json:"appended,omitempty"`
}

// Distill distils the logs of the days before today (the store's clock)
// into topic memories; see the comment at the top of this file. Only one
// distillation runs at a time ([ErrDistillRunning]).
func (s *Store) Distill(ctx context.Context, o DistillOptions) (DistillResult, error) {
	var res DistillResult
	if o.Since != "" {
		if _, err := time.Parse(time.DateOnly, o.Since); err != nil {
			return res, fmt.Errorf("memory distill: %w: since %q is not a date like 2025-01-31", ErrInvalid, o.Since)
		}
	}
	if _, err := os.Stat(s.LogsDir()); errors.Is(err, fs.ErrNotExist) {
		return res, nil // no log was ever written: leave no trace
	}
	unlock, err := flock.TryLock(filepath.Join(s.LogsDir(), distillLockFile))
	if errors.Is(err, flock.ErrHeld) {
		return res, ErrDistillRunning
	}
	if err != nil {
		return res, fmt.Errorf("memory distill: %w", err)
	}
	defer unlock()

	if o.DryRun {
		if _, err := os.Lstat(s.pendingPath()); err == nil {
			res.Pending = true
			return res, nil
		}
	} else {
		n, err := s.resumeDistill(ctx, &res)
		if err != nil {
			return res, err
		}
		res.Resumed = n
	}
	logs, err := s.readPendingLogs(ctx, o, &res)
	if err != nil || len(logs) == 0 {
		return res, err
	}
	p, err := s.distillPrompt(ctx, logs, o.MaxChars)
	if err != nil {
		return res, err
	}
	for _, l := range logs[len(p.logs):] {
		res.Left = append(res.Left, l.Name)
	}
	answer, err := s.askDistill(ctx, o.Model, p.text, &res)
	if err != nil {
		return res, err
	}
	j, err := s.plan(ctx, p, answer)
	if err != nil {
		return res, err
	}
	for _, l := range j.Logs {
		res.Logs = append(res.Logs, l.Name)
	}
	if o.DryRun {
		res.Memories = j.memories
		return res, nil
	}
	if err := s.writeJournal(j); err != nil {
		return res, err
	}
	if err := s.carryOut(ctx, j, &res); err != nil {
		return res, err
	}
	res.Memories = append(res.Memories, j.memories...)
	return res, nil
}

// readPendingLogs reads the logs to distill. A log identical to a
// distilled one is a leftover: it is removed (reported in res, not
// distilled again).
func (s *Store) readPendingLogs(ctx context.Context, o DistillOptions, res *DistillResult) ([]logFile, error) {
	names, err := s.pendingLogs(o.Since, s.now().Format(time.DateOnly))
	if err != nil {
		return nil, err
	}
	var logs []logFile
	for _, name := range names {
		data, _, err := s.readFile(filepath.Join(s.LogsDir(), name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("memory distill: %w", err)
		}
		l := logFile{Name: name, Hash: hashOf(data), text: string(data)}
		if s.distilledAlready(l) {
			res.Duplicates = append(res.Duplicates, name)
			if !o.DryRun {
				if err := s.removeLog(ctx, l); err != nil {
					return nil, err
				}
			}
			continue
		}
		logs = append(logs, l)
	}
	return logs, nil
}

// askDistill makes the model request, and asks once more when the answer
// is not what was asked for.
func (s *Store) askDistill(ctx context.Context, model DistillModel, prompt string, res *DistillResult) ([]Memory, error) {
	if model == nil {
		return nil, errors.New("memory distill: no model")
	}
	messages := []string{prompt}
	for {
		res.Requests++
		text, err := model(ctx, distillSystem, messages)
		if err != nil {
			return nil, fmt.Errorf("memory distill: the model request failed: %w", err)
		}
		ms, err := ParseDistillAnswer(text)
		if err == nil {
			return ms, nil
		}
		if len(messages) > 1 {
			return nil, fmt.Errorf("memory distill: the model's answer is not the JSON asked for, also after one retry: %w", err)
		}
		messages = append(messages, text, "That answer cannot be used: "+err.Error()+"\nAnswer again with only the JSON object.")
	}
}

// plan turns the answer into the journal: each memory as it will be
// written, checked as Save will check it. Nothing is written.
func (s *Store) plan(ctx context.Context, p distillRequest, answer []Memory) (*distillJournal, error) {
	j := &distillJournal{Version: journalVersion, Project: s.projectKey, Workspace: s.workspace, Logs: p.logs}
	for _, m := range answer {
		d := DistilledMemory{Created: true}
		old, err := s.Get(ctx, m.Name)
		switch {
		case err == nil:
			d.Created = false
			m.Path = old.Path
			if !p.shown[old.Path] {
				m.Body = strings.TrimSpace(old.Body) + "\n\n" + m.Body
				d.Appended = true
			}
		case !errors.Is(err, ErrNotFound):
			return nil, err
		}
		if err := validate(m); err != nil {
			return nil, fmt.Errorf("memory distill: memory %q: %w", m.Name, err)
		}
		m.Scope = ScopeOf(m.Type)
		folder := s.folder(m.Scope)
		if folder == "" {
			return nil, fmt.Errorf("memory distill: memory %q: %w: type %s needs a workspace", m.Name, ErrInvalid, m.Type)
		}
		if m.Path == "" || filepath.Dir(m.Path) != folder {
			// Where Save will put it, for a dry run's report.
			if m.Path, err = freePath(folder, Slug(m.Name)); err != nil {
				return nil, err
			}
		}
		d.Memory = m
		j.Memories = append(j.Memories, journalMemory{Name: m.Name, Type: m.Type, Description: m.Description, Content: m.Body, Appended: d.Appended})
		j.memories = append(j.memories, d)
	}
	return j, nil
}

// carryOut writes the journal's memories, moves its logs and removes the
// journal.
func (s *Store) carryOut(ctx context.Context, j *distillJournal, res *DistillResult) error {
	for i, a := range j.Memories {
		saved, created, err := s.Save(ctx, Memory{Name: a.Name, Type: a.Type, Description: a.Description, Body: a.Content})
		if err != nil {
			return fmt.Errorf("memory distill: %w (the logs stay in logs/; the next run finishes the distillation)", err)
		}
		if i < len(j.memories) {
			j.memories[i].Memory, j.memories[i].Created = saved, created && j.memories[i].Created
		}
	}
	if len(j.Memories) > 0 {
		// The search index follows the files now rather than at the
		// next recall: a distillation runs unattended, a session later.
		if _, err := s.Reindex(ctx); err != nil {
			return fmt.Errorf("memory distill: %w (the logs stay in logs/; the next run finishes the distillation)", err)
		}
	}
	for _, l := range j.Logs {
		moved, err := s.moveLog(ctx, l)
		if err != nil {
			return err
		}
		if !moved {
			res.Changed = append(res.Changed, l.Name)
		}
	}
	if err := os.Remove(s.pendingPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("memory distill: %w", err)
	}
	return nil
}

// resumeDistill finishes the distillation a crash interrupted, if any,
// and returns the number of its logs.
func (s *Store) resumeDistill(ctx context.Context, res *DistillResult) (int, error) {
	data, _, err := s.readFile(s.pendingPath())
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("memory distill: %w", err)
	}
	j, err := parseJournal(data)
	if err != nil {
		return 0, fmt.Errorf("memory distill: %s: %w (remove it to start over: its logs are still in logs/)", s.pendingPath(), err)
	}
	if j.Project != s.projectKey && j.hasProjectMemories() {
		return 0, fmt.Errorf("memory distill: an interrupted distillation of workspace %s is pending: run `clawseed memory distill` there, or remove %s to drop it", j.Workspace, s.pendingPath())
	}
	for _, a := range j.Memories {
		j.memories = append(j.memories, DistilledMemory{Memory: Memory{Name: a.Name}, Created: true, Appended: a.Appended})
	}
	if err := s.carryOut(ctx, j, res); err != nil {
		return 0, err
	}
	res.Memories = append(res.Memories, j.memories...)
	return len(j.Logs), nil
}

func (j *distillJournal) hasProjectMemories() bool {
	for _, m := range j.Memories {
		if ScopeOf(m.Type) == ScopeProject {
			return true
		}
	}
	return false
}

// parseJournal decodes and checks a journal.
func parseJournal(data []byte) (*distillJournal, error) {
	var j distillJournal
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return nil, err
	}
	if j.Version != journalVersion {
		return nil, fmt.Errorf("version %d is not supported (want %d)", j.Version, journalVersion)
	}
	for _, l := range j.Logs {
		if !logName().MatchString(l.Name) || len(l.Hash) != sha256.Size*2 {
			return nil, fmt.Errorf("log %q: malformed entry", l.Name)
		}
	}
	for _, m := range j.Memories {
		if err := validate(Memory{Name: m.Name, Type: m.Type, Description: m.Description, Body: m.Content}); err != nil {
			return nil, fmt.Errorf("memory %q: %w", m.Name, err)
		}
	}
	return &j, nil
}

func (s *Store) pendingPath() string { return filepath.Join(s.LogsDir(), pendingFile) }

// writeJournal saves the plan atomically.
func (s *Store) writeJournal(j *distillJournal) error {
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return fmt.Errorf("memory distill: %w", err)
	}
	return writeAtomic(s.pendingPath(), append(data, '\n'))
}

// moveLog moves a distilled log to logs/done/ under the store's lock (an
// append to it waits), unless its content changed since it was read
// (moved false). A log already gone was moved by an earlier, interrupted
// run. A file of that name in done/ (a log distilled before, then written
// again) keeps its name: the log gets the next free one, DAY-2.md, …
func (s *Store) moveLog(ctx context.Context, l logFile) (moved bool, err error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return false, err
	}
	defer unlock()
	src := filepath.Join(s.LogsDir(), l.Name)
	data, _, err := s.readFile(src)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("memory distill: %w", err)
	}
	if hashOf(data) != l.Hash {
		return false, nil
	}
	done := filepath.Join(s.LogsDir(), doneDir)
	if err := os.MkdirAll(done, 0o755); err != nil {
		return false, fmt.Errorf("memory distill: create %s: %w", done, err)
	}
	for i := 1; i < 1000; i++ {
		name := l.Name
		if i > 1 {
			name = l.day() + "-" + strconv.Itoa(i) + ".md"
		}
		dst := filepath.Join(done, name)
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		if err := os.Rename(src, dst); err != nil {
			return false, fmt.Errorf("memory distill: move %s to %s: %w", src, dst, err)
		}
		return true, nil
	}
	return false, fmt.Errorf("memory distill: no free name for %s in %s", l.Name, done)
}

// distilledAlready reports whether logs/done/ holds l's content under its
// name (DAY.md, DAY-2.md, …).
func (s *Store) distilledAlready(l logFile) bool {
	done := filepath.Join(s.LogsDir(), doneDir)
	for i := 1; i < 1000; i++ {
		name := l.Name
		if i > 1 {
			name = l.day() + "-" + strconv.Itoa(i) + ".md"
		}
		data, _, err := confine.ReadInfo(filepath.Join(done, name), confine.Options{Roots: []string{s.dir}, Max: maxFileBytes})
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		if err == nil && hashOf(data) == l.Hash {
			return true
		}
	}
	return false
}

// removeLog removes a leftover copy of a distilled log, unless it changed.
func (s *Store) removeLog(ctx context.Context, l logFile) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	path := filepath.Join(s.LogsDir(), l.Name)
	data, _, err := s.readFile(path)
	if err != nil || hashOf(data) != l.Hash {
		return nil // gone, or written since: the next run looks again
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("memory distill: remove %s: %w", path, err)
	}
	return nil
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
