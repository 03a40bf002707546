// Package memorytest is the conformance suite of the memory stores (issue
// 26): the same table of tests runs against the Markdown files
// (memory.Store) and the rows of PostgreSQL (memory.RowStore over
// runtime/pgstore), so that memories behave the same whichever keeps them;
// [Same] runs the same calls on two stores over one memory dir and checks
// that they answer with the same bytes, the MEMORY.md of the system prompt
// first.
package memorytest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawseed/clawseed/runtime/memory"
)

// Store is what the suite tests: the methods memory.Store and
// memory.RowStore share.
type Store interface {
	Save(ctx context.Context, m memory.Memory) (memory.Memory, bool, error)
	Get(ctx context.Context, name string) (memory.Memory, error)
	Forget(ctx context.Context, name string) (memory.Memory, error)
	List(ctx context.Context) ([]memory.Memory, []memory.Diagnostic, error)
	Purge(ctx context.Context, scope string) (int, error)
	Export(ctx context.Context, format string) (string, error)
	Recall(ctx context.Context, q memory.RecallQuery) ([]memory.Hit, error)
	Indexes() (user, project string)
	AgentIndex() string
	Manifest(ctx context.Context, exclude []string, limit int) ([]memory.ManifestEntry, error)
	ReadEntry(file string) (memory.Memory, error)
	Dir() string
	Close() error
}

// A Backing is where one test's memories are kept: it returns the opener
// of stores over a new, empty backing (for the files, nothing: a store's
// Dir is its backing; for a database, a new database), which the test
// calls for each store it needs, with opts.Dir set.
type Backing func(t *testing.T) func(opts memory.Options) (Store, error)

// A test is one conformance test.
type test struct {
	name string
	run  func(t *testing.T, e *env)
}

// Run runs every conformance test on stores of backing.
func Run(t *testing.T, backing Backing) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, newEnv(t, backing))
		})
	}
}

var tests = []test{
	{"SaveGet", testSaveGet},
	{"SaveUpdates", testSaveUpdates},
	{"SaveMovesScope", testSaveMovesScope},
	{"SaveInvalid", testSaveInvalid},
	{"FileNames", testFileNames},
	{"Forget", testForget},
	{"ListOrder", testListOrder},
	{"Index", testIndex},
	{"Purge", testPurge},
	{"Export", testExport},
	{"Workspaces", testWorkspaces},
	{"Subagent", testSubagent},
	{"Recall", testRecall},
	{"RecallTies", testRecallTies},
	{"RecallWords", testRecallWords},
	{"Manifest", testManifest},
	{"ReadEntry", testReadEntry},
	{"ConcurrentSaves", testConcurrentSaves},
}

var ctx = context.Background()

// Workspace is the workspace of the suite's main stores.
const Workspace = "/home/u/src/app"

// env is one test's backing, memory dir and clock.
type env struct {
	t     *testing.T
	open  func(opts memory.Options) (Store, error)
	dir   string
	clock *Clock
}

func newEnv(t *testing.T, backing Backing) *env {
	return &env{t: t, open: backing(t), dir: filepath.Join(t.TempDir(), "memory"), clock: NewClock()}
}

// store opens a store of opts over the env's backing, dir and clock.
func (e *env) store(opts memory.Options) Store {
	e.t.Helper()
	opts.Dir = e.dir
	if opts.Now == nil {
		opts.Now = e.clock.Now
	}
	s, err := e.open(opts)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { s.Close() })
	return s
}

// main opens the main memory of [Workspace].
func (e *env) main() Store { return e.store(memory.Options{Workspace: Workspace}) }

// A Clock is a test clock: each reading is one second after the last.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock starting at 2026-03-01 09:00:00 UTC.
func NewClock() *Clock { return &Clock{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)} }

// Now returns the next second.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second)
	return c.now
}

func save(t *testing.T, s Store, name, typ, desc, body string) memory.Memory {
	t.Helper()
	m, _, err := s.Save(ctx, memory.Memory{Name: name, Type: typ, Description: desc, Body: body})
	if err != nil {
		t.Fatalf("Save %q: %v", name, err)
	}
	return m
}

// names returns the names of ms.
func names(ms []memory.Memory) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return strings.Join(out, ", ")
}

