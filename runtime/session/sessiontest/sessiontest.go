// Package sessiontest is the conformance suite of the session stores: the
// same table of tests runs against the JSONL files (session.Files) and
// PostgreSQL (runtime/pgstore), so a session behaves the same whichever
// keeps it. A store's session is checked against the one a files store
// gives for the same calls.
package sessiontest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// Store is what the suite tests: the contract session.Files and
// pgstore.Sessions share.
type Store = session.Backend

// A test is one conformance test.
type test struct {
	name string
	run  func(t *testing.T, s Store)
}

// Run runs every conformance test, each on a new empty store from
// newStore.
func Run(t *testing.T, newStore func(t *testing.T) Store) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, newStore(t))
		})
	}
}

var tests = []test{
	{"RecordTypesRoundTrip", testRoundTrip},
	{"NothingStoredBeforeFirstMessage", testLazy},
	{"OpenAppends", testOpenAppends},
	{"OneWriterPerSession", testInUse},
	{"CreateExisting", testCreateExisting},
	{"ListNewestFirst", testList},
	{"LatestPerWorkspace", testLatest},
	{"ResolvePrefix", testResolve},
	{"Remove", testRemove},
	{"Summary", testSummary},
	{"InvalidIDs", testInvalidIDs},
	{"ClosedWriter", testClosed},
	{"ConcurrentRecords", testConcurrentRecords},
	{"ConcurrentSessions", testConcurrentSessions},
	{"OddText", testOddText},
	{"ExportImport", testExportImport},
	{"ImportDamaged", testImportDamaged},
}

var ctx = context.Background()

// header is a session header of workspace ws.
func header(id, ws string) session.Header {
	return session.Header{ID: id, Workspace: ws, Provider: "openai", Model: "gpt-test", Trust: "trusted",
		Created: time.Date(2026, 11, 22, 3, 19, 37, 0, time.UTC)}
}

// step is one call on a Writer.
type step func(w *session.Writer) error

func msg(m providers.Message) step {
	return func(w *session.Writer) error { return w.RecordMessage(m) }
}

// everything records every kind of record, a message first.
var everything = []step{
	msg(providers.UserText("[2026-11-22 03:19 +00:00] read go.mod")),
	func(w *session.Writer) error {
		return w.RecordSkill(session.SkillChange{Action: session.ActionActivate, Name: "go", Args: "-v", Hash: "h1"})
	},
	func(w *session.Writer) error { return w.RecordRecall([]string{"topics/go.md", "user.md"}) },
	msg(providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{
		{Type: providers.PartReasoning, Text: "look first", Signature: "sig"},
		// A Responses reasoning item: resumed, the session echoes it.
		{Type: providers.PartReasoning, Text: "**Plan**", Item: &providers.ReasoningItem{ID: "rs_1", Encrypted: "gAAAA==",
			Summary: []string{"**Plan**"}, Origin: "https://api.openai.com"}},
		{Type: providers.PartText, Text: "Reading it."},
		{Type: providers.PartToolCall, ToolCall: &providers.ToolCall{ID: "c1", Name: "file_read", Args: `{"path": "go.mod"}`}},
	}}),
	msg(providers.Message{Role: providers.RoleUser, Parts: []providers.Part{
		{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: "c1", Name: "file_read", Content: "module x\n"}},
	}}),
	func(w *session.Writer) error {
		return w.RecordUsage("gpt-test", providers.Usage{InputTokens: 100, OutputTokens: 20, CachedInputTokens: 50, CacheWriteTokens: 9, ReasoningTokens: 12})
	},
	func(w *session.Writer) error {
		return w.RecordPurposeUsage("memory extraction", "gpt-mini", providers.Usage{InputTokens: 7, OutputTokens: 1})
	},
	func(w *session.Writer) error {
		return w.RecordFork(session.Fork{Skill: "review", Model: "gpt-test", Status: "ok",
			Messages: []providers.Message{providers.UserText("review"), providers.AssistantText("fine")}})
	},
	func(w *session.Writer) error {
		return w.RecordModel(session.ModelChange{Name: "fast", Provider: "anthropic", Model: "claude-fast"})
	},
	func(w *session.Writer) error {
		return w.RecordSkill(session.SkillChange{Action: session.ActionDeactivate, Name: "go"})
	},
	func(w *session.Writer) error {
		return w.RecordTodos([]session.Todo{{Content: "Read go.mod", Status: session.TodoCompleted}, {Content: "Answer", Status: session.TodoInProgress}})
	},
	msg(providers.AssistantText("It is module x. <b>&</b>")),
	func(w *session.Writer) error {
		return w.RecordCompaction(session.Compaction{Summary: "<compaction_summary>x</compaction_summary>", Replaced: 3,
			TokensBefore: 900, TokensAfter: 100, Source: session.CompactSummaryRequest, Lead: 1,
			Messages: []providers.Message{providers.UserText("<compaction_summary>x</compaction_summary>"), providers.AssistantText("It is module x. <b>&</b>")}})
	},
	msg(providers.UserText("[2026-11-22 03:20 +00:00] thanks")),
}

