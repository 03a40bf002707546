// Package cron keeps clawseed's scheduled jobs: the jobs file
// ($CLAWSEED_HOME/cron/jobs.json, written atomically under a file lock so
// that two processes never lose each other's changes), each job's run
// history, schedules in cron syntax or "every 10m", and running the jobs
// that are due, each under its own lock so that a job never runs twice at
// once, in one process or across several.
//
// How a job is run (a fresh agent turn, a shell command) is not decided
// here: the caller passes a [Runner].
package cron

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clawseed/clawseed/internal/atomicfile"
	"github.com/clawseed/clawseed/internal/flock"
)

// Kinds of job.
const (
	// KindPrompt jobs run a prompt through a fresh agent turn.
	KindPrompt = "prompt"
	// KindShell jobs run a shell command.
	KindShell = "shell"
	// KindClawseed jobs run a clawseed command (`memory distill`): its
	// Args. Which commands a job may run is the runner's to check.
	KindClawseed = "clawseed"
)

// Limits of the store.
const (
	MaxJobs       = 200
	maxNameLen    = 100
	maxPromptLen  = 20000
	maxCommandLen = 10000
	maxSkills     = 10
	maxArgs       = 20
	maxArgLen     = 200
	// fileVersion is the jobs file's format version.
	fileVersion = 1
)

// A Job is one scheduled task.
type Job struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Schedule string `json:"schedule"`
	Kind     string `json:"kind"`
	// Prompt is the task of a prompt job, Command the command line of a
	// shell job.
	Prompt  string `json:"prompt,omitempty"`
	Command string `json:"command,omitempty"`
	// Skills are activated before a prompt job's turn.
	Skills []string `json:"skills,omitempty"`
	// Args are a clawseed job's command line, without the program name
	// ("memory", "distill").
	Args []string `json:"args,omitempty"`
	// Workspace is the absolute directory the job runs in.
	Workspace  string     `json:"workspace"`
	Enabled    bool       `json:"enabled"`
	Created    time.Time  `json:"created"`
	NextRun    time.Time  `json:"next_run"`
	LastRun    *time.Time `json:"last_run,omitempty"`
	LastStatus string     `json:"last_status,omitempty"`
}

// jobsFile is the layout of jobs.json.
type jobsFile struct {
	Version int   `json:"version"`
	Jobs    []Job `json:"jobs"`
}

// Errors of the store.
var (
	ErrNotFound = errors.New("no such job")
	// ErrRunning means another run of the job holds its lock.
	ErrRunning = errors.New("job is running already")
	// ErrNotDue means the job is no longer due (another process ran it).
	ErrNotDue = errors.New("job is not due")
)

// A Store is the cron directory. The zero value is not usable: Dir must be
// set.
type Store struct {
	// Dir holds jobs.json, runs/ and locks/.
	Dir string
	// Now is the clock (nil = time.Now); tests and `cron run-due --now`
	// replace it.
	Now func() time.Time
	// NewID returns a new job id (nil = 8 random hex digits).
	NewID func() string
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Store) newID() string {
	if s.NewID != nil {
		return s.NewID()
	}
	return NewID()
}

// NewID returns a new random job id: 8 hex digits.
func NewID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (s *Store) jobsPath() string { return filepath.Join(s.Dir, "jobs.json") }

// List returns the jobs of workspace ("" = every workspace), oldest first.
func (s *Store) List(workspace string) ([]Job, error) {
	f, err := s.load()
	if err != nil {
		return nil, err
	}
	var out []Job
	for _, j := range f.Jobs {
		if workspace == "" || j.Workspace == workspace {
			out = append(out, j)
		}
	}
	return out, nil
}

// Get returns the job whose id, or failing that whose name, is ref, among
// the jobs of workspace ("" = every workspace).
func (s *Store) Get(ref, workspace string) (Job, error) {
	f, err := s.load()
	if err != nil {
		return Job{}, err
	}
	i, err := Find(f.Jobs, ref, workspace)
	if err != nil {
		return Job{}, err
	}
	return f.Jobs[i], nil
}

