package trust

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzLoad: no trust file panics the loader; every rejection is a
// *FileError naming the file; what it accepts is written back in a form it
// reads to the same entries and the same bytes.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("[[workspace]]\npath = \"/home/u/src/proj\"\nrecursive = false\ntrusted = 2026-11-23T14:00:00Z\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parse("trust.toml", data)
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != "trust.toml" {
				t.Fatalf("error %v (%T) is not a *FileError for trust.toml", err, err)
			}
			return
		}
		out, err := encode(entries)
		if err != nil {
			t.Fatalf("encode accepted entries: %v", err)
		}
		again, err := parse("trust.toml", out)
		if err != nil {
			t.Fatalf("reading what was written: %v\n%s", err, out)
		}
		if diff := cmp.Diff(entries, again); diff != "" {
			t.Fatalf("entries changed by a write and read (-first +second):\n%s", diff)
		}
		if out2, _ := encode(again); !bytes.Equal(out, out2) {
			t.Fatalf("bytes changed by a write and read:\n%s\n---\n%s", out, out2)
		}
	})
}
