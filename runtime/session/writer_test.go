package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

// recordTypes returns the type of every line of a session file.
func recordTypes(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for line := range strings.Lines(string(data)) {
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		types = append(types, r.Type)
	}
	return types
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	w := s.Create(Header{ID: "20261122-031937-a1b2c3", Workspace: "/ws", Provider: "openai", Model: "gpt-test"})
	turn := toolTurn("first question")
	summary := providers.UserText("<compaction_summary>goals</compaction_summary>")
	steps := []struct {
		do    func() error
		lines int // lines in the file once the step returned
	}{
		{func() error {
			return w.RecordSkill(SkillChange{Action: ActionActivate, Name: "review", Args: "main", Hash: "h1"})
		}, 0},
		{func() error {
			return w.RecordUsage("gpt-test", providers.Usage{InputTokens: 10, OutputTokens: 5, CachedInputTokens: 2})
		}, 0},
		{func() error { return w.RecordMessage(turn[0]) }, 4},
		{func() error { return w.RecordMessage(turn[1]) }, 5},
		{func() error { return w.RecordMessage(turn[2]) }, 6},
		{func() error { return w.RecordMessage(turn[3]) }, 7},
		{func() error { return w.RecordSkill(SkillChange{Action: ActionActivate, Name: "lint"}) }, 8},
		{func() error {
			return w.RecordSkill(SkillChange{Action: ActionActivate, Name: "review", Args: "dev", Hash: "h2"})
		}, 9},
		{func() error {
			return w.RecordUsage("claude-test", providers.Usage{InputTokens: 20, OutputTokens: 7, CacheWriteTokens: 4})
		}, 10},
		{func() error {
			return w.RecordCompaction(Compaction{Summary: summary.Text(), Replaced: 3, TokensBefore: 900, TokensAfter: 120,
				Messages: []providers.Message{summary, turn[3]}})
		}, 11},
		{func() error { return w.RecordMessage(providers.UserText("second question")) }, 12},
		{func() error { return w.RecordMessage(providers.AssistantText("done")) }, 13},
		{func() error { return w.RecordSkill(SkillChange{Action: ActionDeactivate, Name: "lint"}) }, 14},
		{func() error {
			return w.RecordUsage("gpt-test", providers.Usage{InputTokens: 1, OutputTokens: 1, CachedInputTokens: 1})
		}, 15},
	}
	for i, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		// Each record is on disk, whole, when its method returns.
		data, err := os.ReadFile(w.Path())
		if st.lines == 0 {
			if !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("step %d: file exists before the first message (err %v)", i, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if n := bytes.Count(data, []byte("\n")); n != st.lines || !bytes.HasSuffix(data, []byte("\n")) {
			t.Fatalf("step %d: %d whole lines on disk, want %d", i, n, st.lines)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	wantTypes := []string{"header", "skill", "usage", "message", "message", "message", "message", "skill", "skill",
		"usage", "compaction", "message", "message", "skill", "usage"}
	if diff := cmp.Diff(wantTypes, recordTypes(t, w.Path())); diff != "" {
		t.Errorf("record order (-want +got):\n%s", diff)
	}

	got, err := s.Load(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	want := &Session{
		Header: Header{ID: "20261122-031937-a1b2c3", Created: base.Add(time.Second), Workspace: "/ws",
			Provider: "openai", Model: "gpt-test", Version: FormatVersion},
		Path:     w.Path(),
		Messages: []providers.Message{summary, turn[3], providers.UserText("second question"), providers.AssistantText("done")},
		Skills:   []SkillState{{Name: "review", Args: "dev", Hash: "h2"}},
		Usage:    providers.Usage{InputTokens: 31, OutputTokens: 13, CachedInputTokens: 3, CacheWriteTokens: 4},
		UsageByModel: []providers.ModelUsage{
			{Model: "claude-test", Usage: providers.Usage{InputTokens: 20, OutputTokens: 7, CacheWriteTokens: 4}},
			{Model: "gpt-test", Usage: providers.Usage{InputTokens: 11, OutputTokens: 6, CachedInputTokens: 3}},
		},
		Compactions:    1,
		Summary:        summary.Text(),
		Lead:           1,
		Records:        15,
		MessageRecords: 6,
		Title:          "first question",
		Updated:        fi.ModTime(),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
	// HTML stays readable in the file.
	if data, _ := os.ReadFile(w.Path()); !bytes.Contains(data, []byte("<compaction_summary>")) {
		t.Errorf("summary was escaped in the file")
	}
}

func TestLazyCreation(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	w := s.Create(Header{ID: "lazy", Workspace: "/ws"})
	if err := w.RecordSkill(SkillChange{Action: ActionActivate, Name: "review"}); err != nil {
		t.Fatal(err)
	}
	if err := w.RecordUsage("m", providers.Usage{InputTokens: 3}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := os.Stat(s.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a session without messages created %s (err %v)", s.Dir, err)
	}
	if err := w.RecordMessage(providers.UserText("late")); !errors.Is(err, errClosed) {
		t.Errorf("RecordMessage after Close: %v, want errClosed", err)
	}
	if infos, err := s.List(); err != nil || len(infos) != 0 {
		t.Errorf("List = %v, %v; want nothing", infos, err)
	}
}

func TestFileMode(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	s := newStore(t)
	path := writeSession(t, s, "mode", "/ws", providers.UserText("hi"))
	for _, c := range []struct {
		path string
		want fs.FileMode
	}{{s.Dir, 0o700}, {path, 0o600}} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != c.want {
			t.Errorf("%s: mode %v, want %v", c.path, got, c.want)
		}
	}
}

func TestOpenRepairsTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		tail     string
		messages int // in the session Open returns
		warnings int
	}{
		{"torn record", `{"type":"message","time":"2026-11-22T03:20:00Z","message":{"role":"us`, 4, 1},
		{"whole record without newline", `{"type":"message","time":"2026-11-22T03:20:00Z","message":{"role":"user","parts":[{"type":"text","text":"kept"}]}}`, 5, 0},
		{"no tail", "", 4, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			path := writeSession(t, s, "torn", "/ws", toolTurn("q")...)
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(tt.tail); err != nil {
				t.Fatal(err)
			}
			f.Close()

			w, sess, err := s.Open("torn")
			if err != nil {
				t.Fatal(err)
			}
			if len(sess.Messages) != tt.messages || len(sess.Warnings) != tt.warnings {
				t.Errorf("Open: %d messages, warnings %q; want %d and %d warnings", len(sess.Messages), sess.Warnings, tt.messages, tt.warnings)
			}
			if w.ID() != "torn" || w.Path() != path {
				t.Errorf("writer %q at %q", w.ID(), w.Path())
			}
			if err := w.RecordMessage(providers.UserText("after")); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := s.Load("torn")
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Warnings) != 0 {
				t.Errorf("warnings after repair: %q", got.Warnings)
			}
			if n := len(got.Messages); n != tt.messages+1 || got.Messages[n-1].Text() != "after" {
				t.Errorf("after append: %d messages, last %+v", n, got.Messages[n-1])
			}
			if types := recordTypes(t, path); types[0] != TypeHeader || strings.Count(strings.Join(types, " "), TypeHeader) != 1 {
				t.Errorf("record types %v: want one header, first", types)
			}
		})
	}
}

func TestOpenMissing(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	if _, _, err := s.Open("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Open(nope) = %v, want ErrNotFound", err)
	}
	if _, _, err := s.Open("../nope"); !errors.Is(err, ErrInvalidID) {
		t.Errorf("Open(../nope) = %v, want ErrInvalidID", err)
	}
}

