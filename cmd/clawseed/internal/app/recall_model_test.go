package app

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/runtime/memory"
)

// recallFixture is a memory store with two memories saved on known days,
// and a model-based recaller over a scripted model whose full-text
// fallback is recorded.
type recallFixture struct {
	store  *memory.Store
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
	fts := func(ctx context.Context, text string, exclude []string) (string, []string) {
		f.ftsRan++
		return memoryRecaller(f.store)(ctx, text, exclude)
	}
	return modelRecaller(f.store, m, fts)
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
