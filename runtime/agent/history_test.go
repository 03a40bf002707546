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

func resultNamed(id, name string) providers.Part {
	return providers.Part{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: id, Name: name, Content: cancelledText, IsError: true}}
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