// rel returns path relative to the memory dir, slash-separated.
func (e *env) rel(path string) string {
	r, err := filepath.Rel(e.dir, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}

// projectKey is the project folder of [Workspace].
var projectKey = "projects/" + memory.ProjectKey(Workspace)

func testSaveGet(t *testing.T, e *env) {
	s := e.main()
	m, created, err := s.Save(ctx, memory.Memory{Name: "  Editor  ", Type: memory.TypeUser, Description: " Uses vim ", Body: "\n  Vim, with the default keys.\n\n"})
	if err != nil || !created {
		t.Fatalf("Save: %v, created %v", err, created)
	}
	if m.Name != "Editor" || m.Description != "Uses vim" || m.Body != "Vim, with the default keys." {
		t.Errorf("Save did not trim: %+v", m)
	}
	if e.rel(m.Path) != "user/editor.md" || m.Scope != memory.ScopeUser || m.Agent != "" {
		t.Errorf("saved at %s, scope %q, agent %q", e.rel(m.Path), m.Scope, m.Agent)
	}
	if m.Created.IsZero() || !m.Created.Equal(m.Updated) || m.Created.Location() != time.UTC {
		t.Errorf("times %v %v", m.Created, m.Updated)
	}
	p := save(t, s, "Deploy", memory.TypeReference, "How to deploy", "make deploy")
	if e.rel(p.Path) != projectKey+"/deploy.md" || p.Scope != memory.ScopeProject {
		t.Errorf("project memory at %s, scope %q", e.rel(p.Path), p.Scope)
	}
	for _, want := range []memory.Memory{m, p} {
		got, err := s.Get(ctx, " "+want.Name+" ")
		if err != nil {
			t.Fatalf("Get %q: %v", want.Name, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Get %q:\n got %+v\nwant %+v", want.Name, got, want)
		}
	}
	if _, err := s.Get(ctx, "editor"); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Get of another case: %v, want ErrNotFound (names are exact)", err)
	}
}

func testSaveUpdates(t *testing.T, e *env) {
	s := e.main()
	first := save(t, s, "Editor", memory.TypeUser, "Uses vim", "vim")
	m, created, err := s.Save(ctx, memory.Memory{Name: "Editor", Type: memory.TypeFeedback, Description: "Uses helix now", Body: "helix"})
	if err != nil || created {
		t.Fatalf("Save again: %v, created %v", err, created)
	}
	if m.Path != first.Path || !m.Created.Equal(first.Created) || !m.Updated.After(first.Updated) {
		t.Errorf("update: path %s (was %s), created %v (was %v), updated %v (was %v)", m.Path, first.Path, m.Created, first.Created, m.Updated, first.Updated)
	}
	got, err := s.Get(ctx, "Editor")
	if err != nil || got.Type != memory.TypeFeedback || got.Body != "helix" || got.Description != "Uses helix now" {
		t.Errorf("Get after update: %+v, %v", got, err)
	}
	ms, _, _ := s.List(ctx)
	if len(ms) != 1 {
		t.Errorf("List after update: %s", names(ms))
	}
}

func testSaveMovesScope(t *testing.T, e *env) {
	s := e.main()
	u := save(t, s, "Style", memory.TypeUser, "Short answers", "short")
	p, created, err := s.Save(ctx, memory.Memory{Name: "Style", Type: memory.TypeProject, Description: "Project style", Body: "gofmt"})
	if err != nil || created {
		t.Fatalf("Save to the other scope: %v, created %v", err, created)
	}
	if e.rel(p.Path) != projectKey+"/style.md" || !p.Created.Equal(u.Created) {
		t.Errorf("moved to %s, created %v (was %v)", e.rel(p.Path), p.Created, u.Created)
	}
	ms, _, _ := s.List(ctx)
	if len(ms) != 1 || ms[0].Scope != memory.ScopeProject {
		t.Errorf("List after the move: %+v", ms)
	}
	user, _ := s.Indexes()
	if user != "" {
		t.Errorf("user MEMORY.md after the move: %q", user)
	}
}

func testSaveInvalid(t *testing.T, e *env) {
	s := e.main()
	bad := []memory.Memory{
		{Name: "", Type: memory.TypeUser, Description: "d"},
		{Name: "n", Type: memory.TypeUser, Description: ""},
		{Name: "two\nlines", Type: memory.TypeUser, Description: "d"},
		{Name: "n", Type: memory.TypeUser, Description: "tab\there"},
		{Name: "n", Type: "secret", Description: "d"},
		{Name: strings.Repeat("n", memory.MaxNameLen+1), Type: memory.TypeUser, Description: "d"},
		{Name: "n", Type: memory.TypeUser, Description: "d", Body: strings.Repeat("b", memory.MaxBodyBytes+1)},
	}
	for _, m := range bad {
		if _, _, err := s.Save(ctx, m); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("Save %q/%q/%q: %v, want ErrInvalid", m.Name, m.Type, m.Description, err)
		}
	}
	noWS := e.store(memory.Options{})
	if _, _, err := noWS.Save(ctx, memory.Memory{Name: "p", Type: memory.TypeProject, Description: "d"}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("project memory without a workspace: %v, want ErrInvalid", err)
	}
	if ms, _, _ := s.List(ctx); len(ms) != 0 {
		t.Errorf("invalid memories stored: %s", names(ms))
	}
}

