package repl

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// TestReplay: the last exchanges in brief: what the user said (stamp and
// recalled memories left out), each reply's text on one line and the
// tools it called; tool results are not lines; a summary says so.
func TestReplay(t *testing.T) {
	t.Parallel()
	call := func(name string) providers.Part {
		return providers.Part{Type: providers.PartToolCall, ToolCall: &providers.ToolCall{ID: "c-" + name, Name: name}}
	}
	result := providers.Message{Role: providers.RoleUser, Parts: []providers.Part{{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: "c", Content: "out"}}}}
	history := []providers.Message{
		providers.UserText("<compaction_summary>\nEarlier.\n</compaction_summary>"),
		providers.UserText("[2026-11-22 03:19 +00:00] first\nquestion"),
		providers.AssistantText("first answer"),
		providers.UserText("<memory_context>\nx\n</memory_context>\n[2026-11-22 03:20 +00:00] read the files"),
		{Role: providers.RoleAssistant, Parts: []providers.Part{{Type: providers.PartText, Text: "Let me\nlook."}, call("file_read"), call("shell")}},
		result,
		{Role: providers.RoleAssistant, Parts: []providers.Part{call("file_edit")}},
		result,
		providers.AssistantText("Done: \x1b[2Jthe files."),
	}
	got := Replay(history, 2)
	want := []ReplayLine{
		{Role: providers.RoleUser, Text: "first question"},
		{Role: providers.RoleAssistant, Text: "first answer"},
		{Role: providers.RoleUser, Text: "read the files"},
		{Role: providers.RoleAssistant, Text: "Let me look.", Tools: []string{"file_read", "shell"}},
		{Role: providers.RoleAssistant, Tools: []string{"file_edit"}},
		{Role: providers.RoleAssistant, Text: `Done: \x1b[2Jthe files.`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Replay (-want +got):\n%s", diff)
	}
	if all := Replay(history, 10); len(all) != 7 || all[0].Text != "(the earlier conversation, summarised)" {
		t.Errorf("the whole history: %+v", all)
	}
	if got := want[3].String(); got != "assistant: Let me look. [file_read, shell]" {
		t.Errorf("String = %q", got)
	}
	if got := want[0].String(); got != "you: first question" {
		t.Errorf("String = %q", got)
	}
	if Replay(nil, 3) != nil {
		t.Error("an empty history replays something")
	}
}

// fakeResumer lists sessions and records the switch.
type fakeResumer struct {
	list     []session.Info
	switched []string
	fa       *fakeAgent
}

func (f *fakeResumer) Sessions(context.Context) ([]session.Info, error) { return f.list, nil }
func (f *fakeResumer) SwitchTo(_ context.Context, id string) error {
	if id == "20261122-050000-dddddd" {
		return errors.New("session 20261122-050000-dddddd belongs to the workspace /elsewhere")
	}
	f.switched = append(f.switched, id)
	f.fa.history = []providers.Message{providers.UserText("hello again"), providers.AssistantText("hi")}
	return nil
}

// TestResumeCommand: /resume lists, /resume N takes the Nth of the list,
// anything else is an id (or prefix) for the session to check; the switch
// is followed by the replay.
func TestResumeCommand(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)
	fa := newFakeAgent()
	r := &fakeResumer{fa: fa, list: []session.Info{
		{ID: "20261122-040000-bbbbbb", Updated: at, Messages: 4, Model: "m1", Title: "newest \x1b[2J"},
		{ID: "20261122-030000-aaaaaa", Updated: at.Add(-time.Hour), Messages: 2, Title: "oldest"},
	}}
	var out, errw bytes.Buffer
	c := &Chat{Agent: fa, Reader: &scriptReader{lines: []string{"/resume", "/resume 3", "/resume 20261122-050000-dddddd", "/resume 2", "/resume 2026112204"}},
		Out: &out, Err: &errw, Resume: r, Status: func() SessionStatus { return SessionStatus{SessionID: "S"} }}
	if err := c.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"20261122-030000-aaaaaa", "2026112204"}, r.switched); diff != "" {
		t.Errorf("switched to (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		"  1.  20261122-040000-bbbbbb  ", "4 messages  m1  newest \\x1b[2J\n",
		"  2.  20261122-030000-aaaaaa  ", "2 messages  -   oldest\n",
		"Resumed session S: 2 messages, model m1.\n  you: hello again\n  assistant: hi\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, want := range []string{"✗ no session 3: /resume lists 2", "✗ session 20261122-050000-dddddd belongs to the workspace /elsewhere"} {
		if !strings.Contains(errw.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errw.String())
		}
	}

	// Sessions off.
	out.Reset()
	c = &Chat{Agent: fa, Reader: &scriptReader{lines: []string{"/resume"}}, Out: &out, Err: &out}
	if err := c.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Sessions are off") {
		t.Errorf("without a Resumer: %s", out.String())
	}
}