// Find returns the index in jobs of the job ref names among those of
// workspace ("" = every workspace): an exact id, else a unique name
// ([ErrNotFound] when none is).
func Find(jobs []Job, ref, workspace string) (int, error) {
	ref = strings.TrimSpace(ref)
	mine := func(j Job) bool { return workspace == "" || j.Workspace == workspace }
	for i, j := range jobs {
		if j.ID == ref && mine(j) {
			return i, nil
		}
	}
	found := -1
	var ids []string
	for i, j := range jobs {
		if j.Name == ref && mine(j) {
			found = i
			ids = append(ids, j.ID)
		}
	}
	switch {
	case len(ids) > 1:
		return -1, fmt.Errorf("%d jobs are named %q (ids %s); use an id", len(ids), ref, strings.Join(ids, ", "))
	case found < 0:
		return -1, fmt.Errorf("%w %q", ErrNotFound, ref)
	}
	return found, nil
}

// Add validates j, gives it an id, its creation time and next run, enables
// it and stores it (see [PrepareAdd]).
func (s *Store) Add(j Job) (Job, error) {
	var added Job
	err := s.modify(func(f *jobsFile) error {
		var err error
		if added, err = PrepareAdd(f.Jobs, j, s.now(), s.newID); err != nil {
			return err
		}
		f.Jobs = append(f.Jobs, added)
		return nil
	})
	return added, err
}

// PrepareAdd is the rule of adding j to a store holding jobs, whatever
// keeps them: the limit of [MaxJobs], a new id (newID until it is not
// taken), the creation time now, enabled, a valid job whose name is not
// taken in its workspace, and its next run counted from now.
func PrepareAdd(jobs []Job, j Job, now time.Time, newID func() string) (Job, error) {
	if len(jobs) >= MaxJobs {
		return Job{}, fmt.Errorf("there are %d jobs already (the limit); remove some first", len(jobs))
	}
	j.ID = newID()
	for slices.ContainsFunc(jobs, func(o Job) bool { return o.ID == j.ID }) {
		j.ID = newID()
	}
	j.Created, j.Enabled, j.LastRun, j.LastStatus = now, true, nil, ""
	sched, err := j.check()
	if err != nil {
		return Job{}, err
	}
	if err := uniqueName(jobs, j); err != nil {
		return Job{}, err
	}
	j.NextRun = sched.Next(now)
	return j, nil
}

// Update applies change to the job ref names (see [Store.Get]) and stores
// it (see [PrepareUpdate]).
func (s *Store) Update(ref, workspace string, change func(*Job) error) (Job, error) {
	var updated Job
	err := s.modify(func(f *jobsFile) error {
		i, j, err := PrepareUpdate(f.Jobs, ref, workspace, s.now(), change)
		if err != nil {
			return err
		}
		f.Jobs[i] = j
		updated = j
		return nil
	})
	return updated, err
}

// PrepareUpdate is the rule of changing the job ref names among jobs (see
// [Find]): change may not touch its id, creation time, workspace or kind;
// the result must be valid and keep its name unique in its workspace. A new
// schedule, or enabling a disabled job, counts the next run from now, so
// re-enabling a job does not run it at once for a time it missed. It
// returns the job's index in jobs and the job as changed.
func PrepareUpdate(jobs []Job, ref, workspace string, now time.Time, change func(*Job) error) (int, Job, error) {
	i, err := Find(jobs, ref, workspace)
	if err != nil {
		return -1, Job{}, err
	}
	old := jobs[i]
	j := old
	j.Skills = slices.Clone(old.Skills)
	j.Args = slices.Clone(old.Args)
	if err := change(&j); err != nil {
		return -1, Job{}, err
	}
	j.ID, j.Created, j.Workspace, j.Kind = old.ID, old.Created, old.Workspace, old.Kind
	sched, err := j.check()
	if err != nil {
		return -1, Job{}, err
	}
	if err := uniqueName(jobs, j); err != nil {
		return -1, Job{}, err
	}
	if j.Schedule != old.Schedule || (j.Enabled && !old.Enabled) {
		j.NextRun = sched.Next(now)
	}
	return i, j, nil
}