func testFileNames(t *testing.T, e *env) {
	s := e.main()
	a := save(t, s, "Deploy notes", memory.TypeUser, "a", "")
	b := save(t, s, "deploy-notes", memory.TypeUser, "b", "")
	c := save(t, s, "DEPLOY: notes!", memory.TypeUser, "c", "")
	d := save(t, s, "con", memory.TypeUser, "reserved", "")
	x := save(t, s, "日本語", memory.TypeUser, "no Latin letter", "")
	got := []string{e.rel(a.Path), e.rel(b.Path), e.rel(c.Path), e.rel(d.Path), e.rel(x.Path)}
	want := []string{"user/deploy-notes.md", "user/deploy-notes-2.md", "user/deploy-notes-3.md", "user/con-memory.md", "user/" + memory.Slug("日本語") + ".md"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("files %v, want %v", got, want)
	}
	if _, err := s.Forget(ctx, "Deploy notes"); err != nil {
		t.Fatal(err)
	}
	if n := save(t, s, "Deploy Notes", memory.TypeUser, "n", ""); e.rel(n.Path) != "user/deploy-notes.md" {
		t.Errorf("a freed file name is not reused: %s", e.rel(n.Path))
	}
}

func testForget(t *testing.T, e *env) {
	s := e.main()
	m := save(t, s, "Editor", memory.TypeUser, "Uses vim", "vim")
	save(t, s, "Other", memory.TypeUser, "Stays", "")
	got, err := s.Forget(ctx, " Editor ")
	if err != nil || got.Path != m.Path || got.Name != "Editor" {
		t.Fatalf("Forget: %+v, %v", got, err)
	}
	if _, err := s.Get(ctx, "Editor"); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Get after Forget: %v", err)
	}
	if _, err := s.Forget(ctx, "Editor"); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Forget again: %v, want ErrNotFound", err)
	}
	if ms, _, _ := s.List(ctx); names(ms) != "Other" {
		t.Errorf("List after Forget: %s", names(ms))
	}
}

func testListOrder(t *testing.T, e *env) {
	s := e.main()
	for _, n := range []string{"beta", "Zulu", "alpha", "Émile", "_under"} {
		save(t, s, n, memory.TypeUser, "u "+n, "")
	}
	for _, n := range []string{"p2", "P1"} {
		save(t, s, n, memory.TypeProject, "p "+n, "")
	}
	ms, diags, err := s.List(ctx)
	if err != nil || len(diags) != 0 {
		t.Fatalf("List: %v %v", err, diags)
	}
	// Project first, then user; names in byte order.
	if got, want := names(ms), "P1, p2, Zulu, _under, alpha, beta, Émile"; got != want {
		t.Errorf("List order %q, want %q", got, want)
	}
}

