package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/internal/flock"
)

// distillDay is "today" in the distillation tests: the logs of the days
// before it are distilled, its own is not.
var distillDay = time.Date(2025, 2, 4, 12, 0, 0, 0, time.UTC)

// writeLogs writes logs/DAY.md for each day with one note.
func writeLogs(t *testing.T, s *Store, days ...string) {
	t.Helper()
	if err := os.MkdirAll(s.LogsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range days {
		text := "# " + d + "\n\n- 10:00 note of " + d + "\n"
		if err := os.WriteFile(filepath.Join(s.LogsDir(), d+".md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// scriptedModel answers with the given texts in turn and records what it
// was asked; more requests than answers fail the test.
type scriptedModel struct {
	t        *testing.T
	answers  []string
	requests [][]string
}

func (m *scriptedModel) ask(ctx context.Context, system string, messages []string) (string, error) {
	if system != distillSystem {
		m.t.Errorf("system prompt %q", system)
	}
	m.requests = append(m.requests, slices.Clone(messages))
	if len(m.requests) > len(m.answers) {
		m.t.Fatalf("unexpected model request %d:\n%s", len(m.requests), messages[len(messages)-1])
	}
	return m.answers[len(m.requests)-1], nil
}

// noModel fails the test if a request is made.
func noModel(t *testing.T) DistillModel {
	return func(context.Context, string, []string) (string, error) {
		t.Fatal("a model request was made")
		return "", nil
	}
}

const twoMemories = `{"memories": [
 {"name": "editor", "type": "user", "description": "Edits code with Helix", "content": "The user edits code with Helix."},
 {"name": "ci dashboard", "type": "reference", "description": "CI dashboard of this project", "content": "https://ci.example.com/proj"}
]}`

// snapshot maps every file under dir (but the lock files) to its hash.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".lock") {
			return err
		}
		data, err := os.ReadFile(path)
		sum := sha256.Sum256(data)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = hex.EncodeToString(sum[:])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDistill: three days of logs become topic files and MEMORY.md in one
// request that holds all three, the logs move to done/, today's log stays;
// a second run makes no request and changes no file.
func TestDistill(t *testing.T) {
	s := logStore(t, fixedClock(distillDay))
	ctx := context.Background()
	writeLogs(t, s, "2025-02-01", "2025-02-02", "2025-02-03", "2025-02-04")
	m := &scriptedModel{t: t, answers: []string{twoMemories}}
	res, err := s.Distill(ctx, DistillOptions{Model: m.ask})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"2025-02-01.md", "2025-02-02.md", "2025-02-03.md"}; !slices.Equal(res.Logs, want) || res.Requests != 1 {
		t.Fatalf("logs %v, requests %d; want %v, 1", res.Logs, res.Requests, want)
	}
	prompt := m.requests[0][0]
	for _, d := range []string{"2025-02-01", "2025-02-02", "2025-02-03"} {
		if !strings.Contains(prompt, "<log file=\"logs/"+d+".md\">\n# "+d+"\n\n- 10:00 note of "+d+"\n</log>") {
			t.Errorf("the request lacks the log of %s:\n%s", d, prompt)
		}
	}
	if strings.Contains(prompt, "2025-02-04") {
		t.Errorf("today's log is in the request")
	}
	if len(res.Memories) != 2 || !res.Memories[0].Created || res.Memories[1].Scope != ScopeProject {
		t.Fatalf("memories %+v", res.Memories)
	}
	got, err := s.Get(ctx, "editor")
	if err != nil || got.Body != "The user edits code with Helix." {
		t.Fatalf("editor: %+v, %v", got, err)
	}
	assertIndexesMatch(t, s)
	user, project := s.Indexes()
	if !strings.Contains(user, "- [editor](editor.md) — Edits code with Helix") || !strings.Contains(project, "ci dashboard") {
		t.Errorf("indexes:\n%s\n%s", user, project)
	}
	for _, d := range []string{"2025-02-01", "2025-02-02", "2025-02-03"} {
		if _, err := os.Stat(filepath.Join(s.LogsDir(), "done", d+".md")); err != nil {
			t.Errorf("log %s not in done/: %v", d, err)
		}
	}
	if _, err := os.Stat(filepath.Join(s.LogsDir(), "2025-02-04.md")); err != nil {
		t.Errorf("today's log moved: %v", err)
	}
	if _, err := os.Stat(s.pendingPath()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the journal is left: %v", err)
	}

	before := snapshot(t, s.Dir())
	res, err = s.Distill(ctx, DistillOptions{Model: noModel(t)})
	if err != nil || !res.Nothing() || res.Requests != 0 {
		t.Fatalf("second run: %+v, %v", res, err)
	}
	if after := snapshot(t, s.Dir()); !mapsEqual(before, after) {
		t.Errorf("the second run changed files:\n%v\n%v", before, after)
	}
}

// fixedChars is about what a request takes besides logs and content.
func fixedChars(t *testing.T, s *Store) int {
	t.Helper()
	p, err := s.distillPrompt(context.Background(), nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	return len(p.text) + len(distillSystem)
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestDistillUpdates: an existing memory shown with its content is
// replaced by the answer's; one over the budget (content not shown) gets
// the new facts appended; logs over the budget wait for the next run.
func TestDistillUpdates(t *testing.T) {
	s := logStore(t, fixedClock(distillDay))
	ctx := context.Background()
	mustSave(t, s, "editor", TypeUser, "Edits code with Vim", "The user edits code with Vim.")
	mustSave(t, s, "big", TypeUser, "A long memory", strings.Repeat("old fact. ", 500))
	long := strings.Repeat("x", 3000)
	writeLogs(t, s, "2025-02-01", "2025-02-02")
	for _, d := range []string{"2025-02-01", "2025-02-02"} {
		os.WriteFile(filepath.Join(s.LogsDir(), d+".md"), []byte("# "+d+"\n\n- 10:00 "+long+"\n"), 0o644)
	}
	m := &scriptedModel{t: t, answers: []string{`{"memories": [
		{"name": "editor", "type": "user", "description": "Edits code with Helix", "content": "The user edits code with Helix since 2025-02-01."},
		{"name": "big", "type": "user", "description": "A long memory", "content": "new fact."}]}`}}
	// Room for the first log (3,000 characters) and editor's content, not
	// for the second log or big's content (5,000).
	limit := fixedChars(t, s) + 4000
	res, err := s.Distill(ctx, DistillOptions{Model: m.ask, MaxChars: limit})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Logs, []string{"2025-02-01.md"}) || !slices.Equal(res.Left, []string{"2025-02-02.md"}) {
		t.Fatalf("logs %v, left %v", res.Logs, res.Left)
	}
	prompt := m.requests[0][0]
	if !strings.Contains(prompt, "content:\nThe user edits code with Vim.\n</memory>") || strings.Contains(prompt, "old fact.") ||
		!strings.Contains(prompt, "description: A long memory\ncontent not shown\n</memory>") {
		t.Fatalf("request:\n%s", prompt)
	}
	editor, _ := s.Get(ctx, "editor")
	big, _ := s.Get(ctx, "big")
	if editor.Body != "The user edits code with Helix since 2025-02-01." || editor.Description != "Edits code with Helix" {
		t.Errorf("editor: %+v", editor)
	}
	if !strings.HasSuffix(big.Body, "old fact.\n\nnew fact.") || strings.Count(big.Body, "new fact.") != 1 {
		t.Errorf("big: %q", big.Body[len(big.Body)-40:])
	}
	if res.Memories[0].Created || res.Memories[0].Appended || !res.Memories[1].Appended {
		t.Errorf("memories %+v", res.Memories)
	}
}

// TestDistillCrashResume: a run that stopped after any step of carrying
// out its plan is finished by the next run without a model request, and
// the result is the same as an uninterrupted run's: no memory twice, no
// appended content twice, every log in done/ once.
func TestDistillCrashResume(t *testing.T) {
	answer := `{"memories": [
		{"name": "editor", "type": "user", "description": "Edits code with Helix", "content": "The user edits code with Helix."},
		{"name": "big", "type": "user", "description": "A long memory", "content": "new fact."}]}`
	for _, stop := range []string{"journal", "first memory", "memories", "first log", "logs"} {
		t.Run(stop, func(t *testing.T) {
			s := logStore(t, fixedClock(distillDay))
			ctx := context.Background()
			mustSave(t, s, "big", TypeUser, "A long memory", strings.Repeat("old fact. ", 500))
			writeLogs(t, s, "2025-02-01", "2025-02-02")
			logs, err := s.readPendingLogs(ctx, DistillOptions{}, &DistillResult{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := s.distillPrompt(ctx, logs, fixedChars(t, s)+500) // big's content does not fit: appended
			if err != nil {
				t.Fatal(err)
			}
			ms, err := ParseDistillAnswer(answer)
			if err != nil {
				t.Fatal(err)
			}
			j, err := s.plan(ctx, p, ms)
			if err != nil {
				t.Fatal(err)
			}
			// The steps of carryOut, up to the crash.
			if err := s.writeJournal(j); err != nil {
				t.Fatal(err)
			}
			steps := map[string]int{"journal": 0, "first memory": 1, "memories": 2, "first log": 3, "logs": 4}[stop]
			for i, a := range j.Memories {
				if i < steps {
					mustSave(t, s, a.Name, a.Type, a.Description, a.Content)
				}
			}
			for i, l := range j.Logs {
				if steps > 2+i {
					if _, err := s.moveLog(ctx, l); err != nil {
						t.Fatal(err)
					}
				}
			}

			res, err := s.Distill(ctx, DistillOptions{Model: noModel(t)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Resumed != 2 || res.Requests != 0 || len(res.Logs) != 0 {
				t.Fatalf("result %+v", res)
			}
			big, _ := s.Get(ctx, "big")
			if strings.Count(big.Body, "new fact.") != 1 || strings.Count(big.Body, "old fact.") != 500 {
				t.Errorf("big after resume: %d new, %d old", strings.Count(big.Body, "new fact."), strings.Count(big.Body, "old fact."))
			}
			if _, err := s.Get(ctx, "editor"); err != nil {
				t.Error(err)
			}
			ents, _ := os.ReadDir(filepath.Join(s.LogsDir(), "done"))
			var done []string
			for _, e := range ents {
				done = append(done, e.Name())
			}
			if !slices.Equal(done, []string{"2025-02-01.md", "2025-02-02.md"}) {
				t.Errorf("done/: %v", done)
			}
			if _, err := os.Stat(s.pendingPath()); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("journal left: %v", err)
			}
			assertIndexesMatch(t, s)
			before := snapshot(t, s.Dir())
			if res, err := s.Distill(ctx, DistillOptions{Model: noModel(t)}); err != nil || !res.Nothing() {
				t.Fatalf("third run: %+v, %v", res, err)
			}
			if !mapsEqual(before, snapshot(t, s.Dir())) {
				t.Error("the third run changed files")
			}
		})
	}
}

// TestDistillLogs: a log written again after the model read it is not
// moved (the next run distils it); a copy of a distilled log is removed
// without a request; a log distilled before and written again with other
// content is distilled and kept under the next free name.
func TestDistillLogs(t *testing.T) {
	ctx := context.Background()
	t.Run("changed while distilled", func(t *testing.T) {
		s := logStore(t, fixedClock(distillDay))
		writeLogs(t, s, "2025-02-01")
		model := func(context.Context, string, []string) (string, error) {
			os.WriteFile(filepath.Join(s.LogsDir(), "2025-02-01.md"), []byte("# 2025-02-01\n\n- 10:00 changed\n"), 0o644)
			return `{"memories": []}`, nil
		}
		res, err := s.Distill(ctx, DistillOptions{Model: model})
		if err != nil || !slices.Equal(res.Changed, []string{"2025-02-01.md"}) {
			t.Fatalf("%+v, %v", res, err)
		}
		if _, err := os.Stat(filepath.Join(s.LogsDir(), "2025-02-01.md")); err != nil {
			t.Errorf("the changed log was moved: %v", err)
		}
	})
	t.Run("copy of a distilled log", func(t *testing.T) {
		s := logStore(t, fixedClock(distillDay))
		writeLogs(t, s, "2025-02-01")
		m := &scriptedModel{t: t, answers: []string{`{"memories": []}`}}
		if _, err := s.Distill(ctx, DistillOptions{Model: m.ask}); err != nil {
			t.Fatal(err)
		}
		writeLogs(t, s, "2025-02-01")
		res, err := s.Distill(ctx, DistillOptions{Model: noModel(t)})
		if err != nil || !slices.Equal(res.Duplicates, []string{"2025-02-01.md"}) || res.Requests != 0 {
			t.Fatalf("%+v, %v", res, err)
		}
		if _, err := os.Stat(filepath.Join(s.LogsDir(), "2025-02-01.md")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the copy is left: %v", err)
		}
	})
	t.Run("written again", func(t *testing.T) {
		s := logStore(t, fixedClock(distillDay))
		writeLogs(t, s, "2025-02-01")
		m := &scriptedModel{t: t, answers: []string{`{"memories": []}`, `{"memories": []}`}}
		if _, err := s.Distill(ctx, DistillOptions{Model: m.ask}); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(s.LogsDir(), "2025-02-01.md"), []byte("# 2025-02-01\n\n- 23:59 late\n"), 0o644)
		res, err := s.Distill(ctx, DistillOptions{Model: m.ask})
		if err != nil || len(res.Logs) != 1 || len(m.requests) != 2 {
			t.Fatalf("%+v, %v", res, err)
		}
		if data, err := os.ReadFile(filepath.Join(s.LogsDir(), "done", "2025-02-01-2.md")); err != nil || !strings.Contains(string(data), "late") {
			t.Errorf("done/2025-02-01-2.md: %q, %v", data, err)
		}
	})
}

// TestDistillAnswers: a malformed answer is asked again once, with the
// problem; a second one fails the run, which writes nothing and leaves the
// logs; a dry run asks but writes nothing.
func TestDistillAnswers(t *testing.T) {
	ctx := context.Background()
	t.Run("retry", func(t *testing.T) {
		s := logStore(t, fixedClock(distillDay))
		writeLogs(t, s, "2025-02-01")
		m := &scriptedModel{t: t, answers: []string{"Here you go!", twoMemories}}
		res, err := s.Distill(ctx, DistillOptions{Model: m.ask})
		if err != nil || res.Requests != 2 || len(res.Memories) != 2 {
			t.Fatalf("%+v, %v", res, err)
		}
		if r := m.requests[1]; len(r) != 3 || r[1] != "Here you go!" || !strings.Contains(r[2], "not the JSON object asked for") {
			t.Errorf("retry request %q", r)
		}
	})
	t.Run("twice wrong", func(t *testing.T) {
		s := logStore(t, fixedClock(distillDay))
		writeLogs(t, s, "2025-02-01")
		before := snapshot(t, s.Dir())
		m := &scriptedModel{t: t, answers: []string{"no", `{"memories": [{"name": "x"}]}`}}
		_, err := s.Distill(ctx, DistillOptions{Model: m.ask})
		if err == nil || !strings.Contains(err.Error(), "also after one retry") {
			t.Fatalf("err = %v", err)
		}
		if !mapsEqual(before, snapshot(t, s.Dir())) {
			t.Error("a failed run changed files")
		}
	})
	t.Run("dry run", func(t *testing.T) {
		s := logStore(t, fixedClock(distillDay))
		writeLogs(t, s, "2025-02-01")
		before := snapshot(t, s.Dir())
		m := &scriptedModel{t: t, answers: []string{twoMemories}}
		res, err := s.Distill(ctx, DistillOptions{Model: m.ask, DryRun: true})
		if err != nil || len(res.Memories) != 2 || !res.Memories[0].Created || len(res.Logs) != 1 {
			t.Fatalf("%+v, %v", res, err)
		}
		if !mapsEqual(before, snapshot(t, s.Dir())) {
			t.Error("a dry run changed files")
		}
	})
	t.Run("since", func(t *testing.T) {
		s := logStore(t, fixedClock(distillDay))
		writeLogs(t, s, "2025-02-01", "2025-02-02")
		m := &scriptedModel{t: t, answers: []string{`{"memories": []}`}}
		res, err := s.Distill(ctx, DistillOptions{Model: m.ask, Since: "2025-02-02"})
		if err != nil || !slices.Equal(res.Logs, []string{"2025-02-02.md"}) {
			t.Fatalf("%+v, %v", res, err)
		}
		if _, err := s.Distill(ctx, DistillOptions{Model: m.ask, Since: "02/02/2025"}); !errors.Is(err, ErrInvalid) {
			t.Errorf("a malformed --since: %v", err)
		}
	})
	t.Run("no logs folder", func(t *testing.T) {
		s := logStore(t, fixedClock(distillDay))
		res, err := s.Distill(ctx, DistillOptions{Model: noModel(t)})
		if err != nil || !res.Nothing() {
			t.Fatalf("%+v, %v", res, err)
		}
		if _, err := os.Stat(s.Dir()); err == nil {
			if ents, _ := os.ReadDir(s.Dir()); len(ents) > 0 {
				t.Errorf("a run without logs wrote %v", ents)
			}
		}
	})
}

// TestDistillExclusive: a second distillation at the same time is
// refused.
func TestDistillExclusive(t *testing.T) {
	s := logStore(t, fixedClock(distillDay))
	writeLogs(t, s, "2025-02-01")
	unlock, err := flock.TryLock(filepath.Join(s.LogsDir(), distillLockFile))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := s.Distill(context.Background(), DistillOptions{Model: noModel(t)}); !errors.Is(err, ErrDistillRunning) {
		t.Fatalf("err = %v", err)
	}
}
