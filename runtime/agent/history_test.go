package agent

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

func call(id, name string) providers.Part {
	return providers.Part{Type: providers.PartToolCall, ToolCall: &providers.ToolCall{ID: id, Name: name, Args: "{}"}}
}

func result(id, content string, isErr bool) providers.Part {
	return providers.Part{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: id, Content: content, IsError: isErr}}
}

func TestRepairHistory(t *testing.T) {
	t.Parallel()
	user := providers.UserText("hi")
	cases := []struct {
		name string
		in   []providers.Message
		want []providers.Message
	}{
		{"valid stays", []providers.Message{user, {Role: "assistant", Parts: []providers.Part{call("1", "a")}}, {Role: "user", Parts: []providers.Part{result("1", "ok", false)}}},
			[]providers.Message{user, {Role: "assistant", Parts: []providers.Part{call("1", "a")}}, {Role: "user", Parts: []providers.Part{result("1", "ok", false)}}}},
		{"dangling at end", []providers.Message{user, {Role: "assistant", Parts: []providers.Part{call("1", "a"), call("2", "b")}}},
			[]providers.Message{user, {Role: "assistant", Parts: []providers.Part{call("1", "a"), call("2", "b")}},
				{Role: "user", Parts: []providers.Part{resultNamed("1", "a"), resultNamed("2", "b")}}}},
		{"partly answered", []providers.Message{{Role: "assistant", Parts: []providers.Part{call("1", "a"), call("2", "b")}}, {Role: "user", Parts: []providers.Part{result("1", "ok", false)}}},
			[]providers.Message{{Role: "assistant", Parts: []providers.Part{call("1", "a"), call("2", "b")}}, {Role: "user", Parts: []providers.Part{resultNamed("2", "b"), result("1", "ok", false)}}}},
		{"followed by a plain user message", []providers.Message{{Role: "assistant", Parts: []providers.Part{call("1", "a")}}, user},
			[]providers.Message{{Role: "assistant", Parts: []providers.Part{call("1", "a")}}, {Role: "user", Parts: append([]providers.Part{resultNamed("1", "a")}, user.Parts...)}}},
		// A session file whose assistant line was lost leaves results that
		// answer nothing: providers reject them, so they go.
		{"orphan results dropped", []providers.Message{user, {Role: "user", Parts: []providers.Part{result("9", "lost", false)}}, providers.AssistantText("ok")},
			[]providers.Message{user, providers.AssistantText("ok")}},
		{"orphan beside a real result", []providers.Message{{Role: "assistant", Parts: []providers.Part{call("1", "a")}}, {Role: "user", Parts: []providers.Part{result("1", "ok", false), result("2", "stray", false)}}},
			[]providers.Message{{Role: "assistant", Parts: []providers.Part{call("1", "a")}}, {Role: "user", Parts: []providers.Part{result("1", "ok", false)}}}},
		{"results after a text answer", []providers.Message{user, providers.AssistantText("done"), {Role: "user", Parts: []providers.Part{result("1", "late", false)}}},
			[]providers.Message{user, providers.AssistantText("done")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(c.want, repairHistory(c.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// resultNamed is the repair result of a call left unanswered: it says the
// call may have run (issue 8 item 12), never that it was cancelled.
func resultNamed(id, name string) providers.Part {
	return providers.Part{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: id, Name: name, Content: "Interrupted: clawseed stopped before this call's result was recorded; it may have run.", IsError: true}}
}

func TestTruncateOutput(t *testing.T) {
	t.Parallel()
	if got := truncateOutput("short", 10); got != "short" {
		t.Errorf("short output changed: %q", got)
	}
	in := strings.Repeat("a", 100) + strings.Repeat("é", 50) + strings.Repeat("z", 150)
	got := truncateOutput(in, 30)
	want := strings.Repeat("a", 20) + "\n\n[... 270 characters truncated ...]\n\n" + strings.Repeat("z", 10)
	if got != want {
		t.Errorf("truncateOutput =\n%q\nwant\n%q", got, want)
	}
	if !utf8.ValidString(truncateOutput(strings.Repeat("é", 100), 7)) {
		t.Error("truncation split a rune")
	}
}

// TestTruncateOutputOneTrueCount protects issue 8 item 7: when the agent
// cuts an output that a tool had already cut, the tool's note must not
// vanish in the cut (leaving a note that counts only the agent's few
// characters) nor survive in half: one note counts everything dropped.
func TestTruncateOutputOneTrueCount(t *testing.T) {
	t.Parallel()
	note := providers.TruncationNote
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{
			name:  "tool note inside the cut",
			in:    strings.Repeat("h", 40) + note(9_000_000) + strings.Repeat("t", 40),
			limit: 30,
			want:  strings.Repeat("h", 20) + note(9_000_000+20+30) + strings.Repeat("t", 10),
		},
		{
			name:  "tool note across the head boundary",
			in:    strings.Repeat("h", 10) + note(500) + strings.Repeat("t", 100),
			limit: 30,
			want:  strings.Repeat("h", 10) + note(500+90) + strings.Repeat("t", 10),
		},
		{
			name:  "tool note across the tail boundary",
			in:    strings.Repeat("h", 100) + note(500) + strings.Repeat("t", 5),
			limit: 30,
			want:  strings.Repeat("h", 20) + note(80+500) + strings.Repeat("t", 5),
		},
		{
			name:  "two notes (stdout and stderr) inside the cut",
			in:    strings.Repeat("h", 40) + note(7) + strings.Repeat("m", 40) + note(11) + strings.Repeat("t", 40),
			limit: 30,
			want:  strings.Repeat("h", 20) + note(20+7+40+11+30) + strings.Repeat("t", 10),
		},
		{
			name:  "note in the kept head stays as it is",
			in:    "ab" + note(3) + strings.Repeat("x", 200),
			limit: 120,
			want:  "ab" + note(3) + strings.Repeat("x", 80-2-utf8.RuneCountInString(note(3))) + note(200-80+2+int64(utf8.RuneCountInString(note(3)))-40) + strings.Repeat("x", 40),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := truncateOutput(tt.in, tt.limit)
			if got != tt.want {
				t.Errorf("truncateOutput =\n%q\nwant\n%q", got, tt.want)
			}
			if spans, _ := providers.TruncationNotes(got); strings.Count(got, "truncated") != len(spans) {
				t.Errorf("a note was cut in half: %q", got)
			}
		})
	}
}

// TestUniqueCallIDs protects issue 8 item 10: results answer calls by id, so
// a repeated id (in one response, or reused from an earlier one) must not
// reach the next request.
func TestUniqueCallIDs(t *testing.T) {
	t.Parallel()
	history := []providers.Message{
		{Role: providers.RoleAssistant, Parts: []providers.Part{call("a", "x"), call("a_2", "x")}},
		{Role: providers.RoleUser, Parts: []providers.Part{result("a", "ok", false), result("a_2", "ok", false)}},
	}
	tests := []struct {
		name string
		in   []string
		hist []providers.Message
		want []string
	}{
		{"unique kept", []string{"c1", "c2"}, history, []string{"c1", "c2"}},
		{"repeat within a response", []string{"d", "d", "d"}, nil, []string{"d", "d_2", "d_3"}},
		{"reuse of an earlier response's id", []string{"a", "b"}, history, []string{"a_3", "b"}},
		{"empty ids", []string{"", ""}, nil, []string{"call_2", "call_3"}},
		{"suffix already taken in the response", []string{"e_2", "e", "e"}, nil, []string{"e_2", "e", "e_3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []providers.ToolCall
			for _, id := range tt.in {
				calls = append(calls, providers.ToolCall{ID: id, Name: "x"})
			}
			var got []string
			for _, c := range uniqueCallIDs(calls, tt.hist) {
				got = append(got, c.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
