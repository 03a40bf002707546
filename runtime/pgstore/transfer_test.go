package pgstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// TestExportImportRoundTrip: sessions moved from files to PostgreSQL and
// back are the same files, byte for byte, with their summaries and
// modification times (to the microsecond PostgreSQL keeps).
func TestExportImportRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := &session.Store{Dir: filepath.Join(t.TempDir(), "src")}
	for i, text := range []string{"first <b>&</b>", "second \x00 \xff 🦀", "third"} {
		id := []string{"20261122-031937-aaaaaa", "20261122-031938-bbbbbb", "20261122-031939-cccccc"}[i]
		w := src.Create(session.Header{ID: id, Workspace: "/ws/" + id[:1], Provider: "openai", Model: "m", Trust: "trusted"})
		for _, m := range []providers.Message{providers.UserText(text), providers.AssistantText("ok " + text)} {
			if err := w.RecordMessage(m); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.RecordUsage("m", providers.Usage{InputTokens: i + 1}); err != nil {
			t.Fatal(err)
		}
		if i != 1 {
			if err := w.WriteSummary(session.Summary{Messages: 2, Tokens: 10, Updated: time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC),
				Sections: []session.SummarySection{{Name: "Task", Body: text}}}); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		at := time.Date(2026, 11, 22, 5, i, 0, 123456789, time.UTC)
		if err := os.Chtimes(w.Path(), at, at); err != nil {
			t.Fatal(err)
		}
	}

	db := openDB(t).Sessions()
	dst := &session.Store{Dir: filepath.Join(t.TempDir(), "dst")}
	copyAll(t, session.Files{Store: src}, db)
	copyAll(t, db, session.Files{Store: dst})

	entries, err := os.ReadDir(src.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 5 { // three sessions, two summaries
		t.Fatalf("%d files in the source", len(entries))
	}
	for _, e := range entries {
		a, errA := os.ReadFile(filepath.Join(src.Dir, e.Name()))
		b, errB := os.ReadFile(filepath.Join(dst.Dir, e.Name()))
		if errA != nil || errB != nil || string(a) != string(b) {
			t.Errorf("%s differs after the round trip (%v, %v):\n%s\n%s", e.Name(), errA, errB, a, b)
		}
		fa, _ := os.Stat(filepath.Join(src.Dir, e.Name()))
		fb, errB := os.Stat(filepath.Join(dst.Dir, e.Name()))
		if filepath.Ext(e.Name()) == ".jsonl" && (errB != nil || !fb.ModTime().Equal(fa.ModTime().Truncate(time.Microsecond))) {
			t.Errorf("%s modified %v, was %v", e.Name(), fb.ModTime(), fa.ModTime())
		}
	}
	// The order of the listings survives too.
	la, _ := session.Files{Store: src}.List(ctx)
	lb, _ := db.List(ctx)
	for i := range la {
		if i >= len(lb) || la[i].ID != lb[i].ID || la[i].Title != lb[i].Title || la[i].Messages != lb[i].Messages {
			t.Errorf("listing %d: %+v vs %+v", i, la[i], lb)
		}
	}
}

// transferStore is a store sessions move out of and into.
type transferStore interface {
	List(ctx context.Context) ([]session.Info, error)
	Export(ctx context.Context, id string) (session.Stored, error)
	Import(ctx context.Context, st session.Stored) error
}

func copyAll(t *testing.T, from, to transferStore) {
	t.Helper()
	ctx := context.Background()
	infos, err := from.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		st, err := from.Export(ctx, in.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := to.Import(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
}
