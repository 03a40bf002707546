package session

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

// The todo list a session ends with is its last todos record's (issue 31):
// kept across compactions, gone when a record clears it; a todos record
// without its field is skipped with a warning.
func TestTodosRecords(t *testing.T) {
	t.Parallel()
	first := []Todo{{Content: "Read", Status: TodoInProgress}, {Content: "Fix", Status: TodoPending}}
	second := []Todo{{Content: "Read", Status: TodoCompleted}, {Content: "Fix", Status: TodoInProgress}}
	for _, tc := range []struct {
		name  string
		steps func(w *Writer) []error
		want  []Todo
	}{
		{"last wins across a compaction", func(w *Writer) []error {
			return []error{
				w.RecordMessage(providers.UserText("go")),
				w.RecordTodos(first),
				w.RecordCompaction(Compaction{Summary: "S", Messages: []providers.Message{providers.UserText("S")}}),
				w.RecordTodos(second),
			}
		}, second},
		{"cleared", func(w *Writer) []error {
			return []error{w.RecordMessage(providers.UserText("go")), w.RecordTodos(first), w.RecordTodos(nil)}
		}, nil},
		{"none", func(w *Writer) []error { return []error{w.RecordMessage(providers.UserText("go"))} }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			w := s.Create(Header{ID: "t1", Workspace: "/ws", Model: "m"})
			for _, err := range tc.steps(w) {
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := s.Load("t1")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.Todos); diff != "" || len(got.Warnings) > 0 {
				t.Errorf("Todos (-want +got)\n%s\nwarnings %v", diff, got.Warnings)
			}
		})
	}
	got, err := Parse("x.jsonl", []byte(lines(hdr, msg("a"), `{"type":"todos","time":"2026-11-27T10:00:00Z"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Warnings) != 1 || got.Todos != nil {
		t.Errorf("todos record without todos: warnings %v, todos %v", got.Warnings, got.Todos)
	}
}
