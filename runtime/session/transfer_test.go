package session

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzRecordLines checks that the lines RecordLines keeps (what a store
// imports) replay into the session Parse reads from the whole file, and
// that every non-blank line is kept or counted as skipped. The committed
// corpus (testdata/fuzz/FuzzRecordLines) is FuzzParse's.
func FuzzRecordLines(f *testing.F) {
	f.Add([]byte(lines(hdr, msg("a"), msg("b"))))
	f.Add([]byte(lines(hdr, msg("a")) + `{"type":"mess`))
	f.Add([]byte(lines(hdr, msg("a"), hdr, "not json", msg("b"))))
	f.Add([]byte(lines(msg("no header"), hdr)))
	f.Add([]byte("\x00\xff{\n\n[]\nnull\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		kept, skipped := RecordLines(data)
		nonBlank := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				nonBlank++
			}
		}
		if len(kept)+skipped != nonBlank {
			t.Fatalf("%d kept + %d skipped of %d lines", len(kept), skipped, nonBlank)
		}
		want, wantErr := Parse("fuzz.jsonl", data)
		got, gotErr := Parse("fuzz.jsonl", joinLines(kept))
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("Parse of the whole: %v; of the kept lines: %v", wantErr, gotErr)
		}
		if wantErr != nil {
			if !errors.Is(gotErr, ErrNoRecords) {
				t.Fatalf("kept lines: %v", gotErr)
			}
			return
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Session{}, "Warnings"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("the kept lines replay differently (-whole +kept):\n%s", diff)
		}
		for _, l := range kept {
			if bytes.IndexByte(l, '\n') >= 0 {
				t.Fatalf("a kept line holds a newline: %q", l)
			}
		}
	})
}
