package pgstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
	"github.com/clawseed/clawseed/runtime/session/sessiontest"
)

// TestConformance runs the session stores' conformance suite on
// PostgreSQL: the same tests as the files store's.
func TestConformance(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) sessiontest.Store { return openDB(t).Sessions() })
}

// TestOneReplicaDrivesASession: a session open on one replica cannot be
// opened on another; when the holder's connection dies (its process was
// killed) the lock goes with it, the session reads whole, another replica
// takes it, and the dead holder's writes fail instead of interleaving.
func TestOneReplicaDrivesASession(t *testing.T) {
	ctx := context.Background()
	url := pg.Database(t)
	a, b := replica(t, url).Sessions(), replica(t, url).Sessions()
	h := session.Header{ID: "20261122-031937-aaaaaa", Workspace: "/ws", Provider: "openai", Model: "m"}
	wa := a.Create(h)
	if err := wa.RecordMessage(providers.UserText("turn 1")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Open(ctx, h.ID); !errors.Is(err, session.ErrInUse) {
		t.Fatalf("Open on B while A has it: %v, want ErrInUse", err)
	}
	// A's process dies: the server ends its connections.
	if _, err := b.db.pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	var wb *session.Writer
	deadline := time.Now().Add(10 * time.Second)
	for {
		w, sess, err := b.Open(ctx, h.ID)
		if err == nil {
			if sess.MessageRecords != 1 {
				t.Errorf("B read %d messages, want 1", sess.MessageRecords)
			}
			wb = w
			break
		}
		if !errors.Is(err, session.ErrInUse) || time.Now().After(deadline) {
			t.Fatalf("Open on B after A died: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer wb.Close()
	if err := wb.RecordMessage(providers.UserText("turn 2 on B")); err != nil {
		t.Fatal(err)
	}
	if err := wa.RecordMessage(providers.UserText("late write of dead A")); err == nil {
		t.Error("A wrote after losing its lock")
	}
	if err := wa.RecordMessage(providers.UserText("and again")); err == nil {
		t.Error("A wrote after losing its lock")
	}
	wa.Close()
	sess, err := a.Load(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range sess.Messages {
		texts = append(texts, m.Text())
	}
	if strings.Join(texts, "|") != "turn 1|turn 2 on B" {
		t.Errorf("transcript %q", texts)
	}
}

// TestForceRemoveStopsTheHolder: a session removed with force while open
// is not written again by its holder.
func TestForceRemoveStopsTheHolder(t *testing.T) {
	ctx := context.Background()
	s := openDB(t).Sessions()
	h := session.Header{ID: "20261122-031937-bbbbbb", Workspace: "/ws"}
	w := s.Create(h)
	defer w.Close()
	if err := w.RecordMessage(providers.UserText("hi")); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(ctx, h.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := w.RecordMessage(providers.UserText("after")); err == nil {
		t.Error("the holder wrote into a removed session")
	}
	if _, err := s.Load(ctx, h.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Load: %v", err)
	}
}

// TestRecordsAreTheFileLines: the rows are the JSONL lines a files store
// writes for the same calls, byte for byte (so export is lossless).
func TestRecordsAreTheFileLines(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	now := func() time.Time { return time.Date(2026, 11, 22, 3, 19, 37, 0, time.UTC) }
	files := &session.Store{Dir: t.TempDir(), Now: now}
	pgs := db.Sessions()
	pgs.Now = now
	h := session.Header{ID: "20261122-031937-cccccc", Workspace: "/ws", Provider: "openai", Model: "m", Created: now()}
	for _, w := range []*session.Writer{files.Create(h), pgs.Create(h)} {
		for _, text := range []string{"hello <b>&</b> \x00 \xff", "second"} {
			if err := w.RecordMessage(providers.UserText(text)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.RecordUsage("m", providers.Usage{InputTokens: 3}); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	want, err := os.ReadFile(filepath.Join(files.Dir, h.ID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.pool.Query(ctx, "SELECT record::text FROM clawseed.records WHERE session_id = $1 ORDER BY seq", h.ID)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(lines, "\n") + "\n"; got != string(want) {
		t.Errorf("rows\n%s\nfile\n%s", got, want)
	}
}
