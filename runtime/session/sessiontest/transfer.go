package sessiontest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// Moving sessions whole between stores (`clawseed storage export|import`).

func testExportImport(t *testing.T, s Store) {
	h := header("20261122-031937-x00001", "/ws")
	w := s.Create(h)
	for i, st := range everything {
		if err := st(w); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	if err := w.WriteSummary(session.Summary{Messages: 3, Sections: []session.SummarySection{{Name: "Task", Body: "x <b>"}}}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	before, err := s.Load(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Export(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.ID != h.ID || st.Summary == "" || st.Updated.IsZero() || !strings.HasSuffix(string(st.Data), "\n") {
		t.Errorf("exported %+v", st)
	}
	if err := s.Import(ctx, st); !errors.Is(err, session.ErrExists) {
		t.Errorf("Import over the session: %v, want ErrExists", err)
	}
	if err := s.Remove(ctx, h.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Export(ctx, h.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Export of a removed session: %v, want ErrNotFound", err)
	}
	if err := s.Import(ctx, st); err != nil {
		t.Fatal(err)
	}
	again, err := s.Export(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(again.Data) != string(st.Data) || again.Summary != st.Summary || !again.Updated.Equal(st.Updated.Truncate(time.Microsecond)) && !again.Updated.Equal(st.Updated) {
		t.Errorf("re-exported differs:\n%+v\n%+v", again, st)
	}
	after, err := s.Load(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, before, after)
	if !after.Updated.Equal(again.Updated) {
		t.Errorf("updated %v after import, exported %v", after.Updated, again.Updated)
	}
	// An imported session opens and goes on like any other.
	w, _, err = s.Open(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RecordMessage(providers.UserText("more")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if got, err := s.Load(ctx, h.ID); err != nil || got.MessageRecords != before.MessageRecords+1 {
		t.Errorf("after Open: %v, %v", got, err)
	}
}

func testImportDamaged(t *testing.T, s Store) {
	header := `{"type":"header","time":"2026-11-22T03:19:37Z","header":{"id":"20261122-031937-y00001","created":"2026-11-22T03:19:37Z","workspace":"/ws","provider":"openai","model":"m","version":1}}`
	user := `{"type":"message","time":"2026-11-22T03:19:38Z","message":{"role":"user","parts":[{"type":"text","text":"hi"}]}}`
	data := header + "\n" + user + "\nnot json\n" + `{"type":"nope"}` + "\n" + header + "\n" + user + "\n" + `{"type":"message","ti`
	if err := s.Import(ctx, session.Stored{ID: "20261122-031937-y00001", Data: []byte(data)}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Export(ctx, "20261122-031937-y00001")
	if err != nil {
		t.Fatal(err)
	}
	if want := header + "\n" + user + "\n" + user + "\n"; string(st.Data) != want {
		t.Errorf("imported\n%s\nwant\n%s", st.Data, want)
	}
	for _, bad := range []session.Stored{
		{ID: "20261122-031937-y00002", Data: []byte(user + "\n")}, // no header
		{ID: "20261122-031937-y00003", Data: []byte("garbage\n")},
		{ID: "../y", Data: []byte(header + "\n")},
	} {
		if err := s.Import(ctx, bad); err == nil {
			t.Errorf("Import(%s) succeeded", bad.ID)
		}
	}
}