// write creates session id in s with steps and closes it.
func write(t *testing.T, s Store, h session.Header, steps ...step) {
	t.Helper()
	w := s.Create(h)
	for i, st := range steps {
		if err := st(w); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// reference is the session a files store keeps for the same steps.
func reference(t *testing.T, h session.Header, steps ...step) *session.Session {
	t.Helper()
	ref := session.Files{Store: &session.Store{Dir: filepath.Join(t.TempDir(), "reference")}}
	write(t, ref, h, steps...)
	sess, err := ref.Load(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// same compares two loaded sessions, apart from where and when they were
// stored.
func same(t *testing.T, want, got *session.Session) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(session.Session{}, "Path", "Updated"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("session differs from the files store's (-files +this)\n%s", diff)
	}
}

func testRoundTrip(t *testing.T, s Store) {
	h := header("20261122-031937-aaaaaa", "/ws")
	write(t, s, h, everything...)
	got, err := s.Load(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, reference(t, h, everything...), got)
	if len(got.Warnings) != 0 {
		t.Errorf("warnings: %v", got.Warnings)
	}
	if got.Records != len(everything)+1 {
		t.Errorf("%d records, want %d", got.Records, len(everything)+1)
	}
}

func testLazy(t *testing.T, s Store) {
	h := header("20261122-031937-bbbbbb", "/ws")
	write(t, s, h, func(w *session.Writer) error {
		return w.RecordSkill(session.SkillChange{Action: session.ActionActivate, Name: "go"})
	})
	if _, err := s.Load(ctx, h.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Load of a session without messages: %v, want ErrNotFound", err)
	}
	if infos, err := s.List(ctx); err != nil || len(infos) != 0 {
		t.Errorf("List = %v, %v; want nothing", infos, err)
	}
	// Records before the first message follow the header, in order.
	steps := []step{
		func(w *session.Writer) error {
			return w.RecordSkill(session.SkillChange{Action: session.ActionActivate, Name: "go"})
		},
		func(w *session.Writer) error {
			return w.RecordModel(session.ModelChange{Name: "fast", Model: "m2"})
		},
		msg(providers.UserText("hi")),
	}
	h.ID = "20261122-031937-cccccc"
	write(t, s, h, steps...)
	got, err := s.Load(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, reference(t, h, steps...), got)
}

func testOpenAppends(t *testing.T, s Store) {
	h := header("20261122-031937-dddddd", "/ws")
	first, second := everything[:5], everything[5:]
	write(t, s, h, first...)
	w, sess, err := s.Open(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, reference(t, h, first...), sess)
	if w.ID() != h.ID {
		t.Errorf("writer id %q", w.ID())
	}
	for i, st := range second {
		if err := st(w); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, reference(t, h, everything...), got)
}

func testInUse(t *testing.T, s Store) {
	h := header("20261122-031937-eeeeee", "/ws")
	w := s.Create(h)
	if err := w.RecordMessage(providers.UserText("hi")); err != nil {
		t.Fatal(err)
	}
	// Created: locked from the first message.
	if busy, err := s.InUse(ctx, h.ID); err != nil || !busy {
		t.Errorf("InUse while created = %v, %v; want true", busy, err)
	}
	if _, _, err := s.Open(ctx, h.ID); !errors.Is(err, session.ErrInUse) {
		t.Errorf("Open while created: %v, want ErrInUse", err)
	}
	if err := s.Remove(ctx, h.ID, false); !errors.Is(err, session.ErrInUse) {
		t.Errorf("Remove while open: %v, want ErrInUse", err)
	}
	w.Close()
	w2, _, err := s.Open(ctx, h.ID)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	// Opened: locked until closed.
	if _, _, err := s.Open(ctx, h.ID); !errors.Is(err, session.ErrInUse) {
		t.Errorf("second Open: %v, want ErrInUse", err)
	}
	if _, err := s.Load(ctx, h.ID); err != nil {
		t.Errorf("Load while open: %v", err) // reading is always allowed
	}
	w2.Close()
	if busy, err := s.InUse(ctx, h.ID); err != nil || busy {
		t.Errorf("InUse after Close = %v, %v; want false", busy, err)
	}
	if _, err := s.InUse(ctx, "20261122-031937-nothere"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("InUse of no session: %v, want ErrNotFound", err)
	}
	w3, _, err := s.Open(ctx, h.ID)
	if err != nil {
		t.Fatalf("Open after the second Close: %v", err)
	}
	w3.Close()
}

func testCreateExisting(t *testing.T, s Store) {
	h := header("20261122-031937-ffffff", "/ws")
	write(t, s, h, msg(providers.UserText("first")))
	w := s.Create(h)
	if err := w.RecordMessage(providers.UserText("second")); err == nil {
		t.Error("a second Create of the same id stored a message")
	}
	w.Close()
	got, err := s.Load(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, reference(t, h, msg(providers.UserText("first"))), got)
}

func testList(t *testing.T, s Store) {
	ids := []string{"20261122-031937-000001", "20261122-031937-000003", "20261122-031937-000002"}
	for i, id := range ids {
		ws := "/ws/a"
		if i == 1 {
			ws = "/ws/b"
		}
		steps := []step{msg(providers.UserText("[2026-11-22 03:19 +00:00] task   " + id + "\nsecond line"))}
		if i == 2 {
			steps = append(steps, func(w *session.Writer) error {
				return w.RecordModel(session.ModelChange{Name: "fast", Provider: "anthropic", Model: "claude-fast"})
			}, msg(providers.AssistantText("ok")))
		}
		write(t, s, header(id, ws), steps...)
		time.Sleep(20 * time.Millisecond) // update times apart
	}
	infos, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range infos {
		got = append(got, in.ID)
		if in.Err != "" {
			t.Errorf("%s: %s", in.ID, in.Err)
		}
		if in.Updated.IsZero() || !in.Created.Equal(header("", "").Created) {
			t.Errorf("%s: created %v, updated %v", in.ID, in.Created, in.Updated)
		}
	}
	want := []string{ids[2], ids[1], ids[0]} // newest first
	if !slices.Equal(got, want) {
		t.Fatalf("List order %v, want %v", got, want)
	}
	last := infos[0]
	if last.Workspace != "/ws/a" || last.Provider != "anthropic" || last.Model != "claude-fast" || last.Messages != 2 ||
		last.Title != "task "+ids[2]+" second line" {
		t.Errorf("info %+v", last)
	}
}

func testLatest(t *testing.T, s Store) {
	write(t, s, header("20261122-031937-a00001", "/ws/a"), msg(providers.UserText("1")))
	time.Sleep(20 * time.Millisecond)
	write(t, s, header("20261122-031937-a00002", "/ws/a/"), msg(providers.UserText("2")))
	time.Sleep(20 * time.Millisecond)
	write(t, s, header("20261122-031937-b00001", "/ws/b"), msg(providers.UserText("3")))
	for _, tt := range []struct{ ws, want string }{
		{"/ws/a", "20261122-031937-a00002"},
		{"/ws/a/.", "20261122-031937-a00002"},
		{"/ws/b", "20261122-031937-b00001"},
	} {
		if got, err := s.Latest(ctx, tt.ws); err != nil || got != tt.want {
			t.Errorf("Latest(%s) = %q, %v; want %s", tt.ws, got, err, tt.want)
		}
	}
	if _, err := s.Latest(ctx, "/ws/c"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Latest of a workspace without sessions: %v, want ErrNotFound", err)
	}
}

func testResolve(t *testing.T, s Store) {
	for _, id := range []string{"20261122-031937-abc111", "20261122-031937-abc222", "20261122-031937-abd333", "x", "x_y", "x%y"} {
		write(t, s, header(id, "/ws"), msg(providers.UserText(id)))
	}
	for _, tt := range []struct {
		in, want  string
		err       error
		ambiguous []string
	}{
		{in: "20261122-031937-abc111", want: "20261122-031937-abc111"},
		{in: "20261122-031937-abd", want: "20261122-031937-abd333"},
		{in: "20261122-031937-abc", ambiguous: []string{"20261122-031937-abc111", "20261122-031937-abc222"}},
		{in: "x", want: "x"}, // an exact id wins over the ids it prefixes
		{in: "x_", want: "x_y"},
		{in: "x%", want: "x%y"}, // no LIKE wildcards
		{in: "20261122-031937-z", err: session.ErrNotFound},
		{in: "../20261122", err: session.ErrInvalidID},
		{in: "", err: session.ErrInvalidID},
	} {
		got, err := s.Resolve(ctx, tt.in)
		var amb *session.AmbiguousError
		switch {
		case tt.ambiguous != nil:
			if !errors.As(err, &amb) || !slices.Equal(amb.Matches, tt.ambiguous) {
				t.Errorf("Resolve(%q) = %q, %v; want ambiguous %v", tt.in, got, err, tt.ambiguous)
			}
		case tt.err != nil:
			if !errors.Is(err, tt.err) {
				t.Errorf("Resolve(%q) = %q, %v; want %v", tt.in, got, err, tt.err)
			}
		case err != nil || got != tt.want:
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func testRemove(t *testing.T, s Store) {
	h := header("20261122-031937-r00001", "/ws")
	w := s.Create(h)
	if err := w.RecordMessage(providers.UserText("hi")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSummary(session.Summary{Messages: 1}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := s.Remove(ctx, h.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx, h.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Load after Remove: %v", err)
	}
	if _, ok, err := s.ReadSummary(ctx, h.ID); ok || err != nil {
		t.Errorf("summary after Remove: %v, %v", ok, err)
	}
	if err := s.Remove(ctx, h.ID, false); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("second Remove: %v, want ErrNotFound", err)
	}
	// force removes a session in use.
	h.ID = "20261122-031937-r00002"
	w = s.Create(h)
	if err := w.RecordMessage(providers.UserText("hi")); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := s.Remove(ctx, h.ID, true); err != nil {
		t.Fatalf("Remove --force: %v", err)
	}
	if _, err := s.Load(ctx, h.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Load after Remove --force: %v", err)
	}
}

func testSummary(t *testing.T, s Store) {
	h := header("20261122-031937-s00001", "/ws")
	w := s.Create(h)
	sum := session.Summary{Messages: 2, Tokens: 300, Updated: time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC),
		Sections: []session.SummarySection{{Name: "Task", Body: "Read go.mod <b>&</b>"}, {Name: "Next steps", Body: "none"}}}
	if err := w.WriteSummary(sum); err == nil {
		t.Error("WriteSummary before the first message succeeded")
	}
	if _, ok, err := w.ReadSummary(); ok || err != nil {
		t.Errorf("ReadSummary before any: %v, %v", ok, err)
	}
	if err := w.RecordMessage(providers.UserText("hi")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSummary(sum); err != nil {
		t.Fatal(err)
	}
	got, ok, err := w.ReadSummary()
	if err != nil || !ok {
		t.Fatalf("ReadSummary: %v, %v", ok, err)
	}
	want := session.ParseSummary(sum.Render()) // what every store reads back
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary (-want +got)\n%s", diff)
	}
	sum.Messages = 3
	if err := w.WriteSummary(sum); err != nil { // replaced whole
		t.Fatal(err)
	}
	w.Close()
	if err := w.WriteSummary(sum); err == nil {
		t.Error("WriteSummary after Close succeeded")
	}
	got, ok, err = s.ReadSummary(ctx, h.ID)
	if err != nil || !ok || got.Messages != 3 {
		t.Errorf("store's ReadSummary = %+v, %v, %v", got, ok, err)
	}
	if p, err := s.SummaryPath(h.ID); err != nil || p == "" || p != w.SummaryPath() {
		t.Errorf("SummaryPath = %q, %v; writer's %q", p, err, w.SummaryPath())
	}
}

func testInvalidIDs(t *testing.T, s Store) {
	for _, id := range []string{"", "../x", "a/b", `a\b`, ".hidden", "a..b", "a\x00b", strings.Repeat("x", 201)} {
		w := s.Create(header(id, "/ws"))
		if err := w.RecordMessage(providers.UserText("x")); !errors.Is(err, session.ErrInvalidID) {
			t.Errorf("Create(%q).RecordMessage = %v, want ErrInvalidID", id, err)
		}
		w.Close()
		if _, _, err := s.Open(ctx, id); !errors.Is(err, session.ErrInvalidID) {
			t.Errorf("Open(%q) = %v, want ErrInvalidID", id, err)
		}
		if _, err := s.Load(ctx, id); !errors.Is(err, session.ErrInvalidID) {
			t.Errorf("Load(%q) = %v, want ErrInvalidID", id, err)
		}
		if err := s.Remove(ctx, id, true); !errors.Is(err, session.ErrInvalidID) {
			t.Errorf("Remove(%q) = %v, want ErrInvalidID", id, err)
		}
		if _, _, err := s.ReadSummary(ctx, id); !errors.Is(err, session.ErrInvalidID) {
			t.Errorf("ReadSummary(%q) = %v, want ErrInvalidID", id, err)
		}
	}
}

func testClosed(t *testing.T, s Store) {
	h := header("20261122-031937-c00001", "/ws")
	w := s.Create(h)
	if err := w.RecordMessage(providers.UserText("hi")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.RecordMessage(providers.UserText("late")); err == nil {
		t.Error("RecordMessage after Close succeeded")
	}
	got, err := s.Load(ctx, h.ID)
	if err != nil || got.MessageRecords != 1 {
		t.Errorf("Load = %v, %v", got, err)
	}
}

func testConcurrentRecords(t *testing.T, s Store) {
	h := header("20261122-031937-k00001", "/ws")
	w := s.Create(h)
	if err := w.RecordMessage(providers.UserText("start")); err != nil {
		t.Fatal(err)
	}
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := w.RecordUsage(fmt.Sprintf("m%d", i%3), providers.Usage{InputTokens: 1, OutputTokens: i}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	w.Close()
	got, err := s.Load(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Records != n+2 || got.Usage.InputTokens != n || got.Usage.OutputTokens != n*(n-1)/2 {
		t.Errorf("%d records, usage %+v; want %d records, %d in, %d out", got.Records, got.Usage, n+2, n, n*(n-1)/2)
	}
}

func testConcurrentSessions(t *testing.T, s Store) {
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			h := header(fmt.Sprintf("20261122-031937-p%05d", i), fmt.Sprintf("/ws/%d", i%4))
			w := s.Create(h)
			defer w.Close()
			for j := range 5 {
				if err := w.RecordMessage(providers.UserText(fmt.Sprintf("%d.%d", i, j))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	infos, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != n {
		t.Fatalf("%d sessions, want %d", len(infos), n)
	}
	for _, in := range infos {
		if in.Messages != 5 || in.Err != "" {
			t.Errorf("%s: %d messages, %s", in.ID, in.Messages, in.Err)
		}
	}
}

func testOddText(t *testing.T, s Store) {
	odd := []string{
		"nul \x00 byte", "invalid \xff\xfe utf-8", "<script>&amp;</script> \u2028 \u2029",
		"emoji 🦀 and combining é", "json \"quotes\" \\ back\\slash \\u0000", strings.Repeat("long line ", 20000),
		"\r\n\t control \x1b[31m red",
	}
	var steps []step
	for _, text := range odd {
		steps = append(steps, msg(providers.UserText(text)), msg(providers.AssistantText(text)))
	}
	h := header("20261122-031937-o00001", "/ws/ünïcode path")
	write(t, s, h, steps...)
	got, err := s.Load(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, reference(t, h, steps...), got)
}
