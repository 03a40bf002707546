package app

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/cmd/clawseed/internal/config"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/runtime/memory"
	"github.com/clawseed/clawseed/skills"
	"github.com/clawseed/clawseed/subagents"
)

// recallFixture is a memory store with two memories saved on known days,
// and a model-based recaller over a scripted model whose full-text
// fallback is recorded; subs, when set, are the session's subagent
// memories.
type recallFixture struct {
	store  *memory.Store
	subs   *subagentMemories
	model  *providertest.Model
	log    bytes.Buffer
	usage  []string
	ftsRan int
	now    time.Time
}

func newRecallFixture(t *testing.T, responses ...providertest.Response) *recallFixture {
	t.Helper()
	f := &recallFixture{model: providertest.NewModel(responses...), now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	s, err := memory.Open(t.Context(), memory.Options{Dir: t.TempDir(), Workspace: "/home/u/proj",
		Now: func() time.Time { return f.now.Add(-3 * 24 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	f.store = s
	return f
}

func (f *recallFixture) save(t *testing.T, m memory.Memory) {
	t.Helper()
	if _, _, err := f.store.Save(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}

func (f *recallFixture) recaller(timeout time.Duration) func(ctx context.Context, text string, exclude []string) (string, []string) {
	m := recallModel{
		model: f.model, name: "small-model", now: func() time.Time { return f.now }, timeout: timeout,
		log: slog.New(slog.NewTextHandler(&f.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		addUsage: func(purpose, model string, u providers.Usage) {
			f.usage = append(f.usage, purpose+"|"+model)
		},
	}
	reach := f.subs.reach(f.store)
	fts := func(ctx context.Context, text string, exclude []string) (string, []string) {
		f.ftsRan++
		return memoryRecaller(reach)(ctx, text, exclude)
	}
	return modelRecaller(reach, m, fts)
}

// TestModelRecall: the side request carries the message and the manifest
// (runtime/memory's request, golden-tested there), the files the model
// names are attached with how long ago they were saved, once per session,
// and the request's usage counts as "memory recall".
func TestModelRecall(t *testing.T) {
	f := newRecallFixture(t,
		providertest.Response{Text: `["user/editor-preference.md"]`, Usage: &providers.Usage{InputTokens: 300, OutputTokens: 9}},
		providertest.Response{Text: `["user/editor-preference.md"]`})
	f.save(t, memory.Memory{Name: "Editor preference", Type: memory.TypeUser, Description: "The user edits in helix", Body: "Helix, with the default keymap."})
	f.save(t, memory.Memory{Name: "Deploy", Type: memory.TypeProject, Description: "make ship deploys to staging", Body: "Run make ship."})
	recall := f.recaller(0)

	block, used := recall(t.Context(), "which editor do I use?", nil)
	want := "<memory_context>\nMemories that may be relevant (verify before relying on them):\n\n" +
		"[user/editor-preference.md, saved 3 days ago] Editor preference — The user edits in helix\nHelix, with the default keymap.\n" +
		"</memory_context>\n\n"
	if block != want {
		t.Errorf("block:\n%s\nwant:\n%s", block, want)
	}
	if len(used) != 1 || filepath.Base(used[0]) != "editor-preference.md" || !filepath.IsAbs(used[0]) {
		t.Errorf("used = %q", used)
	}
	reqs := f.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	system, user, _ := memory.ModelRecallRequest("which editor do I use?", mustManifest(t, f.store, nil))
	if got := reqs[0]; got.Model != "small-model" || got.System != system || len(got.Messages) != 1 || got.Messages[0].Parts[0].Text != user ||
		len(got.Tools) != 0 || got.MaxTokens != modelRecallTokens {
		t.Errorf("request = %+v", got)
	}
	if !strings.Contains(user, "user/editor-preference.md (user, updated 2026-11-24): Editor preference — The user edits in helix") ||
		!strings.Contains(user, "/deploy.md (project, updated 2026-11-24): Deploy — make ship deploys to staging") {
		t.Errorf("manifest lacks a memory:\n%s", user)
	}
	if strings.Join(f.usage, ",") != "memory recall|small-model" || f.ftsRan != 0 {
		t.Errorf("usage %q, fts ran %d times", f.usage, f.ftsRan)
	}

	// Recalled once per session: the manifest leaves it out; the model
	// names it anyway, and it is ignored.
	block, used = recall(t.Context(), "and my editor?", used)
	if block != "" || used != nil {
		t.Errorf("second recall = %q, %q", block, used)
	}
	if reqs := f.model.Requests(); len(reqs) != 2 || strings.Contains(reqs[1].Messages[0].Parts[0].Text, "editor-preference.md") {
		t.Errorf("the recalled memory is still in the manifest")
	}
}

// withReviewer gives the fixture a subagent "reviewer" with `memory: user`
// and one memory of its own, and returns that memory.
func (f *recallFixture) withReviewer(t *testing.T) memory.Memory {
	t.Helper()
	cfg := config.Default()
	cfg.Home, cfg.Workspace, cfg.Memory.Dir = t.TempDir(), "/home/u/proj", f.store.Dir()
	cat := &subagents.Catalog{Agents: []*subagents.Definition{
		{Name: "plain", Description: "P.", Prompt: "p", Memory: "user", Source: skills.SourceUser},
		{Name: "reviewer", Description: "R.", Prompt: "r", Memory: "user", Source: skills.SourceUser},
	}}
	f.subs = newSubagentMemories(cfg, nil, f.store, cat)
	t.Cleanup(func() { f.subs.Close() })
	rev, err := f.subs.store(cat.Agents[1])
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := rev.Save(t.Context(), memory.Memory{Name: "Checks", Type: memory.TypeFeedback, Description: "Run go vet before approving", Body: "go vet ./..."})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestModelRecallSubagent: model-based recall reaches the own memory of a
// subagent the message names, as full-text recall does (one reach for
// both): its files are in the manifest named as the subagent's, read from
// its folder, and labelled in the block, even when the session's memory is
// empty; a message that does not name it reaches none of it.
func TestModelRecallSubagent(t *testing.T) {
	f := newRecallFixture(t,
		providertest.Response{Text: `["user/agents/reviewer/checks.md"]`},
		providertest.Response{Text: `["user/agents/reviewer/checks.md", "user/deploy.md"]`},
		providertest.Response{Status: 400, Error: "model not found"})
	checks := f.withReviewer(t)
	recall := f.recaller(0)

	// The session's memory is empty, and the message does not name the
	// reviewer: nothing to offer, no request.
	if block, used := recall(t.Context(), "what should I check before approving?", nil); block != "" || used != nil || len(f.model.Requests()) != 0 {
		t.Fatalf("without the name: %q, %q, %d requests", block, used, len(f.model.Requests()))
	}

	block, used := recall(t.Context(), "what does the reviewer check before approving?", nil)
	reqs := f.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	updated := checks.Updated.UTC().Format("2006-01-02")
	if user := reqs[0].Messages[0].Parts[0].Text; !strings.Contains(user, "<manifest>\n- user/agents/reviewer/checks.md (feedback, updated "+updated+"): subagent reviewer: Checks — Run go vet before approving\n</manifest>") {
		t.Errorf("manifest:\n%s", user)
	}
	if !strings.Contains(block, "\n[subagent reviewer: user/agents/reviewer/checks.md, saved ") || !strings.Contains(block, "] Checks — Run go vet before approving\ngo vet ./...\n") ||
		len(used) != 1 || used[0] != checks.Path || f.ftsRan != 0 {
		t.Errorf("block %q, used %q, fts %d", block, used, f.ftsRan)
	}

	// With the session's memory: both in one manifest, newest first, and
	// each file read from its own store.
	f.now = time.Now().Add(24 * time.Hour) // the session's memory is saved f.now-3 days, before the reviewer's
	f.save(t, memory.Memory{Name: "Deploy", Type: memory.TypeUser, Description: "make ship deploys", Body: "Run make ship."})
	block, used = recall(t.Context(), "Reviewer: how do we deploy and check?", nil)
	if user := f.model.Requests()[1].Messages[0].Parts[0].Text; !strings.Contains(user, "<manifest>\n- user/agents/reviewer/checks.md (") ||
		!strings.Contains(user, "subagent reviewer: Checks — Run go vet before approving\n- user/deploy.md (user, updated ") {
		t.Errorf("manifest:\n%s", user)
	}
	if !strings.Contains(block, "[subagent reviewer: user/agents/reviewer/checks.md, saved ") || !strings.Contains(block, "\n[user/deploy.md, saved 3 days ago] Deploy — make ship deploys\n") || len(used) != 2 {
		t.Errorf("block %q, used %q", block, used)
	}

	// The side request fails: full-text recall answers, over the same reach.
	block, _ = recall(t.Context(), "what does the reviewer check before approving?", nil)
	if f.ftsRan != 1 || !strings.Contains(block, "[subagent reviewer: user/agents/reviewer/checks.md, updated "+updated+"] Checks") {
		t.Errorf("fallback: fts %d, block %q", f.ftsRan, block)
	}
}

// TestRecallUnionManifest: past the limit, the named subagents' memories
// are kept before the session's newer ones; the result stays newest first.
func TestRecallUnionManifest(t *testing.T) {
	f := newRecallFixture(t)
	f.now = time.Now().Add(30 * 24 * time.Hour) // the session's memories are newer than the reviewer's
	f.withReviewer(t)
	f.save(t, memory.Memory{Name: "Deploy", Type: memory.TypeUser, Description: "d", Body: "b"})
	f.save(t, memory.Memory{Name: "Editor", Type: memory.TypeUser, Description: "d", Body: "b"})
	u := f.subs.reach(f.store)("ask the reviewer")
	for _, tt := range []struct {
		limit int
		want  string
	}{
		{0, "user/deploy.md user/editor.md user/agents/reviewer/checks.md"},
		{2, "user/deploy.md user/agents/reviewer/checks.md"},
		{1, "user/agents/reviewer/checks.md"},
	} {
		es, err := u.Manifest(t.Context(), nil, tt.limit)
		var files []string
		for _, e := range es {
			files = append(files, e.File)
		}
		if got := strings.Join(files, " "); err != nil || got != tt.want {
			t.Errorf("limit %d: %q, %v; want %q", tt.limit, got, err, tt.want)
		}
	}
	if _, err := u.ReadEntry("user/agents/plain/x.md"); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("an unnamed subagent's file: %v", err)
	}
}

// TestModelRecallNoMemories: without memories no request is made.
func TestModelRecallNoMemories(t *testing.T) {
	f := newRecallFixture(t)
	block, used := f.recaller(0)(t.Context(), "which editor do I use?", nil)
	if block != "" || used != nil || len(f.model.Requests()) != 0 || f.ftsRan != 0 {
		t.Errorf("recall = %q, %q; %d requests, fts %d", block, used, len(f.model.Requests()), f.ftsRan)
	}
}

// TestModelRecallFallsBack: a failing request, a hanging one, a tool call
// or an answer of neither form falls back to full-text recall, logged at
// debug level; the turn goes on.
func TestModelRecallFallsBack(t *testing.T) {
	for _, tt := range []struct {
		name string
		resp providertest.Response
	}{
		{"error", providertest.Response{Status: 400, Error: "model not found"}},
		{"timeout", providertest.Response{Text: "[", Hang: true}},
		{"tool call", providertest.Response{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{"path": "x"}`}}}},
		{"no answer", providertest.Response{Text: "  "}},
		{"broken json", providertest.Response{Text: `["user/editor-preference.md"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newRecallFixture(t, tt.resp)
			f.save(t, memory.Memory{Name: "Editor preference", Type: memory.TypeUser, Description: "The user edits in helix", Body: "Helix."})
			block, used := f.recaller(100*time.Millisecond)(t.Context(), "which editor do I prefer?", nil)
			if f.ftsRan != 1 || !strings.Contains(block, "[user/editor-preference.md, updated ") || len(used) != 1 {
				t.Errorf("fts ran %d times; block %q", f.ftsRan, block)
			}
			if !strings.Contains(f.log.String(), "Model recall failed; using full-text recall") {
				t.Errorf("log:\n%s", f.log.String())
			}
		})
	}
}

// TestModelRecallUnknownNames: names that are not memories of the manifest
// are ignored; none left is no block (and no fallback: the model answered).
func TestModelRecallUnknownNames(t *testing.T) {
	f := newRecallFixture(t, providertest.Response{Text: "user/passwords.md\n../../etc/passwd.md\n"})
	f.save(t, memory.Memory{Name: "Editor preference", Type: memory.TypeUser, Description: "The user edits in helix", Body: "Helix."})
	block, used := f.recaller(0)(t.Context(), "which editor?", nil)
	if block != "" || used != nil || f.ftsRan != 0 {
		t.Errorf("recall = %q, %q, fts %d", block, used, f.ftsRan)
	}
}

func TestSavedAgo(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		updated time.Time
		want    string
	}{
		{now.Add(-time.Hour), "saved today"},
		{now.Add(time.Hour), "saved today"}, // a clock ahead
		{now.Add(-25 * time.Hour), "saved yesterday"},
		{now.Add(-3*24*time.Hour - time.Minute), "saved 3 days ago"},
		{now.AddDate(-1, 0, 0), "saved 365 days ago"},
	} {
		if got := savedAgo(tt.updated, now); got != tt.want {
			t.Errorf("savedAgo(%v) = %q, want %q", tt.updated, got, tt.want)
		}
	}
}

func mustManifest(t *testing.T, s *memory.Store, exclude []string) []memory.ManifestEntry {
	t.Helper()
	es, err := s.Manifest(t.Context(), exclude, memory.MaxManifestEntries)
	if err != nil {
		t.Fatal(err)
	}
	return es
}
