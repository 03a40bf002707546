package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestAgentFolderName: safe names are kept; every other name, hostile ones
// included, becomes one path element that is neither "." nor ".." nor
// hidden, so that joined to its scope folder it stays directly below it.
func TestAgentFolderName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		want string // "" : only the shape is checked
		kept bool
	}{
		{name: "reviewer", want: "reviewer", kept: true},
		{name: "code-reviewer", want: "code-reviewer", kept: true},
		{name: "a_b-1", want: "a_b-1", kept: true},
		{name: "Reviewer"},
		{name: "plugin:rev"},
		{name: "v1.2"},
		{name: ".."},
		{name: "."},
		{name: "../../etc"},
		{name: "../user"},
		{name: "a/../../b"},
		{name: `..\..\x`},
		{name: "/abs/path"},
		{name: "con"},
		{name: "memory"},
		{name: "-dash"},
		{name: "_x"},
		{name: "naïve"},
		{name: "名前"},
		{name: strings.Repeat("x", 65)},
		{name: strings.Repeat("ab:", 40)},
		{name: "a\x00b"},
	} {
		got := AgentFolderName(tt.name)
		if tt.want != "" && got != tt.want {
			t.Errorf("AgentFolderName(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if !tt.kept && !strings.Contains(got, ".") {
			t.Errorf("AgentFolderName(%q) = %q: a mapped name must carry the dot and hash", tt.name, got)
		}
		if got == "" || got == "." || got == ".." || strings.HasPrefix(got, ".") || strings.ContainsAny(got, `/\:`+"\x00") || len(got) > 64 {
			t.Errorf("AgentFolderName(%q) = %q: not one safe path element", tt.name, got)
		}
		base := filepath.Join("/mem", "user", "agents")
		if j := filepath.Join(base, got); filepath.Dir(j) != base {
			t.Errorf("AgentFolderName(%q) = %q leaves %s: %s", tt.name, got, base, j)
		}
	}
	// Distinct names, distinct folders, also where only case or
	// punctuation tells them apart.
	seen := map[string]string{}
	for _, n := range []string{"rev", "Rev", "REV", "plugin:rev", "plugin-rev", "plugin.rev", "plugin_rev"} {
		f := strings.ToLower(AgentFolderName(n))
		if other, ok := seen[f]; ok {
			t.Errorf("%q and %q share the folder %q", n, other, f)
		}
		seen[f] = n
	}
}

// TestAgentStoreFolders: each scope's folder, below that scope's folder of
// the main memory; local and project need a workspace; an unknown scope is
// refused.
func TestAgentStoreFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := ProjectKey("/home/u/src/proj")
	for _, tt := range []struct {
		scope, name, want, err string
		noWorkspace            bool
	}{
		{scope: "user", name: "reviewer", want: "user/agents/reviewer"},
		{scope: "project", name: "reviewer", want: "projects/" + key + "/agents/reviewer"},
		{scope: "local", name: "reviewer", want: "projects/" + key + "/agents-local/reviewer"},
		{scope: "project", name: "../../user", want: "projects/" + key + "/agents/" + AgentFolderName("../../user")},
		{scope: "user", name: "my-plugin:rev", want: "user/agents/" + AgentFolderName("my-plugin:rev")},
		{scope: "user", name: "x", noWorkspace: true, want: "user/agents/x"},
		{scope: "project", name: "x", noWorkspace: true, err: "project memory needs a workspace"},
		{scope: "local", name: "x", noWorkspace: true, err: "local memory needs a workspace"},
		{scope: "team", name: "x", err: `memory scope "team" is not user, project or local`},
	} {
		ws := "/home/u/src/proj"
		if tt.noWorkspace {
			ws = ""
		}
		s, err := Open(context.Background(), Options{Dir: dir, Workspace: ws, Agent: tt.name, AgentScope: tt.scope})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrInvalid) {
				t.Errorf("%s %q: err = %v, want %q", tt.scope, tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s %q: %v", tt.scope, tt.name, err)
		}
		if got, want := s.AgentFolder(), filepath.Join(dir, filepath.FromSlash(tt.want)); got != want {
			t.Errorf("%s %q: folder %s, want %s", tt.scope, tt.name, got, want)
		}
		if s.AgentScope() != tt.scope {
			t.Errorf("%s %q: scope %q", tt.scope, tt.name, s.AgentScope())
		}
	}
}

