package streamjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/agent"
	"github.com/clawseed/clawseed/runtime/session"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixedIDs returns ids 00000000-0000-4000-8000-000000000001, …: a
// stream's lines are then byte-stable.
func fixedIDs() func() string {
	n := 0
	return func() string {
		n++
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
	}
}

// fixedClock advances by 250 ms at each reading.
func fixedClock() func() time.Time {
	t := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(250 * time.Millisecond)
		return t
	}
}

func toolCall(id, name, args string) providers.Part {
	return providers.Part{Type: providers.PartToolCall, ToolCall: &providers.ToolCall{ID: id, Name: name, Args: args}}
}

func response(parent string, took time.Duration, stop providers.StopReason, u providers.Usage, parts ...providers.Part) agent.Event {
	return agent.Event{Type: agent.EventResponse, Parent: parent, Response: &agent.ResponseInfo{
		Message: providers.Message{Role: providers.RoleAssistant, Parts: parts}, StopReason: stop, Model: "model-a", Usage: u, Duration: took,
	}}
}

// scriptedRun is the events of a run that has most of what a stream can
// hold: an always-on skill activated before the init message, a user's
// /NAME that runs a fork, reasoning (signed and redacted), text, tool
// calls (one with arguments that are not JSON), a permission denial, a
// fork skill called by the model whose sub-agent streams too, a hot
// reload, a tools change, plan mode and the todo list, a compaction, a request that fails mid-stream,
// and a memory extraction's notice.
func scriptedRun() []agent.Event {
	u := providers.Usage{InputTokens: 100, OutputTokens: 10, CachedInputTokens: 60, CacheWriteTokens: 30}
	return []agent.Event{
		{Type: agent.EventSkillActivated, Name: "style", Args: "strict"},
		{Type: agent.EventSkillAllowedTools, Name: "style", Text: "pre-approves: file_read"},
		{Type: agent.EventToolCall, ID: "/review", Name: "Skill", Args: `{"skill":"review","args":"7"}`},
		{Type: agent.EventTextDelta, Parent: "/review", Text: "Looks ", Iteration: 1},
		{Type: agent.EventTextDelta, Parent: "/review", Text: "fine.", Iteration: 1},
		response("/review", 300*time.Millisecond, providers.StopEndTurn, providers.Usage{InputTokens: 20, OutputTokens: 3},
			providers.Part{Type: providers.PartText, Text: "Looks fine."}),
		{Type: agent.EventToolResult, ID: "/review", Name: "Skill", Result: "Result of skill 'review':\nLooks fine."},
		{Type: agent.EventTurnStart, Text: "go"},
		{Type: agent.EventReasoningDelta, Text: "Hmm, ", Iteration: 1},
		{Type: agent.EventReasoningDelta, Text: "files.", Iteration: 1},
		{Type: agent.EventTextDelta, Text: "Reading <b>.", Iteration: 1},
		{Type: agent.EventUsage, Usage: &u, Iteration: 1},
		response("", time.Second, providers.StopToolUse, u,
			providers.Part{Type: providers.PartReasoning, Text: "Hmm, files.", Signature: "sig-1"},
			providers.Part{Type: providers.PartReasoning, Redacted: "opaque"},
			providers.Part{Type: providers.PartText, Text: "Reading <b>."},
			toolCall("toolu_1", "file_read", ` {"path": "a.txt"} `),
			toolCall("toolu_2", "shell", `not json`),
			toolCall("toolu_3", "file_write", `{"path":"b","content":"x"}`),
			toolCall("toolu_4", "Skill", `{"skill":"audit"}`)),
		{Type: agent.EventToolCall, ID: "toolu_1", Name: "file_read", Args: ` {"path": "a.txt"} `},
		{Type: agent.EventToolCall, ID: "toolu_2", Name: "shell", Args: `not json`},
		{Type: agent.EventToolCall, ID: "toolu_3", Name: "file_write", Args: `{"path":"b","content":"x"}`},
		{Type: agent.EventToolCall, ID: "toolu_4", Name: "Skill", Args: `{"skill":"audit"}`},
		{Type: agent.EventPermissionDenied, ID: "toolu_3", Name: "file_write", Args: `{"path":"b","content":"x"}`},
		{Type: agent.EventTextDelta, Parent: "toolu_4", Text: "Audit", Iteration: 1},
		response("toolu_4", 500*time.Millisecond, providers.StopToolUse, providers.Usage{InputTokens: 50, OutputTokens: 5},
			providers.Part{Type: providers.PartText, Text: "Audit"},
			toolCall("toolu_5", "glob_search", `{"pattern":"*"}`)),
		{Type: agent.EventToolCall, ID: "toolu_5", Name: "glob_search", Args: `{"pattern":"*"}`, Parent: "toolu_4"},
		{Type: agent.EventToolResult, ID: "toolu_5", Name: "glob_search", Result: "a.txt", Parent: "toolu_4"},
		{Type: agent.EventTextDelta, Parent: "toolu_4", Text: "ok", Iteration: 2},
		response("toolu_4", 250*time.Millisecond, providers.StopEndTurn, providers.Usage{InputTokens: 60, OutputTokens: 2},
			providers.Part{Type: providers.PartText, Text: "ok"}),
		{Type: agent.EventToolResult, ID: "toolu_1", Name: "file_read", Result: "alpha"},
		{Type: agent.EventToolResult, ID: "toolu_2", Name: "shell", Result: "Invalid arguments for shell: not valid JSON: not json", IsError: true},
		{Type: agent.EventToolResult, ID: "toolu_3", Name: "file_write", Result: "Tool call denied: file_write needs the user's approval", IsError: true},
		{Type: agent.EventToolResult, ID: "toolu_4", Name: "Skill", Result: "Result of skill 'audit':\nok"},
		{Type: agent.EventSkillsReloaded, Text: "+new", Reload: &agent.ReloadInfo{Added: []string{"new"}}},
		{Type: agent.EventToolsChanged, Text: "+mcp__docs__search"},
		{Type: agent.EventPlanMode, PlanMode: true},
		{Type: agent.EventTodos, Todos: []session.Todo{{Content: "Read a.txt", Status: session.TodoCompleted}, {Content: "Write <b>", Status: session.TodoInProgress}}},
		{Type: agent.EventTodos}, // cleared
		{Type: agent.EventSkillDeactivated, Name: "style"},
		{Type: agent.EventCompaction, Compaction: &agent.CompactionInfo{Reason: agent.CompactManual, TokensBefore: 9000, TokensAfter: 1200, Replaced: 6, Kept: 2, Summarized: true}},
		{Type: agent.EventTextDelta, Text: "Half an ans", Iteration: 2},
		{Type: agent.EventError, Text: "stream cut"},
		{Type: agent.EventTurnEnd, Status: agent.StatusError, Iteration: 2},
		// The memory extraction of an earlier turn, collected at the end.
		{Type: agent.EventMemoryExtracted, Extraction: &agent.ExtractionInfo{Stored: []string{"tabs"}, Model: "model-a"}},
	}
}

