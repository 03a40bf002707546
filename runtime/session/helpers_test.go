package session

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers"
)

// base is the first instant of the test clocks.
var base = time.Date(2026, 11, 22, 3, 19, 37, 0, time.UTC)

// clock returns a clock that starts at base and advances one second per call.
func clock() func() time.Time {
	var mu sync.Mutex
	t := base
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

func newStore(t testing.TB) *Store {
	t.Helper()
	return &Store{Dir: filepath.Join(t.TempDir(), "sessions"), Now: clock()}
}

// toolTurn is a user prompt, a tool call, its result and the answer.
func toolTurn(prompt string) []providers.Message {
	return []providers.Message{
		providers.UserText("[2026-11-22 03:19 +00:00] " + prompt),
		{Role: providers.RoleAssistant, Parts: []providers.Part{
			{Type: providers.PartReasoning, Text: "look first", Signature: "sig"},
			{Type: providers.PartText, Text: "Reading it."},
			{Type: providers.PartToolCall, ToolCall: &providers.ToolCall{ID: "c1", Name: "file_read", Args: `{"path": "go.mod"}`}},
		}},
		{Role: providers.RoleUser, Parts: []providers.Part{
			{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: "c1", Name: "file_read", Content: "module x\n"}},
		}},
		providers.AssistantText("It is module x. <b>&</b>"),
	}
}

// writeSession writes a session of msgs for workspace and returns its path.
func writeSession(t testing.TB, s *Store, id, workspace string, msgs ...providers.Message) string {
	t.Helper()
	w := s.Create(Header{ID: id, Workspace: workspace, Provider: "openai", Model: "gpt-test"})
	for _, m := range msgs {
		if err := w.RecordMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Path()
}

// setMtime sets a file's modification time to base plus d.
func setMtime(t testing.TB, path string, d time.Duration) {
	t.Helper()
	at := base.Add(d)
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}
