package cron

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/clawseed/clawseed/internal/atomicfile"
)

// Limits of the run history.
const (
	// KeepRuns is how many runs of a job are kept.
	KeepRuns = 50
	// OutputTail is how many characters of a run's output are kept (the
	// end, where errors and results usually are).
	OutputTail = 2000
)

// Run statuses.
const (
	StatusOK        = "ok"
	StatusError     = "error"
	StatusCancelled = "cancelled"
)

// Triggers of a run.
const (
	TriggerSchedule = "schedule"
	TriggerManual   = "manual"
)

// A Run is one finished run of a job.
type Run struct {
	Job     string    `json:"job"`
	Trigger string    `json:"trigger"`
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Status  string    `json:"status"`
	// Session is the session file of a prompt job's turn.
	Session string `json:"session,omitempty"`
	// Output is the tail of the output (shell) or the final answer or
	// error (prompt).
	Output string `json:"output"`
}

func (s *Store) runsPath(id string) string { return filepath.Join(s.Dir, "runs", id+".jsonl") }

// Runs returns the last limit runs (0 = all kept) of the job ref names,
// oldest first.
func (s *Store) Runs(ref, workspace string, limit int) (Job, []Run, error) {
	j, err := s.Get(ref, workspace)
	if err != nil {
		return Job{}, nil, err
	}
	runs, err := s.readRuns(j.ID)
	if err != nil {
		return j, nil, err
	}
	if limit > 0 && len(runs) > limit {
		runs = runs[len(runs)-limit:]
	}
	return j, runs, nil
}

// readRuns reads a job's history; lines that do not decode are skipped (a
// history is a log, not a reason to fail).
func (s *Store) readRuns(id string) ([]Run, error) {
	data, err := os.ReadFile(s.runsPath(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read run history: %w", err)
	}
	var runs []Run
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var r Run
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Job == id {
			runs = append(runs, r)
		}
	}
	return runs, nil
}

// record appends a run to its job's history (keeping the last KeepRuns)
// and sets the job's last status, under the store lock.
func (s *Store) record(r Run) error {
	r.Output = Tail(r.Output, OutputTail)
	return s.modify(func(f *jobsFile) error {
		if i := slices.IndexFunc(f.Jobs, func(j Job) bool { return j.ID == r.Job }); i >= 0 {
			f.Jobs[i].LastStatus = r.Status
		} else {
			return nil // removed while it ran: nothing to keep
		}
		runs, err := s.readRuns(r.Job)
		if err != nil {
			return err
		}
		runs = append(runs, r)
		if len(runs) > KeepRuns {
			runs = runs[len(runs)-KeepRuns:]
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		for _, r := range runs {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		if err := os.MkdirAll(filepath.Dir(s.runsPath(r.Job)), 0o700); err != nil {
			return err
		}
		return atomicfile.Write(s.runsPath(r.Job), b.Bytes(), 0o600)
	})
}

// Tail returns the last n characters of s, marked as cut when it was.
func Tail(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := len(s)
	for i := 0; i < n && cut > 0; i++ {
		_, size := utf8.DecodeLastRuneInString(s[:cut])
		cut -= size
	}
	return "[... earlier output cut ...]\n" + s[cut:]
}
