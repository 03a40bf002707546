package session

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

// The memories automatic recall gave the model are the session's: recall
// records written come back as one set, each memory once, in recall order,
// compactions or not (issue 20, item 21); files without recall records load
// with none, and a recall record without its field is skipped.
func TestRecallRecords(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	w := s.Create(Header{ID: "r1", Workspace: "/ws", Model: "m"})
	for _, step := range []func() error{
		func() error { return w.RecordRecall([]string{"/mem/user/a.md", "/mem/user/b.md"}) },
		func() error { return w.RecordMessage(providers.UserText("first")) },
		func() error {
			return w.RecordCompaction(Compaction{Summary: "S", Messages: []providers.Message{providers.UserText("S")}})
		},
		func() error { return w.RecordRecall([]string{"/mem/projects/x/c.md", "/mem/user/a.md"}) },
		func() error { return w.RecordMessage(providers.UserText("second")) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("r1")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/mem/user/a.md", "/mem/user/b.md", "/mem/projects/x/c.md"}
	if diff := cmp.Diff(want, got.Recalled); diff != "" || len(got.Warnings) > 0 {
		t.Errorf("Recalled (-want +got)\n%s\nwarnings %v", diff, got.Warnings)
	}

	for _, tc := range []struct {
		name, data string
		want       []string
		warning    string
	}{
		{"old file", lines(hdr, msg("a")), nil, ""},
		{"recall without memories", lines(hdr, `{"type":"recall","recall":{}}`, msg("a")), nil, ""},
		{"recall null", lines(hdr, `{"type":"recall","recall":null}`, msg("a")), nil, "recall record without recall, line skipped"},
	} {
		got, err := Parse("s.jsonl", []byte(tc.data))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !cmp.Equal(got.Recalled, tc.want) || (tc.warning == "") != (len(got.Warnings) == 0) ||
			tc.warning != "" && !strings.Contains(got.Warnings[0], tc.warning) {
			t.Errorf("%s: Recalled %q, warnings %q", tc.name, got.Recalled, got.Warnings)
		}
	}
}