func newAgentStore(t *testing.T, dir, scope, name string) *Store {
	t.Helper()
	s, err := Open(context.Background(), Options{Dir: dir, Workspace: "/home/u/src/proj", Agent: name, AgentScope: scope})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestAgentStoreIsolated: a subagent's store writes every type into its
// own folder, and sees, recalls, forgets and purges only that folder; the
// main memory does not see it either, and shares index.db with it.
func TestAgentStoreIsolated(t *testing.T) {
	ctx := context.Background()
	main := newStore(t)
	dir := main.Dir()
	mustSave(t, main, "main-style", TypeUser, "The user wants terse answers about widgets", "Main memory body about widgets.")
	mustSave(t, main, "main-build", TypeProject, "Build widgets with make", "Main project memory about widgets.")

	sub := newAgentStore(t, dir, ScopeProject, "reviewer")
	folder := sub.AgentFolder()
	for _, typ := range []string{TypeUser, TypeFeedback, TypeProject, TypeReference} {
		m := mustSave(t, sub, "sub-"+typ, typ, "Reviewer notes on widgets, "+typ, "Subagent memory about widgets.")
		if filepath.Dir(m.Path) != folder || m.Scope != ScopeProject || m.Agent != "reviewer" {
			t.Fatalf("%s memory saved at %s (scope %s), want in %s", typ, m.Path, m.Scope, folder)
		}
	}
	ms, _, err := sub.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	if want := []string{"sub-feedback", "sub-project", "sub-reference", "sub-user"}; !slices.Equal(names, want) {
		t.Fatalf("subagent List = %v, want %v", names, want)
	}
	idx := sub.AgentIndex()
	if !strings.HasPrefix(idx, "# Memories of the reviewer subagent\n\n- [sub-feedback](sub-feedback.md)") || strings.Contains(idx, "main-") {
		t.Fatalf("AgentIndex = %q", idx)
	}
	if u, p := sub.Indexes(); u != "" || p != "" {
		t.Fatalf("a subagent store's Indexes = %q, %q", u, p)
	}
	hits, err := sub.Recall(ctx, RecallQuery{Query: "widgets"})
	if err != nil || len(hits) == 0 {
		t.Fatalf("subagent recall: %v, %v", hits, err)
	}
	for _, h := range hits {
		if !strings.HasPrefix(h.Memory.Name, "sub-") || h.Memory.Agent != "reviewer" || h.Memory.Scope != ScopeProject {
			t.Fatalf("subagent recall found %+v", h.Memory)
		}
	}
	if _, err := sub.Get(ctx, "main-style"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("subagent Get of a main memory: %v", err)
	}
	if _, err := sub.Forget(ctx, "main-build"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("subagent Forget of a main memory: %v", err)
	}

	// The main memory sees none of it.
	ms, _, err = main.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 {
		t.Fatalf("main List = %v", ms)
	}
	for _, n := range recallNames(t, main, RecallQuery{Query: "widgets reviewer notes"}) {
		if strings.HasPrefix(n, "sub-") {
			t.Fatalf("main recall found the subagent's %q", n)
		}
	}
	if u, p := main.Indexes(); strings.Contains(u+p, "sub-") {
		t.Fatalf("main Indexes show the subagent's memories: %q %q", u, p)
	}

	// Purge of any scope empties the subagent's folder only.
	n, err := sub.Purge(ctx, ScopeUser)
	if err != nil || n != 4 {
		t.Fatalf("subagent Purge = %d, %v", n, err)
	}
	if ms, _, _ := main.List(ctx); len(ms) != 2 {
		t.Fatalf("main memories after the subagent's purge: %v", ms)
	}
	if _, err := os.Stat(filepath.Join(folder, indexFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("subagent MEMORY.md after purge: %v", err)
	}
	// And the main purge leaves the subagent's folder alone.
	mustSave(t, sub, "kept", TypeUser, "Kept note", "body")
	if _, err := main.Purge(ctx, "all"); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Get(ctx, "kept"); err != nil {
		t.Fatalf("subagent memory after the main purge: %v", err)
	}
}

// TestAgentStoreLocal: local memories are kept out of a memory dir synced
// with git.
func TestAgentStoreLocal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newAgentStore(t, dir, ScopeLocal, "scratch")
	m := mustSave(t, s, "note", TypeProject, "A local note", "body")
	if m.Scope != ScopeLocal {
		t.Fatalf("scope %q", m.Scope)
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(s.AgentFolder()), ".gitignore"))
	if err != nil || !strings.Contains(string(data), "\n*\n") {
		t.Fatalf(".gitignore = %q, %v", data, err)
	}
	if hits := recallNames(t, s, RecallQuery{Query: "local note"}); len(hits) != 1 {
		t.Fatalf("recall = %v", hits)
	}
}

// TestAgentFolderLinkRefused: a link in the memory dir that would take a
// subagent's folder outside its scope folder is refused when the store
// opens and before every write.
func TestAgentFolderLinkRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "user"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "user", "agents")); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), Options{Dir: dir, Agent: "x", AgentScope: ScopeUser})
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("Open through a link out: %v", err)
	}

	// Planted after the store opened: the write is refused.
	s := newAgentStore(t, dir, ScopeProject, "y")
	if err := os.MkdirAll(filepath.Dir(s.AgentFolder()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, s.AgentFolder()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Save(context.Background(), Memory{Name: "n", Type: TypeUser, Description: "d", Body: "b"}); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("Save through a planted link: %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("written outside: %v", ents)
	}

	// A user folder that is itself a link (kept in a synced folder) is the
	// user's choice and followed.
	dir2, synced := t.TempDir(), t.TempDir()
	if err := os.Symlink(synced, filepath.Join(dir2, "user")); err != nil {
		t.Fatal(err)
	}
	s2 := newAgentStore(t, dir2, ScopeUser, "z")
	mustSave(t, s2, "n", TypeUser, "d", "b")
	if _, err := os.Stat(filepath.Join(synced, "agents", "z", "n.md")); err != nil {
		t.Fatal(err)
	}
}

// FuzzAgentFolderName: whatever the name, its folder is one path element
// that stays directly below the agents folder, and the mapping is stable.
func FuzzAgentFolderName(f *testing.F) {
	for _, s := range []string{"reviewer", "Plain-Name..", "../../etc", "a/b", `a\b`, "plugin:x", "con", "", ".", "名前", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := AgentFolderName(name)
		if got == "" || got == "." || got == ".." || strings.HasPrefix(got, ".") || strings.ContainsAny(got, `/\:`+"\x00") || len(got) > 64 {
			t.Fatalf("AgentFolderName(%q) = %q", name, got)
		}
		if AgentFolderName(name) != got {
			t.Fatalf("unstable for %q", name)
		}
		base := filepath.Join("/mem", "agents")
		if filepath.Dir(filepath.Join(base, got)) != base {
			t.Fatalf("AgentFolderName(%q) = %q leaves %s", name, got, base)
		}
	})
}