// TestGolden writes the scripted run's stream, with and without the
// partial messages, and compares it with testdata/*.jsonl (go test
// -update rewrites them).
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, partial := range []bool{false, true} {
		name := "messages"
		if partial {
			name = "partial"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			s := New(&buf, Options{Partial: partial, NewID: fixedIDs(), Now: fixedClock()})
			events := scriptedRun()
			for _, ev := range events[:2] { // before the session is built
				s.Handle(ev)
			}
			s.Init(Init{
				SessionID: "20261127-090000-abcdef", Cwd: "/work/project", Tools: []string{"Skill", "file_read", "shell"},
				MCPServers: []MCPServer{{Name: "docs", Status: "pending"}}, Model: "model-a", PermissionMode: "default",
				SlashCommands: []string{"review", "style"}, Skills: []string{"audit", "style"}, APIKeySource: "ANTHROPIC_API_KEY",
				Version: "v1.2.3", Provider: "anthropic", Autonomy: "supervised",
			})
			for _, ev := range events[2:] {
				s.Handle(ev)
			}
			price := 0.0125
			s.WriteResult(s.Result(Outcome{
				Status: agent.StatusError, Iterations: 2, SessionID: "20261127-090000-abcdef",
				Models: []ModelCost{
					{ModelUsage: providers.ModelUsage{Model: "model-a", Usage: providers.Usage{InputTokens: 230, OutputTokens: 20, CachedInputTokens: 60, CacheWriteTokens: 30}}, CostUSD: &price},
					{ModelUsage: providers.ModelUsage{Model: "model-b", Usage: providers.Usage{InputTokens: 10, OutputTokens: 1}}},
				},
				Err: errors.New("stream cut"),
			}))
			for i, line := range bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n")) {
				if !json.Valid(line) {
					t.Errorf("line %d is not JSON: %s", i+1, line)
				}
			}
			golden := filepath.Join("testdata", name+".jsonl")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), buf.String()); diff != "" {
				t.Errorf("%s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// Each stream_event's content blocks are opened, filled and closed in
// order with consecutive indexes, per message and per parent, and every
// message_start has its message_stop: what a reader of Anthropic's stream
// relies on.
func TestPartialEventsWellFormed(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	s := New(&buf, Options{Partial: true, NewID: fixedIDs(), Now: fixedClock()})
	s.Init(Init{SessionID: "s"})
	for _, ev := range scriptedRun() {
		s.Handle(ev)
	}
	type state struct {
		open  bool
		index int
		block bool
	}
	states := map[string]*state{}
	for line := range strings.SplitSeq(strings.TrimSpace(buf.String()), "\n") {
		var m struct {
			Type   string  `json:"type"`
			Parent *string `json:"parent_tool_use_id"`
			Event  struct {
				Type  string `json:"type"`
				Index int    `json:"index"`
			} `json:"event"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m.Type != "stream_event" {
			continue
		}
		key := ""
		if m.Parent != nil {
			key = *m.Parent
		}
		st := states[key]
		if st == nil {
			st = &state{}
			states[key] = st
		}
		switch m.Event.Type {
		case "message_start":
			if st.open {
				t.Errorf("%q: message_start inside a message", key)
			}
			*st = state{open: true}
		case "content_block_start":
			if !st.open || st.block || m.Event.Index != st.index {
				t.Errorf("%q: content_block_start %d in state %+v", key, m.Event.Index, *st)
			}
			st.block = true
		case "content_block_delta":
			if !st.block || m.Event.Index != st.index {
				t.Errorf("%q: content_block_delta %d in state %+v", key, m.Event.Index, *st)
			}
		case "content_block_stop":
			if !st.block || m.Event.Index != st.index {
				t.Errorf("%q: content_block_stop %d in state %+v", key, m.Event.Index, *st)
			}
			st.block = false
			st.index++
		case "message_delta":
			if !st.open || st.block {
				t.Errorf("%q: message_delta in state %+v", key, *st)
			}
		case "message_stop":
			if !st.open || st.block {
				t.Errorf("%q: message_stop in state %+v", key, *st)
			}
			st.open = false
		}
	}
	for key, st := range states {
		if st.open {
			t.Errorf("%q: message never stopped", key)
		}
	}
}

// Without a writer a Stream writes nothing and still tallies what the
// result reports (`run --output json`).
func TestTallyOnly(t *testing.T) {
	t.Parallel()
	s := New(nil, Options{NewID: fixedIDs(), Now: fixedClock()})
	for _, ev := range scriptedRun() {
		s.Handle(ev)
	}
	r := s.Result(Outcome{Status: agent.StatusMaxIterations, Iterations: 3, Final: "partial", SessionID: "s"})
	want := Result{
		Type: "result", Subtype: SubtypeMaxTurns, IsError: true, DurationMS: 250, DurationAPIMS: 2050, NumTurns: 3,
		Result: "partial", SessionID: "s", ModelUsage: map[string]ModelUsage{},
		PermissionDenials: []Denial{{ToolName: "file_write", ToolUseID: "toolu_3", ToolInput: json.RawMessage(`{"path":"b","content":"x"}`)}},
		Errors:            []string{"the turn was max_iterations"}, UUID: "00000000-0000-4000-8000-000000000001",
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

func TestSubtype(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status, want string
		isError      bool
	}{
		{agent.StatusOK, "success", false},
		{agent.StatusMaxIterations, "error_max_turns", true},
		{agent.StatusError, "error_during_execution", true},
		{agent.StatusCancelled, "error_during_execution", true},
		{agent.StatusBlocked, "error_during_execution", true},
		{agent.StatusStopped, "success", false},
	}
	for _, tt := range tests {
		if got := subtype(tt.status); got != tt.want {
			t.Errorf("subtype(%q) = %q, want %q", tt.status, got, tt.want)
		}
		if got := isError(tt.status); got != tt.isError {
			t.Errorf("isError(%q) = %v, want %v", tt.status, got, tt.isError)
		}
	}
}

func TestToolInput(t *testing.T) {
	t.Parallel()
	tests := []struct{ args, want string }{
		{`{"path": "a"}`, `{"path":"a"}`},
		{"  {\n\"a\": [1, 2]}\n", `{"a":[1,2]}`},
		{``, `{}`},
		{`not json`, `{}`},
		{`{"unclosed": `, `{}`},
		{`["an", "array"]`, `{}`},
		{`"a string"`, `{}`},
	}
	for _, tt := range tests {
		if got := string(toolInput(tt.args)); got != tt.want {
			t.Errorf("toolInput(%q) = %s, want %s", tt.args, got, tt.want)
		}
	}
}

func TestNewAPIUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   providers.Usage
		want APIUsage
	}{
		{providers.Usage{InputTokens: 100, OutputTokens: 7, CachedInputTokens: 60, CacheWriteTokens: 30}, APIUsage{InputTokens: 10, CacheCreationInputTokens: 30, CacheReadInputTokens: 60, OutputTokens: 7}},
		{providers.Usage{InputTokens: 5, CachedInputTokens: 9}, APIUsage{InputTokens: 0, CacheReadInputTokens: 9}}, // a provider that overcounts
		{providers.Usage{}, APIUsage{}},
	}
	for _, tt := range tests {
		if got := NewAPIUsage(tt.in); got != tt.want {
			t.Errorf("NewAPIUsage(%+v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// A reader that goes away (run_eval.py kills the run once it has its
// answer) stops the writes; the run goes on.
func TestWriteFailureStopsWriting(t *testing.T) {
	t.Parallel()
	w := &failingWriter{}
	s := New(w, Options{NewID: fixedIDs(), Now: fixedClock()})
	s.Init(Init{SessionID: "s"})
	for _, ev := range scriptedRun() {
		s.Handle(ev)
	}
	s.WriteResult(s.Result(Outcome{Status: agent.StatusOK}))
	if w.calls != 1 {
		t.Errorf("%d writes after a failed one", w.calls-1)
	}
}

type failingWriter struct{ calls int }

func (w *failingWriter) Write([]byte) (int, error) {
	w.calls++
	return 0, errors.New("broken pipe")
}

func TestNewUUID(t *testing.T) {
	t.Parallel()
	a, b := newUUID(), newUUID()
	if a == b || len(a) != 36 || a[14] != '4' || !strings.ContainsRune("89ab", rune(a[19])) {
		t.Errorf("uuids %q, %q", a, b)
	}
}
