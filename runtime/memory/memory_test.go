package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func newStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), Options{Dir: t.TempDir(), Workspace: "/home/u/src/proj"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustSave(t testing.TB, s *Store, name, typ, desc, body string) Memory {
	t.Helper()
	m, _, err := s.Save(context.Background(), Memory{Name: name, Type: typ, Description: desc, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// assertIndexesMatch checks MEMORY.md of both folders against the files.
func assertIndexesMatch(t *testing.T, s *Store) {
	t.Helper()
	for _, scope := range s.scopes() {
		ok, err := s.indexCurrent(scope)
		if err != nil || !ok {
			data, _ := os.ReadFile(filepath.Join(s.folder(scope), indexFile))
			t.Fatalf("%s MEMORY.md does not match the files (err %v):\n%s", scope, err, data)
		}
	}
}

func recallNames(t *testing.T, s *Store, q RecallQuery) []string {
	t.Helper()
	hits, err := s.Recall(context.Background(), q)
	if err != nil {
		t.Fatalf("Recall(%q): %v", q.Query, err)
	}
	var names []string
	for _, h := range hits {
		names = append(names, h.Memory.Name)
	}
	return names
}

func TestStoreRecallForgetRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	m, created, err := s.Save(ctx, Memory{Name: "Editor preference", Type: TypeUser, Description: "User prefers the helix editor over vim", Body: "Use helix keybindings in examples."})
	if err != nil || !created {
		t.Fatalf("Save = %v, created %v", err, created)
	}
	if want := filepath.Join(s.Dir(), "user", "editor-preference.md"); m.Path != want {
		t.Fatalf("path %s, want %s", m.Path, want)
	}
	user, project := s.Indexes()
	if want := "# User memories\n\n- [Editor preference](editor-preference.md) — User prefers the helix editor over vim\n"; user != want || project != "" {
		t.Fatalf("Indexes = %q, %q", user, project)
	}
	if got := recallNames(t, s, RecallQuery{Query: "which editor do I prefer?", MinScore: DefaultMinScore}); len(got) != 1 || got[0] != "Editor preference" {
		t.Fatalf("recall = %v", got)
	}
	// Update keeps Created and the file.
	s.now = func() time.Time { return time.Now().Add(time.Hour) }
	m2, created, err := s.Save(ctx, Memory{Name: "Editor preference", Type: TypeUser, Description: "User prefers zed now", Body: "zed"})
	if err != nil || created || m2.Path != m.Path || !m2.Created.Equal(m.Created) || !m2.Updated.After(m.Updated) {
		t.Fatalf("update: %+v created=%v err=%v", m2, created, err)
	}
	if got := recallNames(t, s, RecallQuery{Query: "zed"}); len(got) != 1 {
		t.Fatalf("recall after update = %v", got)
	}
	if _, err := s.Forget(ctx, "Editor preference"); err != nil {
		t.Fatal(err)
	}
	if got := recallNames(t, s, RecallQuery{Query: "zed editor"}); len(got) != 0 {
		t.Fatalf("recall after forget = %v", got)
	}
	if _, err := s.Forget(ctx, "Editor preference"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Forget = %v, want ErrNotFound", err)
	}
	if u, _ := s.Indexes(); u != "" {
		t.Fatalf("user index after forgetting everything = %q", u)
	}
}

func TestSaveMovesBetweenScopes(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	mustSave(t, s, "deploy", TypeFeedback, "deploy with make", "x")
	m := mustSave(t, s, "deploy", TypeProject, "deploy with make ship", "y")
	ms, _, _ := s.List(ctx)
	if len(ms) != 1 || ms[0].Path != m.Path || ms[0].Scope != ScopeProject {
		t.Fatalf("List = %+v", ms)
	}
	assertIndexesMatch(t, s)
}

func TestSaveRejectsInvalid(t *testing.T) {
	s := newStore(t)
	for _, m := range []Memory{
		{Name: "", Type: TypeUser, Description: "d"},
		{Name: strings.Repeat("n", 101), Type: TypeUser, Description: "d"},
		{Name: "a\x00b", Type: TypeUser, Description: "d"},
		{Name: "n", Type: TypeUser, Description: "two\nlines"},
		{Name: "n", Type: TypeUser, Description: strings.Repeat("d", 301)},
		{Name: "n", Type: "secret", Description: "d"},
	} {
		if _, _, err := s.Save(context.Background(), m); !errors.Is(err, ErrInvalid) {
			t.Errorf("Save(%q, %q, %q) = %v, want ErrInvalid", m.Name, m.Type, m.Description, err)
		}
	}
}

func TestSlugCollisionsGetDistinctFiles(t *testing.T) {
	s := newStore(t)
	a := mustSave(t, s, "Foo Bar", TypeUser, "a", "")
	b := mustSave(t, s, "foo-bar", TypeUser, "b", "")
	c := mustSave(t, s, "日本語", TypeUser, "c", "")
	if a.Path == b.Path || filepath.Base(b.Path) != "foo-bar-2.md" || !strings.HasPrefix(filepath.Base(c.Path), "memory-") {
		t.Fatalf("paths %s %s %s", a.Path, b.Path, c.Path)
	}
	if got, err := s.Get(context.Background(), "foo-bar"); err != nil || got.Description != "b" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	assertIndexesMatch(t, s)
}

func TestHandEditsReachIndexAndMemoryMD(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a := mustSave(t, s, "alpha", TypeProject, "alpha service runs on port 8080", "")
	mustSave(t, s, "beta", TypeProject, "beta queue", "")
	if got := recallNames(t, s, RecallQuery{Query: "alpha port"}); len(got) != 1 {
		t.Fatalf("recall = %v", got)
	}
	// Edit alpha, add gamma, delete beta, and add a malformed file — by hand.
	data, _ := os.ReadFile(a.Path)
	edited := strings.Replace(string(data), "port 8080", "port 9090 behind nginx", 1)
	if err := os.WriteFile(a.Path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(a.Path, time.Now().Add(time.Minute), time.Now().Add(time.Minute)) // coarse mtime clocks
	folder := filepath.Dir(a.Path)
	os.WriteFile(filepath.Join(folder, "hand made.md"), []byte("---\nname: gamma\ndescription: gamma uses nginx too\ntype: reference\n---\nbody\n"), 0o644)
	os.WriteFile(filepath.Join(folder, "broken.md"), []byte("---\nname: [unclosed\n---\n"), 0o644)
	os.Remove(filepath.Join(folder, "beta.md"))

	if got := recallNames(t, s, RecallQuery{Query: "nginx"}); strings.Join(got, ",") != "alpha,gamma" && strings.Join(got, ",") != "gamma,alpha" {
		t.Fatalf("recall nginx = %v", got)
	}
	if got := recallNames(t, s, RecallQuery{Query: "8080"}); len(got) != 0 {
		t.Fatalf("recall of the old text = %v", got)
	}
	if got := recallNames(t, s, RecallQuery{Query: "beta queue"}); len(got) != 0 {
		t.Fatalf("recall of a deleted file = %v", got)
	}
	ms, diags, err := s.List(ctx)
	if err != nil || len(ms) != 2 || len(diags) != 1 || !strings.Contains(diags[0].Message, "broken.md:") {
		t.Fatalf("List = %d memories, %+v, %v", len(ms), diags, err)
	}
	st, err := s.Reindex(ctx)
	if err != nil || st.Diagnostics != 1 || st.Files != 3 {
		t.Fatalf("Reindex = %+v, %v", st, err)
	}
	assertIndexesMatch(t, s)
	_, project := s.Indexes()
	if !strings.Contains(project, "- [gamma](hand%20made.md) — gamma uses nginx too\n") || strings.Contains(project, "beta") {
		t.Fatalf("project index:\n%s", project)
	}
}

func TestRecallThreshold(t *testing.T) {
	s := newStore(t)
	mustSave(t, s, "Test command", TypeProject, "Run tests with go test -race ./... before committing", "CI also runs the race detector.")
	mustSave(t, s, "Tone", TypeFeedback, "User wants terse answers without summaries", "No recap at the end of a reply.")
	tests := []struct {
		q    string
		want string
	}{
		{"how should I run the tests?", "Test command"},
		{"keep answers terse", "Tone"},
		{"what is the capital of France?", ""},
		{"can you refactor the parser in this file to use less memory and also the race", ""},
		{"what do you think?", ""},
	}
	for _, tt := range tests {
		got := strings.Join(recallNames(t, s, RecallQuery{Query: tt.q, MinScore: DefaultMinScore}), ",")
		if got != tt.want {
			t.Errorf("Recall(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
	// Exclude and Type filter.
	hits, _ := s.Recall(context.Background(), RecallQuery{Query: "tests", Exclude: []string{filepath.Join(s.folder(ScopeProject), "test-command.md")}})
	if len(hits) != 0 {
		t.Errorf("excluded path recalled: %+v", hits)
	}
	if got := recallNames(t, s, RecallQuery{Query: "tests terse", Type: TypeFeedback}); strings.Join(got, ",") != "Tone" {
		t.Errorf("type filter = %v", got)
	}
}

func TestRecallHostileQueries(t *testing.T) {
	s := newStore(t)
	mustSave(t, s, "n", TypeUser, "d", "body")
	for _, q := range []string{`"`, `"unclosed`, `a OR`, `NEAR(a b)`, `*`, `col:value`, `'; DROP TABLE mem_files; --`, `^start`, `a AND NOT b`, `{name}: x`, `(((`, "\x00", `body-body`, `ü€😀`} {
		if _, err := s.Recall(context.Background(), RecallQuery{Query: q}); err != nil {
			t.Errorf("Recall(%q) = %v", q, err)
		}
		if _, err := s.SearchKnowledge(context.Background(), q, 5); err != nil {
			t.Errorf("SearchKnowledge(%q) = %v", q, err)
		}
	}
}

func TestKnowledgeGraph(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, _ := Open(ctx, Options{Dir: dir})
	a, err := s.Capture(ctx, Node{Type: "service", Title: "billing-api", Content: "Charges cards via Stripe", Tags: []string{"payments"}})
	if err != nil || !strings.HasPrefix(a.ID, "k-") {
		t.Fatalf("Capture = %+v, %v", a, err)
	}
	b, _ := s.Capture(ctx, Node{Type: "service", Title: "ledger", Content: "Double-entry ledger"})
	c, _ := s.Capture(ctx, Node{Type: "person", Title: "Ana", Content: "owns billing"})
	if err := s.Relate(ctx, Relation{From: a.ID, To: b.ID, Relation: "writes_to"}); err != nil {
		t.Fatal(err)
	}
	s.Relate(ctx, Relation{From: c.ID, To: a.ID, Relation: "owns"})
	s.Relate(ctx, Relation{From: c.ID, To: a.ID, Relation: "owns"}) // idempotent
	if err := s.Relate(ctx, Relation{From: a.ID, To: "k-missing", Relation: "x"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Relate to a missing node = %v", err)
	}
	s.Close()

	// A new session (new Store) sees the same ids.
	s, _ = Open(ctx, Options{Dir: dir})
	defer s.Close()
	n, rels, err := s.Node(ctx, a.ID)
	if err != nil || n.Title != "billing-api" || len(rels) != 2 || n.Tags[0] != "payments" {
		t.Fatalf("Node = %+v %+v %v", n, rels, err)
	}
	up, err := s.Capture(ctx, Node{ID: a.ID, Content: "Charges cards via Adyen"})
	if err != nil || up.Title != "billing-api" || up.Tags[0] != "payments" {
		t.Fatalf("update = %+v, %v", up, err)
	}
	found, err := s.SearchKnowledge(ctx, "adyen payments", 5)
	if err != nil || len(found) != 1 || found[0].ID != a.ID {
		t.Fatalf("Search = %+v, %v", found, err)
	}
	if found, _ := s.SearchKnowledge(ctx, "stripe", 5); len(found) != 0 {
		t.Fatalf("old content still indexed: %+v", found)
	}
	nodes, relations, byType, err := s.KnowledgeStats(ctx)
	if err != nil || nodes != 3 || relations != 2 || byType["service"] != 2 || byType["person"] != 1 {
		t.Fatalf("Stats = %d %d %v %v", nodes, relations, byType, err)
	}
	if _, err := s.Capture(ctx, Node{ID: "k-nope", Title: "x"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("update of a missing node = %v", err)
	}
}

func TestExport(t *testing.T) {
	s := newStore(t)
	mustSave(t, s, "a", TypeUser, "desc a", "body a")
	for _, f := range []string{"markdown", "json"} {
		out, err := s.Export(context.Background(), f)
		if err != nil || !strings.Contains(out, "body a") || !strings.Contains(out, "desc a") {
			t.Errorf("Export(%s) = %q, %v", f, out, err)
		}
	}
}

const helperEnv = "CLAWSEED_MEMORY_TEST_HELPER"

// TestHelperProcess is the second process of TestTwoProcessesLoseNothing.
func TestHelperProcess(t *testing.T) {
	spec := os.Getenv(helperEnv)
	if spec == "" {
		t.Skip("helper process only")
	}
	dir, prefix, _ := strings.Cut(spec, "|")
	writeMany(t, dir, prefix, 50)
}

func writeMany(t *testing.T, dir, prefix string, n int) {
	s, err := Open(context.Background(), Options{Dir: dir, Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		typ := TypeUser
		if i%2 == 1 {
			typ = TypeProject
		}
		if _, _, err := s.Save(context.Background(), Memory{Name: fmt.Sprintf("%s %d", prefix, i), Type: typ, Description: "concurrent write " + strconv.Itoa(i), Body: prefix}); err != nil {
			t.Error(err)
		}
		if i%10 == 0 {
			if _, err := s.Recall(context.Background(), RecallQuery{Query: "concurrent " + prefix}); err != nil {
				t.Error(err)
			}
		}
	}
}

func TestTwoProcessesLoseNothing(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir+"|other")
	out := make(chan error, 1)
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { out <- cmd.Wait() }()
	writeMany(t, dir, "this", 50)
	if err := <-out; err != nil {
		t.Fatalf("helper: %v\n%s", err, stderr.String())
	}
	s, _ := Open(context.Background(), Options{Dir: dir, Workspace: "/w"})
	defer s.Close()
	ms, diags, err := s.List(context.Background())
	if err != nil || len(ms) != 100 || len(diags) != 0 {
		t.Fatalf("List = %d memories, %v, %v", len(ms), diags, err)
	}
	// MEMORY.md is as written by the processes, not repaired.
	assertIndexesMatch(t, s)
	hits, err := s.Recall(context.Background(), RecallQuery{Query: "concurrent other", Limit: 100})
	if err != nil || len(hits) != 100 {
		t.Fatalf("Recall = %d hits, %v", len(hits), err)
	}
}

func TestProjectKeyAndSlug(t *testing.T) {
	if a, b := ProjectKey("/a/b-c"), ProjectKey("/a-b/c"); a == b || !strings.HasPrefix(a, "a-b-c-") {
		t.Errorf("ProjectKey collision or bad form: %s %s", a, b)
	}
	if ProjectKey("/x/y/") != ProjectKey("/x/y") {
		t.Error("ProjectKey not stable under cleaning")
	}
	for in, want := range map[string]string{"Editor preference": "editor-preference", "  --A__b!! ": "a-b", "CON": "con-memory", "memory": "memory-memory", "../../etc/passwd": "etc-passwd"} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Slug(strings.Repeat("word ", 40)); len(got) > 64 || strings.HasSuffix(got, "-") {
		t.Errorf("long slug %q", got)
	}
}

// TestRecallLeavesNoTrace: automatic recall runs before every user message;
// in a session that never stored a memory it must not create index.db.
func TestRecallLeavesNoTrace(t *testing.T) {
	s := newStore(t)
	hits, err := s.Recall(context.Background(), RecallQuery{Query: "how do I deploy", MinScore: DefaultMinScore})
	if err != nil || len(hits) != 0 {
		t.Fatalf("Recall = %v, %v", hits, err)
	}
	if ents, _ := os.ReadDir(s.Dir()); len(ents) != 0 {
		t.Errorf("recall created %d entries in the memory dir", len(ents))
	}
}
