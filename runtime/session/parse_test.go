package session

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clawseed/clawseed/providers"
)

const hdr = `{"type":"header","time":"2026-11-22T03:19:37Z","header":{"id":"s1","created":"2026-11-22T03:19:37Z","workspace":"/ws","provider":"p","model":"m","version":1}}`

// msg is a message record line (without newline) of a user text.
func msg(text string) string {
	return `{"type":"message","time":"2026-11-22T03:19:38Z","message":{"role":"user","parts":[{"type":"text","text":"` + text + `"}]}}`
}

// lines joins records into a file, each line ending in "\n".
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func texts(ms []providers.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text())
	}
	return out
}

func TestParseSkips(t *testing.T) {
	t.Parallel()
	const name = "sessions/s.jsonl"
	tests := []struct {
		name     string
		data     string
		id       string
		messages []string
		warnings []string
	}{
		{name: "valid", data: lines(hdr, msg("a"), msg("b")), id: "s1", messages: []string{"a", "b"}},
		{name: "header only", data: lines(hdr), id: "s1"},
		{name: "invalid JSON", data: lines(hdr, "{", msg("a")), id: "s1", messages: []string{"a"},
			warnings: []string{name + ":2: invalid JSON, line skipped: unexpected end of JSON input"}},
		{name: "unknown type", data: lines(hdr, `{"type":"note"}`, msg("a")), id: "s1", messages: []string{"a"},
			warnings: []string{name + `:2: unknown record type "note", line skipped`}},
		{name: "system role", data: lines(hdr, `{"type":"message","message":{"role":"system","parts":[]}}`), id: "s1",
			warnings: []string{name + `:2: message record: role "system" is not user or assistant, line skipped`}},
		{name: "unknown part type", data: lines(hdr, `{"type":"message","message":{"role":"user","parts":[{"type":"text","text":"x"},{"type":"audio"}]}}`), id: "s1",
			warnings: []string{name + `:2: message record: part 2: unknown part type "audio", line skipped`}},
		{name: "image without image", data: lines(hdr, `{"type":"message","message":{"role":"user","parts":[{"type":"text","text":"x"},{"type":"image"}]}}`), id: "s1",
			warnings: []string{name + `:2: message record: part 2: image part without an image, line skipped`}},
		{name: "tool_call without call", data: lines(hdr, `{"type":"message","message":{"role":"assistant","parts":[{"type":"tool_call"}]}}`), id: "s1",
			warnings: []string{name + `:2: message record: part 1: tool_call part without tool_call, line skipped`}},
		{name: "tool_result without result", data: lines(hdr, `{"type":"message","message":{"role":"user","parts":[{"type":"tool_result"}]}}`), id: "s1",
			warnings: []string{name + `:2: message record: part 1: tool_result part without tool_result, line skipped`}},
		{name: "message null", data: lines(hdr, `{"type":"message","message":null}`), id: "s1",
			warnings: []string{name + `:2: message record without message, line skipped`}},
		{name: "skill action", data: lines(hdr, `{"type":"skill","skill":{"action":"toggle","name":"x"}}`), id: "s1",
			warnings: []string{name + `:2: skill record: action "toggle" is not activate or deactivate, line skipped`}},
		{name: "skill without name", data: lines(hdr, `{"type":"skill","skill":{"action":"activate"}}`), id: "s1",
			warnings: []string{name + `:2: skill record without name, line skipped`}},
		{name: "bad compaction message", data: lines(hdr, msg("a"), `{"type":"compaction","compaction":{"messages":[{"role":"tool"}]}}`), id: "s1", messages: []string{"a"},
			warnings: []string{name + `:3: compaction record: message 1: role "tool" is not user or assistant, line skipped`}},
		{name: "usage missing", data: lines(hdr, `{"type":"usage"}`), id: "s1",
			warnings: []string{name + `:2: usage record without usage, line skipped`}},
		{name: "wrong field type", data: lines(hdr, `{"type":"usage","usage":{"input_tokens":"many"}}`, msg("a")), id: "s1", messages: []string{"a"},
			warnings: []string{name + `:2: invalid JSON, line skipped: json: cannot unmarshal string into Go struct field Usage.usage.input_tokens of type int`}},
		{name: "missing header", data: lines(msg("a")), id: "s", messages: []string{"a"},
			warnings: []string{name + `:1: missing header; using the file name "s" as the id`}},
		{name: "header without id", data: lines(`{"type":"header","header":{"workspace":"/ws"}}`, msg("a")), id: "s", messages: []string{"a"},
			warnings: []string{name + `:1: header without id; using the file name "s"`}},
		{name: "second header", data: lines(hdr, msg("a"), hdr), id: "s1", messages: []string{"a"},
			warnings: []string{name + `:3: header record after the first record, line skipped`}},
		{name: "torn last line", data: lines(hdr, msg("a")) + `{"type":"mess`, id: "s1", messages: []string{"a"},
			warnings: []string{name + `:3: torn last line ignored`}},
		{name: "whole last line without newline", data: lines(hdr, msg("a")) + msg("b"), id: "s1", messages: []string{"a", "b"}},
		{name: "unusable last line without newline", data: lines(hdr, msg("a")) + `{"type":"x"}`, id: "s1", messages: []string{"a"},
			warnings: []string{name + `:3: unknown record type "x", line skipped`}},
		{name: "blank lines and CRLF", data: hdr + "\r\n\n  \r\n" + msg("a") + "\r\n", id: "s1", messages: []string{"a"}},
		{name: "long type clipped", data: lines(hdr, `{"type":"`+strings.Repeat("é", 100)+`"}`), id: "s1",
			warnings: []string{name + `:2: unknown record type "` + strings.Repeat("é", 39) + `…", line skipped`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Parse(name, []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if s.Header.ID != tt.id {
				t.Errorf("id %q, want %q", s.Header.ID, tt.id)
			}
			if diff := cmp.Diff(tt.messages, texts(s.Messages)); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, s.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseNoRecords(t *testing.T) {
	t.Parallel()
	for _, data := range []string{"", "\n\n", "garbage\n", `{"type":"hea`, lines(`{"type":"note"}`, "[]")} {
		s, err := Parse("x.jsonl", []byte(data))
		if !errors.Is(err, ErrNoRecords) || s != nil {
			t.Errorf("Parse(%q) = %v, %v; want ErrNoRecords", data, s, err)
		}
	}
}

func TestParseReplay(t *testing.T) {
	t.Parallel()
	skill := func(action, name, args string) string {
		return fmt.Sprintf(`{"type":"skill","skill":{"action":%q,"name":%q,"args":%q,"hash":"h-%s"}}`, action, name, args, args)
	}
	compaction := func(summary string, keep ...string) string {
		ms := []string{fmt.Sprintf(`{"role":"user","parts":[{"type":"text","text":%q}]}`, summary)}
		for _, k := range keep {
			ms = append(ms, fmt.Sprintf(`{"role":"assistant","parts":[{"type":"text","text":%q}]}`, k))
		}
		return `{"type":"compaction","compaction":{"summary":` + fmt.Sprintf("%q", summary) + `,"replaced":2,"messages":[` + strings.Join(ms, ",") + `]}}`
	}
	data := lines(hdr,
		msg("[2026-11-22 03:19 +00:00] first\\nquestion"), msg("m2"),
		skill("activate", "a", "1"), skill("activate", "b", ""), skill("activate", "a", "2"),
		compaction("S1", "m2"),
		`{"type":"usage","usage":{"input_tokens":5,"output_tokens":2,"cached_tokens":1}}`,
		msg("m3"),
		skill("deactivate", "missing", ""), skill("activate", "c", ""), skill("deactivate", "a", ""),
		compaction("S2", "m3"),
		msg("m4"),
		`{"type":"usage","model":"other","usage":{"input_tokens":1,"output_tokens":1,"cached_tokens":1}}`,
	)
	s, err := Parse("s1.jsonl", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := &Session{
		Header: Header{ID: "s1", Created: s.Header.Created, Workspace: "/ws", Provider: "p", Model: "m", Version: 1},
		Messages: []providers.Message{providers.UserText("S2"), providers.AssistantText("m3"),
			providers.UserText("m4")},
		Skills: []SkillState{{Name: "b", Hash: "h-"}, {Name: "c", Hash: "h-"}},
		Usage:  providers.Usage{InputTokens: 6, OutputTokens: 3, CachedInputTokens: 2},
		// A usage record without a model (a file written before usage
		// records named it) is the header's model's.
		UsageByModel: []providers.ModelUsage{
			{Model: "m", Usage: providers.Usage{InputTokens: 5, OutputTokens: 2, CachedInputTokens: 1}},
			{Model: "other", Usage: providers.Usage{InputTokens: 1, OutputTokens: 1, CachedInputTokens: 1}},
		},
		Compactions:    2,
		Summary:        "S2",
		Lead:           1,
		Records:        15,
		MessageRecords: 4,
		Title:          "first question",
	}
	if diff := cmp.Diff(want, s, cmpopts.IgnoreFields(Session{}, "Messages")); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(texts(want.Messages), texts(s.Messages)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestReplaySkillOrder(t *testing.T) {
	t.Parallel()
	var active []SkillState
	for _, c := range []SkillChange{
		{Action: ActionActivate, Name: "a", Args: "1"},
		{Action: ActionActivate, Name: "b"},
		{Action: ActionActivate, Name: "c"},
		{Action: ActionActivate, Name: "a", Args: "2", Hash: "new"}, // in place
		{Action: ActionDeactivate, Name: "b"},
		{Action: ActionDeactivate, Name: "zzz"},
		{Action: ActionActivate, Name: "b"}, // back at the end
	} {
		active = replaySkill(active, c)
	}
	want := []SkillState{{Name: "a", Args: "2", Hash: "new"}, {Name: "c"}, {Name: "b"}}
	if diff := cmp.Diff(want, active); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
}

// TestParseEveryTruncation simulates a crash at every byte of a session
// file: each prefix loads, and loses at most the record being written.
func TestParseEveryTruncation(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	w := s.Create(Header{ID: "crash", Workspace: "/ws", Provider: "p", Model: "m"})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.RecordSkill(SkillChange{Action: ActionActivate, Name: "review", Args: "x", Hash: "h"}))
	for _, m := range toolTurn("héllo ✓ wörld") {
		must(w.RecordMessage(m))
	}
	must(w.RecordUsage("m", providers.Usage{InputTokens: 100, OutputTokens: 20}))
	must(w.RecordCompaction(Compaction{Summary: "S", Replaced: 3, Messages: []providers.Message{providers.UserText("S")}}))
	must(w.RecordSkill(SkillChange{Action: ActionDeactivate, Name: "review"}))
	must(w.RecordMessage(providers.AssistantText("tail ✓")))
	must(w.Close())
	data, err := os.ReadFile(w.Path())
	must(err)

	// ends[k] is the offset just past record k's JSON (before its "\n").
	var ends []int
	for i, b := range data {
		if b == '\n' {
			ends = append(ends, i)
		}
	}
	// clean[k] is the session holding the first k records, cut on a line end.
	clean := make([]*Session, len(ends)+1)
	for k := 1; k <= len(ends); k++ {
		c, err := Parse("crash.jsonl", data[:ends[k-1]+1])
		if err != nil || c.Records != k || len(c.Warnings) != 0 {
			t.Fatalf("clean prefix of %d records: %v, %+v", k, err, c)
		}
		clean[k] = c
	}
	for l := 0; l <= len(data); l++ {
		k := 0 // records whose JSON is wholly inside data[:l]
		for k < len(ends) && ends[k] <= l {
			k++
		}
		got, err := Parse("crash.jsonl", data[:l])
		if k == 0 {
			if !errors.Is(err, ErrNoRecords) {
				t.Fatalf("L=%d: %v, want ErrNoRecords", l, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("L=%d: %v", l, err)
		}
		if diff := cmp.Diff(clean[k], got, cmpopts.IgnoreFields(Session{}, "Warnings")); diff != "" {
			t.Fatalf("L=%d (%d whole records) (-want +got):\n%s", l, k, diff)
		}
		torn := l > 0 && data[l-1] != '\n' && (k == 0 || l != ends[k-1])
		switch {
		case torn && len(got.Warnings) != 1:
			t.Fatalf("L=%d: warnings %q, want one torn-line warning", l, got.Warnings)
		case !torn && len(got.Warnings) != 0:
			t.Fatalf("L=%d: warnings %q, want none", l, got.Warnings)
		}
	}
	if !bytes.HasSuffix(data, []byte("\n")) || len(ends) != 10 {
		t.Fatalf("session file has %d lines", len(ends))
	}
}

func TestTitle(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ü", 100)
	tests := []struct{ in, want string }{
		{"[2026-11-22 03:19 +00:00] fix the build", "fix the build"},
		{"[2026-11-22 03:19 -05:30] two\nlines\t here ", "two lines here"},
		{"[not a time] kept", "[not a time] kept"},
		{"[2026-11-22 03:19 +00:00]no space", "[2026-11-22 03:19 +00:00]no space"},
		{long, strings.Repeat("ü", 79) + "…"},
		{strings.Repeat("a", 80), strings.Repeat("a", 80)},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"", ""},
		{"<memory_context>\nuser/tabs.md: use tabs\n</memory_context>\n\n[2026-11-22 03:19 +00:00] format it", "format it"},
	}
	for _, tt := range tests {
		if got := Title(tt.in); got != tt.want {
			t.Errorf("Title(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestUsageByPurpose: a usage record with a purpose counts in the totals
// and per model like any other, and apart per purpose and model.
func TestUsageByPurpose(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	w := s.Create(Header{ID: "purpose", Workspace: "/ws", Provider: "p", Model: "m"})
	for _, err := range []error{
		w.RecordMessage(providers.UserText("hi")),
		w.RecordUsage("m", providers.Usage{InputTokens: 100, OutputTokens: 10}),
		w.RecordPurposeUsage("memory extraction", "m", providers.Usage{InputTokens: 1000, OutputTokens: 50}),
		w.RecordPurposeUsage("memory extraction", "cheap", providers.Usage{InputTokens: 7}),
		w.RecordPurposeUsage("memory extraction", "m", providers.Usage{InputTokens: 1, OutputTokens: 1}),
		w.RecordFork(Fork{Model: "m", Status: "ok", Purpose: "memory extraction"}),
		w.Close(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse("purpose.jsonl", data)
	if err != nil {
		t.Fatal(err)
	}
	if want := (providers.Usage{InputTokens: 1108, OutputTokens: 61}); got.Usage != want {
		t.Errorf("usage = %+v, want %+v", got.Usage, want)
	}
	want := []providers.PurposeUsage{
		{Purpose: "memory extraction", Model: "cheap", Usage: providers.Usage{InputTokens: 7}},
		{Purpose: "memory extraction", Model: "m", Usage: providers.Usage{InputTokens: 1001, OutputTokens: 51}},
	}
	if diff := cmp.Diff(want, got.UsageByPurpose); diff != "" {
		t.Errorf("usage by purpose (-want +got):\n%s", diff)
	}
	if got.Forks != 1 || !strings.Contains(string(data), `"purpose":"memory extraction"`) {
		t.Errorf("forks = %d; file:\n%s", got.Forks, data)
	}
}