func TestCreateRefusesExisting(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	path := writeSession(t, s, "dup", "/ws", providers.UserText("original"))
	before, _ := os.ReadFile(path)
	w := s.Create(Header{ID: "dup", Workspace: "/ws"})
	if err := w.RecordMessage(providers.UserText("clobber")); err == nil {
		t.Error("RecordMessage on an existing id succeeded")
	}
	w.Close()
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("existing session changed:\n%s", after)
	}
}

func TestWriterRejects(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	w := s.Create(Header{ID: "bad", Workspace: "/ws"})
	defer w.Close()
	for _, c := range []struct {
		name string
		err  error
	}{
		{"system role", w.RecordMessage(providers.Message{Role: "system", Parts: []providers.Part{{Type: providers.PartText, Text: "x"}}})},
		{"part without call", w.RecordMessage(providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{{Type: providers.PartToolCall}}})},
		{"skill action", w.RecordSkill(SkillChange{Action: "toggle", Name: "x"})},
		{"skill name", w.RecordSkill(SkillChange{Action: ActionActivate})},
	} {
		if c.err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
	if _, err := os.Stat(w.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("rejected records created the file (err %v)", err)
	}

	for _, id := range []string{"../escape", "a/b", ".hidden", ""} {
		w := s.Create(Header{ID: id})
		if err := w.RecordMessage(providers.UserText("x")); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Create(%q).RecordMessage = %v, want ErrInvalidID", id, err)
		}
		w.Close()
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(s.Dir), "escape.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an id escaped the store (err %v)", err)
	}
}

// TestReasoningItemRoundTrip: a Responses reasoning item (id, encrypted
// content, summary, issuing endpoint) is written with its message and
// loaded back unchanged, so that a resumed session echoes it; the
// reasoning tokens of the usage survive too.
func TestReasoningItemRoundTrip(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	item := &providers.ReasoningItem{ID: "rs_1", Encrypted: "gAAAA+/=", Summary: []string{"**Plan**", "Then act."},
		Origin: "https://api.openai.com"}
	answer := providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{
		{Type: providers.PartReasoning, Text: "**Plan**\n\nThen act.", Item: item},
		{Type: providers.PartText, Text: "Done."},
	}}
	w := s.Create(Header{ID: "20261127-120000-a1b2c3", Workspace: "/ws", Provider: "openai", Model: "gpt-5"})
	for _, m := range []providers.Message{providers.UserText("go"), answer} {
		if err := w.RecordMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.RecordUsage("gpt-5", providers.Usage{InputTokens: 10, OutputTokens: 8, ReasoningTokens: 6}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Load("20261127-120000-a1b2c3")
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Warnings) != 0 || len(sess.Messages) != 2 {
		t.Fatalf("loaded %d messages, warnings %v", len(sess.Messages), sess.Warnings)
	}
	if diff := cmp.Diff(answer, sess.Messages[1]); diff != "" {
		t.Errorf("answer (-written +loaded):\n%s", diff)
	}
	if u := sess.UsageByModel; len(u) != 1 || u[0].Usage.ReasoningTokens != 6 {
		t.Errorf("usage %+v", u)
	}
}