// Remove deletes the job ref names and its run history.
func (s *Store) Remove(ref, workspace string) (Job, error) {
	var removed Job
	err := s.modify(func(f *jobsFile) error {
		i, err := Find(f.Jobs, ref, workspace)
		if err != nil {
			return err
		}
		removed = f.Jobs[i]
		f.Jobs = slices.Delete(f.Jobs, i, i+1)
		return nil
	})
	if err != nil {
		return Job{}, err
	}
	if err := os.Remove(s.runsPath(removed.ID)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return removed, fmt.Errorf("job %s removed, but not its run history: %w", removed.ID, err)
	}
	return removed, nil
}

// Due returns the enabled jobs whose next run is not after now, the most
// overdue first.
func (s *Store) Due(now time.Time) ([]Job, error) {
	f, err := s.load()
	if err != nil {
		return nil, err
	}
	return DueJobs(f.Jobs, now), nil
}

// DueJobs returns the jobs of jobs that are due at now: enabled, with
// their next run not after now, the most overdue first (in the order of
// jobs among equals).
func DueJobs(jobs []Job, now time.Time) []Job {
	var due []Job
	for _, j := range jobs {
		if j.due(now) {
			due = append(due, j)
		}
	}
	slices.SortStableFunc(due, func(a, b Job) int { return a.NextRun.Compare(b.NextRun) })
	return due
}

func (j Job) due(now time.Time) bool { return j.Enabled && !now.Before(j.NextRun) }

// Validate checks a job as every store does when it is added, changed or
// read (its name and schedule trimmed), and returns its parsed schedule.
func (j *Job) Validate() (Schedule, error) { return j.check() }

// check validates a job and returns its parsed schedule.
func (j *Job) check() (Schedule, error) {
	j.Name = strings.TrimSpace(j.Name)
	j.Schedule = strings.TrimSpace(j.Schedule)
	switch {
	case j.Name == "":
		return nil, errors.New("name must not be empty")
	case len(j.Name) > maxNameLen:
		return nil, fmt.Errorf("name is longer than %d characters", maxNameLen)
	case strings.ContainsAny(j.Name, "\n\r\t"):
		return nil, errors.New("name must be one line")
	case !filepath.IsAbs(j.Workspace):
		return nil, fmt.Errorf("workspace %q is not an absolute path", j.Workspace)
	case len(j.Skills) > maxSkills:
		return nil, fmt.Errorf("at most %d skills", maxSkills)
	}
	if j.Kind != KindClawseed && len(j.Args) > 0 {
		return nil, errors.New("args apply to clawseed jobs only")
	}
	switch j.Kind {
	case KindClawseed:
		if err := checkArgs(j); err != nil {
			return nil, err
		}
	case KindPrompt:
		if strings.TrimSpace(j.Prompt) == "" || j.Command != "" {
			return nil, errors.New("a prompt job needs a prompt and no command")
		}
		if len(j.Prompt) > maxPromptLen {
			return nil, fmt.Errorf("prompt is longer than %d characters", maxPromptLen)
		}
	case KindShell:
		if strings.TrimSpace(j.Command) == "" || j.Prompt != "" {
			return nil, errors.New("a shell job needs a command and no prompt")
		}
		if len(j.Command) > maxCommandLen {
			return nil, fmt.Errorf("command is longer than %d characters", maxCommandLen)
		}
		if len(j.Skills) > 0 {
			return nil, errors.New("skills apply to prompt jobs only")
		}
	default:
		return nil, fmt.Errorf("kind must be %q, %q or %q, not %q", KindPrompt, KindShell, KindClawseed, j.Kind)
	}
	for _, sk := range j.Skills {
		if strings.TrimSpace(sk) == "" || strings.ContainsAny(sk, " \t\n/") {
			return nil, fmt.Errorf("skill name %q is not a skill name", sk)
		}
	}
	return ParseSchedule(j.Schedule)
}

