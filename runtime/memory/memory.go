// Package memory is clawseed's long-term memory (SPEC §8): one Markdown file
// per memory is the truth, so memories stay auditable, editable by hand and
// syncable with git; <dir>/index.db is only an index (FTS5) rebuilt from the
// files, plus the knowledge graph, which lives only in the database. With
// [storage].backend = "postgres" the memories are rows of a database
// instead, under the same rules ([RowStore], rows.go).
//
// Layout under Options.Dir:
//
//	user/<slug>.md, user/MEMORY.md                   user and feedback memories
//	projects/<key>/<slug>.md, projects/<key>/MEMORY.md   project and reference memories
//	user/agents/<agent>/, projects/<key>/agents/<agent>/,
//	projects/<key>/agents-local/<agent>/             subagents' own memories (agent.go)
//	logs/YYYY-MM-DD.md, logs/done/                   daily logs ([memory].mode = "daily_log") and the distilled ones
//	.lock                                            cross-process write lock
//	index.db                                         FTS5 index and knowledge graph
package memory

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Types of memory (§8).
const (
	TypeUser      = "user"
	TypeFeedback  = "feedback"
	TypeProject   = "project"
	TypeReference = "reference"
)

// Scopes: where a memory's file lives.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
	// ScopeLocal is a subagent's memory of this project that is never
	// shared (see [AgentFolder]); the main memory has no local scope.
	ScopeLocal = "local"
)

// Limits on a memory's fields. They keep MEMORY.md lines and the
// <memory_context> block readable and bound what one file can cost.
const (
	MaxNameLen        = 100
	MaxDescriptionLen = 300
	MaxBodyBytes      = 64 << 10
	// maxFileBytes bounds what List and the index read of a hand-made file.
	maxFileBytes = 1 << 20
	// indexLines is how much of each MEMORY.md Indexes returns (§8).
	indexLines = 200
)

// DefaultMinScore is the threshold auto-recall should pass as
// RecallQuery.MinScore. A hit's Score is the share of the query's content
// words (stop-words dropped) that the memory contains, a word in its name or
// description counting 1 and one only in its body 0.6. At 0.3 a question
// whose main words name the memory is recalled, while a long unrelated
// question that shares one incidental word with a memory's body (0.6/6 = 0.1)
// is not. memory_recall, where the model asks explicitly, passes 0.
const DefaultMinScore = 0.3

// Errors callers branch on; returned wrapped with the name or path.
var (
	ErrNotFound = errors.New("memory not found")
	ErrInvalid  = errors.New("invalid memory")
)

// A Memory is one memory file.
type Memory struct {
	Name, Description, Type string
	Created, Updated        time.Time
	Body                    string
	Path                    string // absolute file path
	Scope                   string // "user" or "project"; a subagent's memory: its scope
	Agent                   string // the subagent whose own memory it is; "" for the main memory
}

// A Diagnostic reports a memory file that could not be read or parsed. It
// never hides the other memories.
type Diagnostic struct {
	Path    string
	Message string
}

// Options configure a Store.
type Options struct {
	Dir       string           // [memory].dir resolved (absolute)
	Workspace string           // absolute; projects/<key>/ where key = ProjectKey(Workspace)
	Now       func() time.Time // default time.Now
	// Agent, when set, makes the Store a subagent's own memory (issue 24):
	// the one folder [AgentFolder] gives for AgentScope and Agent, where
	// memories of every type live. Such a Store sees and writes nothing
	// else: not the user's or the project's memories.
	Agent      string
	AgentScope string // user, project or local
}

// A Store reads and writes the memory files of one workspace. It is safe for
// concurrent use; every write holds a file lock on <dir>/.lock as well as an
// in-process mutex, so neither two goroutines nor two clawseed processes lose
// each other's writes.
type Store struct {
	layout
	now func() time.Time

	mu sync.Mutex // serialises writes inside this process (flock is per open file)

	dbMu sync.Mutex
	db   *sql.DB
	// seen is the (mtime, size) of every indexed file as of this Store's
	// last sync with the database. When a stat pass matches it, the index
	// is current and Recall skips reading the files table (the fast path).
	seen map[string]fileStamp
	// seenAt is when seen was last confirmed by a full stat pass, and
	// seenDirs the two folders' stamps then (see [Store.current]).
	seenAt   time.Time
	seenDirs [2]fileStamp
}

// Open returns a Store for opts. It does no I/O (a subagent's store only
// checks where its folder's links lead, [Store.checkAgentFolder]):
// directories are created on the first write and index.db on the first
// recall or knowledge call, so a session that never uses memory leaves no
// trace.
func Open(ctx context.Context, opts Options) (*Store, error) {
	l, err := newLayout(opts)
	if err != nil {
		return nil, err
	}
	s := &Store{layout: l, now: opts.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if err := s.checkAgentFolder(); err != nil {
		return nil, err
	}
	return s, nil
}

// Close closes the index database, if it was opened.
func (s *Store) Close() error {
	s.dbMu.Lock()
	defer s.dbMu.Unlock()
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	s.db = nil
	s.seen = nil
	return err
}

// ScopeOf returns the scope a memory type lives in, or "" for an unknown type.
func ScopeOf(typ string) string {
	switch typ {
	case TypeUser, TypeFeedback:
		return ScopeUser
	case TypeProject, TypeReference:
		return ScopeProject
	}
	return ""
}

// ProjectKey turns a workspace path into a folder name: a readable slug of
// the path's tail plus a short hash of the whole cleaned path, so two
// workspaces whose slugs collide ("a/b-c" and "a-b/c") still get distinct
// folders and the same workspace always gets the same one.
func ProjectKey(workspace string) string {
	clean := filepath.Clean(workspace)
	sum := sha256.Sum256([]byte(clean))
	slug := slugify(clean, 0)
	if len(slug) > 48 {
		slug = strings.TrimLeft(slug[len(slug)-48:], "-")
	}
	if slug == "" {
		slug = "workspace"
	}
	return slug + "-" + hex.EncodeToString(sum[:4])
}

// Slug returns the filename-safe stem of a memory's file: lower-case ASCII
// letters and digits joined by single dashes, at most 64 bytes. Names with
// nothing usable (e.g. all non-Latin) get "memory-" plus a hash, and names
// Windows reserves (con, nul, …) get a suffix, so the file can be synced to
// any system.
func Slug(name string) string {
	slug := slugify(name, 64)
	if slug == "" {
		sum := sha256.Sum256([]byte(name))
		return "memory-" + hex.EncodeToString(sum[:4])
	}
	if windowsReserved[slug] {
		slug += "-memory"
	}
	return slug
}

var windowsReserved = map[string]bool{
	"con": true, "prn": true, "aux": true, "nul": true,
	"com1": true, "com2": true, "com3": true, "com4": true, "com5": true, "com6": true, "com7": true, "com8": true, "com9": true,
	"lpt1": true, "lpt2": true, "lpt3": true, "lpt4": true, "lpt5": true, "lpt6": true, "lpt7": true, "lpt8": true, "lpt9": true,
	"memory": true, // MEMORY.md is the index; memory.md would clash on case-insensitive file systems
}

// slugify keeps [a-z0-9] and turns every other run into one dash; max > 0
// caps the length (cut at a dash when possible).
func slugify(s string, max int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	out := b.String()
	if max > 0 && len(out) > max {
		out = out[:max]
		if i := strings.LastIndexByte(out, '-'); i > max/2 {
			out = out[:i]
		}
		out = strings.TrimRight(out, "-")
	}
	return out
}