func testIndex(t *testing.T, e *env) {
	s := e.main()
	if u, p := s.Indexes(); u != "" || p != "" {
		t.Errorf("indexes of an empty store: %q %q", u, p)
	}
	save(t, s, "editor", memory.TypeUser, "Uses vim — always", "")
	save(t, s, "a [link]", memory.TypeFeedback, "Brackets", "")
	save(t, s, `back\slash`, memory.TypeUser, "Backslash", "")
	save(t, s, "deploy", memory.TypeProject, "make deploy", "")
	u, p := s.Indexes()
	wantU := "# User memories\n\n" +
		"- [a \\[link\\]](a-link.md) — Brackets\n" +
		"- [back\\\\slash](back-slash.md) — Backslash\n" +
		"- [editor](editor.md) — Uses vim — always\n"
	if u != wantU {
		t.Errorf("user MEMORY.md:\n%s\nwant:\n%s", u, wantU)
	}
	if want := "# Project memories\n\n- [deploy](deploy.md) — make deploy\n"; p != want {
		t.Errorf("project MEMORY.md:\n%s\nwant:\n%s", p, want)
	}
	if s.AgentIndex() != "" {
		t.Errorf("main store's AgentIndex: %q", s.AgentIndex())
	}
	// Only the first 200 lines reach the prompt.
	for i := range 205 {
		save(t, s, fmt.Sprintf("m%03d", i), memory.TypeUser, "d", "")
	}
	u, _ = s.Indexes()
	if n := strings.Count(u, "\n"); n != 200 || !strings.HasSuffix(u, "- [m194](m194.md) — d\n") {
		t.Errorf("user MEMORY.md of 208 memories: %d lines, ends %q", n, u[max(0, len(u)-40):])
	}
}

func testPurge(t *testing.T, e *env) {
	s := e.main()
	save(t, s, "u1", memory.TypeUser, "d", "")
	save(t, s, "u2", memory.TypeFeedback, "d", "")
	save(t, s, "p1", memory.TypeProject, "d", "")
	if _, err := s.Purge(ctx, "everything"); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("Purge of an unknown scope: %v", err)
	}
	if n, err := s.Purge(ctx, memory.ScopeUser); err != nil || n != 2 {
		t.Errorf("Purge user: %d, %v", n, err)
	}
	if ms, _, _ := s.List(ctx); names(ms) != "p1" {
		t.Errorf("after Purge user: %s", names(ms))
	}
	save(t, s, "u3", memory.TypeUser, "d", "")
	if n, err := s.Purge(ctx, "all"); err != nil || n != 2 {
		t.Errorf("Purge all: %d, %v", n, err)
	}
	if ms, _, _ := s.List(ctx); len(ms) != 0 {
		t.Errorf("after Purge all: %s", names(ms))
	}
	if u, p := s.Indexes(); u != "" || p != "" {
		t.Errorf("indexes after Purge all: %q %q", u, p)
	}
}

func testExport(t *testing.T, e *env) {
	s := e.main()
	m := save(t, s, "editor", memory.TypeUser, "Uses vim", "Vim.")
	md, err := s.Export(ctx, "markdown")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Memories\n\n## editor\n\nFile: " + m.Path + "\n\n---\nname: editor\ndescription: Uses vim\ntype: user\ncreated: \"" +
		m.Created.Format(time.RFC3339) + "\"\nupdated: \"" + m.Updated.Format(time.RFC3339) + "\"\n---\n\nVim.\n"
	if md != want {
		t.Errorf("markdown export:\n%s\nwant:\n%s", md, want)
	}
	js, err := s.Export(ctx, "json")
	if err != nil || !strings.Contains(js, `"content": "Vim."`) || !strings.Contains(js, `"scope": "user"`) {
		t.Errorf("json export: %s, %v", js, err)
	}
	if _, err := s.Export(ctx, "xml"); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("xml export: %v", err)
	}
}

func testWorkspaces(t *testing.T, e *env) {
	a := e.main()
	b := e.store(memory.Options{Workspace: "/home/u/src/other"})
	save(t, a, "shared", memory.TypeUser, "User memories are every project's", "")
	save(t, a, "mine", memory.TypeProject, "Project memories are one workspace's", "")
	save(t, b, "theirs", memory.TypeProject, "The other workspace's", "")
	if ms, _, _ := a.List(ctx); names(ms) != "mine, shared" {
		t.Errorf("workspace a lists %s", names(ms))
	}
	if ms, _, _ := b.List(ctx); names(ms) != "theirs, shared" {
		t.Errorf("workspace b lists %s", names(ms))
	}
	if _, err := b.Get(ctx, "mine"); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("another workspace's project memory: %v", err)
	}
	if hits, _ := b.Recall(ctx, memory.RecallQuery{Query: "workspace"}); len(hits) != 1 || hits[0].Memory.Name != "theirs" {
		t.Errorf("workspace b recalls %+v", hits)
	}
	if hits, _ := a.Recall(ctx, memory.RecallQuery{Query: "workspace"}); len(hits) != 1 || hits[0].Memory.Name != "mine" {
		t.Errorf("workspace a recalls %+v", hits)
	}
}

