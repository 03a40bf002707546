package memorytest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/runtime/memory"
)

// The recall tests: full-text recall, model-based recall's manifest and
// the reading of the files it names.

func testRecall(t *testing.T, e *env) {
	s := e.main()
	a := save(t, s, "Deploy to staging", memory.TypeProject, "How the staging deploy works", "Run make deploy ENV=staging after the tests pass.")
	b := save(t, s, "Release checklist", memory.TypeProject, "Steps before a release", "Tag, changelog, then deploy.")
	ed := save(t, s, "Editor", memory.TypeUser, "Uses vim", "Vim with default keys.")
	hits, err := s.Recall(ctx, memory.RecallQuery{Query: "How do I deploy to staging?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Memory.Path != a.Path || hits[1].Memory.Path != b.Path {
		t.Fatalf("recall: %+v", hits)
	}
	if hits[0].Score != 1 || hits[1].Score < 0.29 || hits[1].Score > 0.31 {
		t.Errorf("scores %v %v, want 1 and 0.3 (two words in the head; one of two in the body only)", hits[0].Score, hits[1].Score)
	}
	if hits[0].Snippet != a.Body || hits[0].Memory.Body != a.Body || hits[0].Memory.Scope != memory.ScopeProject {
		t.Errorf("hit %+v", hits[0])
	}
	for _, tt := range []struct {
		name string
		q    memory.RecallQuery
		want []string
	}{
		{"min score", memory.RecallQuery{Query: "deploy staging", MinScore: memory.DefaultMinScore + 0.1}, []string{a.Path}},
		{"limit", memory.RecallQuery{Query: "deploy staging", Limit: 1}, []string{a.Path}},
		{"exclude", memory.RecallQuery{Query: "deploy staging", Exclude: []string{a.Path}}, []string{b.Path}},
		{"type", memory.RecallQuery{Query: "deploy vim", Type: memory.TypeUser}, []string{ed.Path}},
		{"type of none", memory.RecallQuery{Query: "deploy vim", Type: memory.TypeFeedback}, nil},
		{"stop-words only", memory.RecallQuery{Query: "what do you think?"}, nil},
		{"no match", memory.RecallQuery{Query: "kubernetes"}, nil},
	} {
		hits, err := s.Recall(ctx, tt.q)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Memory.Path)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if _, err := s.Recall(ctx, memory.RecallQuery{Query: "deploy", Type: "secret"}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("recall of an unknown type: %v", err)
	}
	// Query syntax is text: quotes, operators and parentheses find words.
	for _, q := range []string{`"deploy" OR -staging`, `deploy & (staging | !x):*`, `deploy' staging\`} {
		if hits, err := s.Recall(ctx, memory.RecallQuery{Query: q}); err != nil || len(hits) == 0 || hits[0].Memory.Path != a.Path {
			t.Errorf("recall %q: %+v, %v", q, hits, err)
		}
	}
	long := save(t, s, "Long", memory.TypeUser, "A long body about zebras", strings.Repeat("zebra ", 300))
	hits, _ = s.Recall(ctx, memory.RecallQuery{Query: "zebras"})
	if len(hits) != 1 || hits[0].Memory.Path != long.Path || len([]rune(hits[0].Snippet)) != memory.SnippetChars || !strings.HasSuffix(hits[0].Snippet, "…") {
		t.Errorf("long body's snippet: %+v", hits)
	}
}

// testRecallTies: memories of equal score and equal length come by name
// (their files' order too), whatever the order they were saved in.
func testRecallTies(t *testing.T, e *env) {
	s := e.main()
	for _, n := range []string{"gamma", "alpha", "beta"} {
		save(t, s, n+" notes", memory.TypeUser, "Notes on "+n, "The release is on Friday.")
	}
	hits, err := s.Recall(ctx, memory.RecallQuery{Query: "release friday"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hits {
		got = append(got, h.Memory.Name)
	}
	if want := "alpha notes, beta notes, gamma notes"; strings.Join(got, ", ") != want {
		t.Errorf("ties: %q, want %q", strings.Join(got, ", "), want)
	}
}

// testRecallWords: a word's other forms are found (both backends stem).
func testRecallWords(t *testing.T, e *env) {
	s := e.main()
	m := save(t, s, "Testing", memory.TypeProject, "How the tests run", "Run the integration tests with -race.")
	for _, q := range []string{"tests", "test", "testing", "TESTS"} {
		hits, err := s.Recall(ctx, memory.RecallQuery{Query: q})
		if err != nil || len(hits) != 1 || hits[0].Memory.Path != m.Path {
			t.Errorf("recall %q: %+v, %v", q, hits, err)
		}
	}
}

func testManifest(t *testing.T, e *env) {
	s := e.main()
	a := save(t, s, "a", memory.TypeUser, "first", "")
	b := save(t, s, "b", memory.TypeProject, "second", "")
	c := save(t, s, "c", memory.TypeUser, "third", "")
	got, err := s.Manifest(ctx, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, m := range got {
		files = append(files, m.File)
	}
	want := []string{"user/c.md", projectKey + "/b.md", "user/a.md"}
	if fmt.Sprint(files) != fmt.Sprint(want) {
		t.Errorf("manifest %v, want %v (newest first)", files, want)
	}
	if got[0].Name != "c" || got[0].Description != "third" || got[0].Type != memory.TypeUser || !got[0].Updated.Equal(c.Updated) {
		t.Errorf("entry %+v", got[0])
	}
	got, _ = s.Manifest(ctx, []string{c.Path}, 1)
	if len(got) != 1 || got[0].Name != "b" {
		t.Errorf("manifest without c, limit 1: %+v", got)
	}
	if got, _ := s.Manifest(ctx, []string{a.Path, b.Path, c.Path}, 0); len(got) != 0 {
		t.Errorf("manifest excluding all: %+v", got)
	}
	// Equal times come by file.
	at := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	fixed := e.store(memory.Options{Workspace: "/home/u/src/fixed", Now: func() time.Time { return at }})
	save(t, fixed, "y", memory.TypeUser, "d", "")
	save(t, fixed, "x", memory.TypeUser, "d", "")
	got, _ = fixed.Manifest(ctx, nil, 2)
	if len(got) != 2 || got[0].File != "user/x.md" || got[1].File != "user/y.md" {
		t.Errorf("manifest of equal times: %+v", got)
	}
}

func testReadEntry(t *testing.T, e *env) {
	s := e.main()
	m := save(t, s, "Deploy", memory.TypeProject, "How to deploy", "make deploy")
	got, err := s.ReadEntry(projectKey + "/deploy.md")
	if err != nil || got.Path != m.Path || got.Body != "make deploy" || got.Scope != memory.ScopeProject {
		t.Errorf("ReadEntry: %+v, %v", got, err)
	}
	other := e.store(memory.Options{Workspace: "/home/u/src/other"})
	save(t, other, "Theirs", memory.TypeProject, "d", "")
	otherKey := "projects/" + memory.ProjectKey("/home/u/src/other")
	for _, f := range []string{
		otherKey + "/theirs.md", // another workspace's
		projectKey + "/MEMORY.md",
		projectKey + "/../" + otherKey + "/theirs.md",
		"../" + projectKey + "/deploy.md",
		"/" + projectKey + "/deploy.md",
		projectKey + "/deploy",
		"",
	} {
		if _, err := s.ReadEntry(f); !errors.Is(err, memory.ErrNotFound) {
			t.Errorf("ReadEntry %q: %v, want ErrNotFound", f, err)
		}
	}
	if _, err := s.ReadEntry(projectKey + "/missing.md"); err == nil {
		t.Error("ReadEntry of a memory that is not there: no error")
	}
}
