package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

// FuzzParse checks that Parse never panics and that what it recovers can be
// written back by a Writer and read again unchanged. The committed corpus is
// in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(lines(hdr, msg("a"), msg("b"))))
	f.Add([]byte(lines(hdr, msg("a")) + `{"type":"mess`))
	f.Add([]byte(lines(msg("no header"), `{"type":"skill","skill":{"action":"activate","name":"x","args":"1"}}`)))
	f.Add([]byte(lines(hdr, `{"type":"compaction","compaction":{"summary":"S","messages":[{"role":"user","parts":[{"type":"text","text":"S"}]}]}}`)))
	f.Add([]byte(lines(hdr, `{"type":"usage","usage":{"input_tokens":-1,"output_tokens":9223372036854775807}}`, msg("x"))))
	f.Add([]byte(lines(hdr, `{"type":"usage","usage":{"input_tokens":5}}`, `{"type":"usage","model":"m2","usage":{"input_tokens":7,"cache_write_tokens":2}}`, msg("x"))))
	f.Add([]byte(lines(hdr, `{"type":"model_switch","model_switch":{"name":"smart","provider":"openai","model":"m2"}}`, msg("x"), `{"type":"model_switch","model_switch":{"name":"","model":"m3"}}`)))
	f.Add([]byte("\x00\xff{\n\n[]\nnull\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.jsonl", data)
		if err != nil {
			if !errors.Is(err, ErrNoRecords) {
				t.Fatalf("Parse error does not wrap ErrNoRecords: %v", err)
			}
			return
		}
		st := &Store{Dir: t.TempDir(), Now: clock()}
		w := st.Create(Header{ID: "again", Workspace: s.Header.Workspace})
		for _, sk := range s.Skills {
			if err := w.RecordSkill(SkillChange{Action: ActionActivate, Name: sk.Name, Args: sk.Args, Hash: sk.Hash}); err != nil {
				t.Fatal(err)
			}
		}
		if s.ModelSwitch != nil {
			if err := w.RecordModel(*s.ModelSwitch); err != nil {
				t.Fatal(err)
			}
		}
		for _, u := range s.UsageByModel {
			if err := w.RecordUsage(u.Model, u.Usage); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range s.Messages {
			if err := w.RecordMessage(m); err != nil {
				t.Fatalf("RecordMessage(%+v): %v", m, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if len(s.Messages) == 0 {
			if _, err := os.Stat(w.Path()); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("no messages, yet a file (err %v)", err)
			}
			return
		}
		again, err := st.Load("again")
		if err != nil {
			t.Fatal(err)
		}
		if len(again.Warnings) != 0 {
			t.Errorf("warnings on a written file: %q", again.Warnings)
		}
		for _, c := range []struct {
			name      string
			want, got any
		}{
			{"messages", s.Messages, again.Messages},
			{"skills", s.Skills, again.Skills},
			{"usage", s.Usage, again.Usage},
			{"usage by model", s.UsageByModel, again.UsageByModel},
			{"model switch", s.ModelSwitch, again.ModelSwitch},
		} {
			if diff := cmp.Diff(c.want, c.got); diff != "" {
				t.Errorf("%s after a rewrite (-want +got):\n%s", c.name, diff)
			}
		}
	})
}

// BenchmarkParse parses a session of 2,000 messages (500 tool turns).
func BenchmarkParse(b *testing.B) {
	s := &Store{Dir: b.TempDir(), Now: clock()}
	w := s.Create(Header{ID: "bench", Workspace: "/ws", Provider: "openai", Model: "gpt-test"})
	for i := range 500 {
		turn := toolTurn(fmt.Sprintf("question %d: %s", i, strings.Repeat("words ", 20)))
		turn[2].Parts[0].ToolResult.Content = strings.Repeat("output line\n", 40)
		for _, m := range turn {
			if err := w.RecordMessage(m); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.RecordUsage("gpt-test", providers.Usage{InputTokens: 1000 + i, OutputTokens: 50}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(w.Path())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		sess, err := Parse("bench.jsonl", data)
		if err != nil || len(sess.Messages) != 2000 {
			b.Fatalf("%v, %d messages", err, len(sess.Messages))
		}
	}
}