func testSubagent(t *testing.T, e *env) {
	main := e.main()
	sub := e.store(memory.Options{Workspace: Workspace, Agent: "reviewer", AgentScope: memory.ScopeUser})
	local := e.store(memory.Options{Workspace: Workspace, Agent: "Plugin:Rev", AgentScope: memory.ScopeLocal})
	save(t, main, "style", memory.TypeUser, "Main style", "")
	m := save(t, sub, "checks", memory.TypeProject, "Reviewer checks", "run vet")
	if e.rel(m.Path) != "user/agents/reviewer/checks.md" || m.Scope != memory.ScopeUser || m.Agent != "reviewer" {
		t.Errorf("subagent memory at %s, scope %q, agent %q", e.rel(m.Path), m.Scope, m.Agent)
	}
	l := save(t, local, "local", memory.TypeUser, "Local notes", "")
	if want := projectKey + "/agents-local/" + memory.AgentFolderName("Plugin:Rev") + "/local.md"; e.rel(l.Path) != want {
		t.Errorf("local subagent memory at %s, want %s", e.rel(l.Path), want)
	}
	if ms, _, _ := main.List(ctx); names(ms) != "style" {
		t.Errorf("main memory lists %s", names(ms))
	}
	if ms, _, _ := sub.List(ctx); names(ms) != "checks" {
		t.Errorf("subagent memory lists %s", names(ms))
	}
	if u, p := sub.Indexes(); u != "" || p != "" {
		t.Errorf("subagent's Indexes: %q %q", u, p)
	}
	if got, want := sub.AgentIndex(), "# Memories of the reviewer subagent\n\n- [checks](checks.md) — Reviewer checks\n"; got != want {
		t.Errorf("AgentIndex %q, want %q", got, want)
	}
	if hits, _ := main.Recall(ctx, memory.RecallQuery{Query: "reviewer checks"}); len(hits) != 0 {
		t.Errorf("main recall finds the subagent's: %+v", hits)
	}
	if hits, _ := sub.Recall(ctx, memory.RecallQuery{Query: "reviewer checks"}); len(hits) != 1 || hits[0].Memory.Agent != "reviewer" {
		t.Errorf("subagent recall: %+v", hits)
	}
	// Model-based recall's manifest names the subagent too.
	if es, err := sub.Manifest(ctx, nil, 0); err != nil || len(es) != 1 || es[0].File != "user/agents/reviewer/checks.md" || es[0].Agent != "reviewer" {
		t.Errorf("subagent manifest: %+v, %v", es, err)
	}
	if es, err := main.Manifest(ctx, nil, 0); err != nil || len(es) != 1 || es[0].Agent != "" {
		t.Errorf("main manifest: %+v, %v", es, err)
	}
	if n, err := sub.Purge(ctx, memory.ScopeProject); err != nil || n != 1 {
		t.Errorf("subagent Purge (any scope is its one folder): %d, %v", n, err)
	}
	if ms, _, _ := main.List(ctx); names(ms) != "style" {
		t.Errorf("main memory after the subagent's purge: %s", names(ms))
	}
}

func testConcurrentSaves(t *testing.T, e *env) {
	stores := []Store{e.main(), e.main(), e.main()}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 12 {
		wg.Go(func() {
			s := stores[i%len(stores)]
			if _, _, err := s.Save(ctx, memory.Memory{Name: fmt.Sprintf("m%02d", i), Type: memory.TypeUser, Description: "d", Body: "b"}); err != nil {
				errs <- err
			}
			// The same name from every writer: stored once.
			if _, _, err := s.Save(ctx, memory.Memory{Name: "Shared Name", Type: memory.TypeUser, Description: fmt.Sprint("by ", i), Body: "b"}); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ms, _, err := stores[0].List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 13 {
		t.Errorf("%d memories after 12 distinct saves and one shared name: %s", len(ms), names(ms))
	}
	u, _ := stores[1].Indexes()
	if n := strings.Count(u, "\n"); n != 15 || !strings.Contains(u, "(shared-name.md)") || strings.Contains(u, "shared-name-2") {
		t.Errorf("user MEMORY.md after concurrent saves (%d lines):\n%s", n, u)
	}
}
