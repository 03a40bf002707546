package eventlog

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzFiles checks the files log's reader on any file: After never fails
// or panics on what it finds, and the next Append numbers after the
// largest whole line, cutting off a torn one.
func FuzzFiles(f *testing.F) {
	f.Add([]byte(`{"seq":1,"time":"2026-11-22T03:19:37Z","data":{"a":1}}` + "\n" + `{"seq":2,"time":"2026-11-22T03:19:38Z","data":[]}` + "\n"))
	f.Add([]byte(`{"seq":7,"data":1}` + "\n" + `{"seq":3,"data":2}` + "\n" + `{"seq":9,"da`))
	f.Add([]byte("\x00\xff\n\n{}\nnull\n{\"seq\":-4}\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "s.jsonl"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		l := NewFiles(dir)
		ctx := context.Background()
		before, err := l.After(ctx, "s", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var last int64
		for _, e := range before {
			if e.Seq <= 0 {
				t.Fatalf("event numbered %d", e.Seq)
			}
			last = max(last, e.Seq)
		}
		seq, err := l.Append(ctx, "s", []byte(`{"new":true}`))
		if err != nil {
			t.Fatal(err)
		}
		if seq != last+1 {
			t.Fatalf("Append numbered %d after a largest %d", seq, last)
		}
		after, err := l.After(ctx, "s", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != len(before)+1 || after[len(after)-1].Seq != seq || string(after[len(after)-1].Data) != `{"new":true}` {
			t.Fatalf("after Append: %d events (was %d), last %+v", len(after), len(before), after[len(after)-1])
		}
	})
}