// checkArgs checks the shape of a clawseed job: a command line of a few
// short one-line words, and nothing of the other kinds.
func checkArgs(j *Job) error {
	switch {
	case len(j.Args) == 0:
		return errors.New("a clawseed job needs a command line (args)")
	case j.Prompt != "" || j.Command != "" || len(j.Skills) > 0:
		return errors.New("a clawseed job has args, no prompt, command or skills")
	case len(j.Args) > maxArgs:
		return fmt.Errorf("at most %d args", maxArgs)
	}
	for _, a := range j.Args {
		if a == "" || len(a) > maxArgLen || strings.ContainsAny(a, "\x00\n\r") {
			return fmt.Errorf("arg %q is empty, longer than %d bytes or not one line", a, maxArgLen)
		}
	}
	return nil
}

// What says what a job runs, on one line, for lists: its command line,
// prompt or clawseed command.
func (j Job) What() string {
	switch j.Kind {
	case KindShell:
		return "command: " + j.Command
	case KindClawseed:
		return "clawseed " + strings.Join(j.Args, " ")
	}
	return "prompt: " + j.Prompt
}

// uniqueName refuses a second job of the same name in one workspace, so a
// name can stand for the job.
func uniqueName(jobs []Job, j Job) error {
	for _, o := range jobs {
		if o.ID != j.ID && o.Name == j.Name && o.Workspace == j.Workspace {
			return fmt.Errorf("a job named %q exists already in this workspace (id %s)", j.Name, o.ID)
		}
	}
	return nil
}

// load reads jobs.json; a missing file is an empty store. The file is
// replaced by rename, so a reader never sees half of it and needs no lock.
func (s *Store) load() (*jobsFile, error) {
	data, err := os.ReadFile(s.jobsPath())
	if errors.Is(err, os.ErrNotExist) {
		return &jobsFile{Version: fileVersion}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read cron jobs: %w", err)
	}
	return parseJobs(s.jobsPath(), data)
}

// parseJobs decodes and checks a jobs file. Errors name the file, and the
// line of a syntax error.
func parseJobs(path string, data []byte) (*jobsFile, error) {
	var f jobsFile
	if err := json.Unmarshal(data, &f); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("%s:%d: invalid JSON: %v", path, lineOf(data, se.Offset), err)
		case errors.As(err, &te):
			return nil, fmt.Errorf("%s:%d: %s: got %s, want %s", path, lineOf(data, te.Offset), te.Field, te.Value, te.Type)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if f.Version != fileVersion {
		return nil, fmt.Errorf("%s: version %d is not supported (want %d)", path, f.Version, fileVersion)
	}
	if len(f.Jobs) > MaxJobs {
		return nil, fmt.Errorf("%s: %d jobs, more than the limit of %d", path, len(f.Jobs), MaxJobs)
	}
	seen := map[string]bool{}
	for i := range f.Jobs {
		j := &f.Jobs[i]
		if !ValidID(j.ID) || seen[j.ID] {
			return nil, fmt.Errorf("%s: job %d: id %q is missing, malformed or repeated", path, i+1, j.ID)
		}
		seen[j.ID] = true
		if _, err := j.check(); err != nil {
			return nil, fmt.Errorf("%s: job %s: %v", path, j.ID, err)
		}
	}
	return &f, nil
}

// ValidID accepts what ids are made of, so an id can name files.
func ValidID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// lineOf returns the 1-based line of a byte offset.
func lineOf(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + strings.Count(string(data[:off]), "\n")
}

// modify runs change on the jobs file under the store lock and writes the
// result atomically. Nothing is written when change fails.
func (s *Store) modify(change func(*jobsFile) error) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("cron directory: %w", err)
	}
	unlock, err := flock.Lock(filepath.Join(s.Dir, "jobs.lock"))
	if err != nil {
		return fmt.Errorf("lock cron jobs: %w", err)
	}
	defer unlock()
	f, err := s.load()
	if err != nil {
		return err
	}
	if err := change(f); err != nil {
		return err
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(s.jobsPath(), append(data, '\n'), 0o600)
}
