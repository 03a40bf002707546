package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/runtime/memory"
)

var memoryNow = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)

// newMemoryStore opens a real store in a temporary directory.
func newMemoryStore(t *testing.T) *memory.Store {
	t.Helper()
	s, err := memory.Open(context.Background(), memory.Options{
		Dir: t.TempDir(), Workspace: t.TempDir(), Now: func() time.Time { return memoryNow },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// memoryStep is one call of a memory tool and what its result must say.
type memoryStep struct {
	name    string
	tool    string
	args    string
	isError bool
	want    []string // regular expressions the result must match; DIR is the memory folder
	notWant []string
}

// runMemorySteps runs the steps in order against one store.
func runMemorySteps(t *testing.T, s *memory.Store, list []Tool, steps []memoryStep) {
	t.Helper()
	byName := map[string]Tool{}
	for _, tl := range list {
		byName[tl.Spec().Name] = tl
	}
	dir := regexp.QuoteMeta(s.Dir())
	for _, st := range steps {
		res := byName[st.tool].Run(context.Background(), json.RawMessage(st.args))
		if res.IsError != st.isError {
			t.Fatalf("%s: IsError = %v, want %v: %s", st.name, res.IsError, st.isError, res.Content)
		}
		for _, w := range st.want {
			if !regexp.MustCompile(strings.ReplaceAll(w, "DIR", dir)).MatchString(res.Content) {
				t.Errorf("%s: result does not match %q:\n%s", st.name, w, res.Content)
			}
		}
		for _, w := range st.notWant {
			if regexp.MustCompile(strings.ReplaceAll(w, "DIR", dir)).MatchString(res.Content) {
				t.Errorf("%s: result matches %q:\n%s", st.name, w, res.Content)
			}
		}
	}
}

// TestMemoryToolsRoundTrip: store, update, recall, forget, recall again;
// each result tells the model what happened and where.
func TestMemoryToolsRoundTrip(t *testing.T) {
	s := newMemoryStore(t)
	runMemorySteps(t, s, MemoryTools(s), []memoryStep{
		{
			name: "create user memory", tool: "memory_store",
			args: `{"name":"indentation","type":"user","description":"Prefers tabs over spaces","content":"Always indent with tabs."}`,
			want: []string{`^Created memory "indentation" in DIR/user/indentation\.md: type user, user scope, 24 characters of content\.\n`,
				`\ndescription: Prefers tabs over spaces\n`, `memory_recall finds this one now\.$`},
		},
		{
			name: "same name updates", tool: "memory_store",
			args: `{"name":"indentation","type":"user","description":"Prefers tabs, width 4","content":"Tabs, shown 4 wide."}`,
			want: []string{`^Updated memory "indentation" in DIR/user/indentation\.md \(created 2026-03-14\): type user`, `description: Prefers tabs, width 4`},
		},
		{
			name: "project memory goes to the project folder", tool: "memory_store",
			args: `{"name":"release freeze","type":"project","description":"Release freeze from 2026-04-01","content":"No merges to main during the freeze."}`,
			want: []string{`^Created memory "release freeze" in DIR/projects/[^/]+/[^/]+\.md: type project, project scope`},
		},
		{
			name: "recall finds the update", tool: "memory_recall", args: `{"query":"tabs"}`,
			want:    []string{`^1 memory matches "tabs":\n\nDIR/user/indentation\.md \(user, updated 2026-03-14\)\nindentation: Prefers tabs, width 4`},
			notWant: []string{`release`},
		},
		{
			name: "type filter", tool: "memory_recall", args: `{"query":"tabs","type":"project"}`,
			want: []string{`^No project memory matches "tabs"\.$`},
		},
		{
			name: "no match", tool: "memory_recall", args: `{"query":"kubernetes"}`,
			want: []string{`^No memory matches "kubernetes"\.$`},
		},
		{
			name: "forget", tool: "memory_forget", args: `{"name":"indentation"}`,
			want: []string{`^Deleted memory "indentation" \(DIR/user/indentation\.md\)\.$`},
		},
		{
			name: "forgotten is not recalled", tool: "memory_recall", args: `{"query":"tabs"}`,
			want: []string{`^No memory matches "tabs"\.$`},
		},
		{
			name: "forget twice", tool: "memory_forget", args: `{"name":"indentation"}`, isError: true,
			want: []string{`^No memory is named "indentation"; memory_recall finds`},
		},
	})
}

// TestMemoryToolsRefusals: every invalid call is an error result that
// says what to change.
func TestMemoryToolsRefusals(t *testing.T) {
	s := newMemoryStore(t)
	runMemorySteps(t, s, MemoryTools(s), []memoryStep{
		{name: "unknown type", tool: "memory_store", isError: true,
			args: `{"name":"x","type":"fact","description":"d","content":"c"}`,
			want: []string{`property "type": must be one of user, feedback, project, reference$`}},
		{name: "missing content", tool: "memory_store", isError: true,
			args: `{"name":"x","type":"user","description":"d"}`,
			want: []string{`missing required property "content"`}},
		{name: "blank name", tool: "memory_store", isError: true,
			args: `{"name":"  ","type":"user","description":"d","content":"c"}`,
			want: []string{`^name must not be empty`}},
		{name: "two-line description", tool: "memory_store", isError: true,
			args: `{"name":"x","type":"user","description":"one\ntwo","content":"c"}`,
			want: []string{`^description must be one line; put the details in content\.$`}},
		{name: "blank content", tool: "memory_store", isError: true,
			args: `{"name":"x","type":"user","description":"d","content":"\n"}`,
			want: []string{`^content must not be empty\.$`}},
		{name: "empty query", tool: "memory_recall", args: `{"query":" "}`, isError: true,
			want: []string{`^query must not be empty`}},
		{name: "limit above 10", tool: "memory_recall", args: `{"query":"x","limit":11}`, isError: true,
			want: []string{`property "limit": must be at most 10`}},
		{name: "limit 0", tool: "memory_recall", args: `{"query":"x","limit":0}`, isError: true,
			want: []string{`property "limit": must be at least 1`}},
		{name: "export format", tool: "memory_export", args: `{"format":"yaml"}`, isError: true,
			want: []string{`property "format": must be one of markdown, json$`}},
		{name: "purge scope", tool: "memory_purge", args: `{"scope":"everything","confirm":true}`, isError: true,
			want: []string{`property "scope": must be one of project, user, all$`}},
		{name: "forget blank", tool: "memory_forget", args: `{"name":""}`, isError: true,
			want: []string{`^name must not be empty\.$`}},
	})
}

// TestMemoryPurgeTool: without confirm nothing is deleted; with it only
// the scope asked for.
func TestMemoryPurgeTool(t *testing.T) {
	s := newMemoryStore(t)
	store := func(name, typ string) memoryStep {
		return memoryStep{name: "store " + name, tool: "memory_store",
			args: `{"name":"` + name + `","type":"` + typ + `","description":"about ` + name + `","content":"body of ` + name + `"}`}
	}
	runMemorySteps(t, s, MemoryTools(s), []memoryStep{
		store("alpha", "user"), store("beta", "feedback"), store("gamma", "project"), store("delta", "reference"),
		{name: "no confirm", tool: "memory_purge", args: `{"scope":"all"}`, isError: true,
			want: []string{`^Refused: memory_purge deletes every memory, of the user and of this project for good\. Call it again with confirm: true only if the user asked for that\.$`}},
		{name: "confirm false", tool: "memory_purge", args: `{"scope":"user","confirm":false}`, isError: true,
			want: []string{`^Refused: memory_purge deletes every user memory`}},
		{name: "still there", tool: "memory_recall", args: `{"query":"body","limit":10}`,
			want: []string{`^4 memories match "body"`}},
		{name: "purge project", tool: "memory_purge", args: `{"scope":"project","confirm":true}`,
			want: []string{`^Deleted 2 memory files \(every memory of this project\)\.$`}},
		{name: "user memories kept", tool: "memory_recall", args: `{"query":"body","limit":10}`,
			want: []string{`^2 memories match "body"`, `alpha`, `beta`}, notWant: []string{`gamma`, `delta`}},
		{name: "purge all", tool: "memory_purge", args: `{"scope":"all","confirm":true}`,
			want: []string{`^Deleted 2 memory files `}},
		{name: "nothing left", tool: "memory_recall", args: `{"query":"body"}`,
			want: []string{`^No memory matches "body"\.$`}},
	})
}

// TestMemoryExportTool: both formats hold every memory; JSON is valid.
func TestMemoryExportTool(t *testing.T) {
	s := newMemoryStore(t)
	runMemorySteps(t, s, MemoryTools(s), []memoryStep{
		{name: "store", tool: "memory_store", args: `{"name":"editor","type":"user","description":"Uses Helix","content":"The user edits with Helix."}`},
		{name: "store project", tool: "memory_store", args: `{"name":"ci","type":"reference","description":"CI dashboard","content":"https://ci.example.com/proj"}`},
		{name: "markdown", tool: "memory_export", args: `{}`, want: []string{`editor`, `The user edits with Helix\.`, `https://ci\.example\.com/proj`}},
	})
	res := NewMemoryExport(s).Run(context.Background(), json.RawMessage(`{"format":"json"}`))
	if res.IsError || !json.Valid([]byte(res.Content)) {
		t.Fatalf("json export: IsError=%v, valid=%v:\n%s", res.IsError, json.Valid([]byte(res.Content)), res.Content)
	}
	for _, w := range []string{"editor", "ci.example.com"} {
		if !strings.Contains(res.Content, w) {
			t.Errorf("json export lacks %q:\n%s", w, res.Content)
		}
	}
}

// TestMemoryToolClasses: reads need no approval, writes do.
func TestMemoryToolClasses(t *testing.T) {
	s := newMemoryStore(t)
	want := map[string]permissions.Class{
		"memory_export": permissions.ClassRead, "memory_recall": permissions.ClassRead,
		"memory_forget": permissions.ClassWrite, "memory_purge": permissions.ClassWrite, "memory_store": permissions.ClassWrite,
	}
	list := MemoryTools(s)
	if len(list) != len(want) {
		t.Fatalf("MemoryTools returned %d tools, want %d", len(list), len(want))
	}
	for _, tl := range list {
		name := tl.Spec().Name
		if got := tl.Class(); got != want[name] {
			t.Errorf("%s: class %v, want %v", name, got, want[name])
		}
		if !strings.HasPrefix(filepath.Base(name), "memory_") {
			t.Errorf("unexpected tool %s", name)
		}
	}
}

// TestDailyLogMemoryTools: in daily-log mode memory_store appends a note
// to today's log and says where; its schema has only content; the other
// memory tools are the same, on the topic files.
func TestDailyLogMemoryTools(t *testing.T) {
	s := newMemoryStore(t)
	list := DailyLogMemoryTools(s)
	var names []string
	for _, tl := range list {
		names = append(names, tl.Spec().Name)
	}
	if strings.Join(names, " ") != "memory_export memory_forget memory_purge memory_recall memory_store" {
		t.Fatalf("tools %v", names)
	}
	store := list[4]
	if got := string(store.Spec().Schema); got != `{"type":"object","properties":{"content":{"type":"string"}},"required":["content"],"additionalProperties":false}` {
		t.Errorf("schema %s", got)
	}
	if !strings.Contains(store.Spec().Description, "today's memory log") || store.Class() != permissions.ClassWrite {
		t.Errorf("description %q, class %v", store.Spec().Description, store.Class())
	}
	runMemorySteps(t, s, list, []memoryStep{
		{name: "note", tool: "memory_store", args: `{"content": "The user prefers tabs."}`,
			want: []string{`^Logged to DIR/logs/2026-03-14\.md:\n- 09:00 The user prefers tabs\.\n`, "memory_recall does not find it"}},
		{name: "second note", tool: "memory_store", args: `{"content": "CI is at\nhttps://ci.example.com"}`,
			want: []string{`\n- 09:00 CI is at https://ci\.example\.com\n`}},
		{name: "empty", tool: "memory_store", args: `{"content": "  "}`, isError: true, want: []string{"content must not be empty"}},
		{name: "topic arguments", tool: "memory_store", args: `{"name": "tabs", "content": "x"}`, isError: true},
		{name: "too long", tool: "memory_store", args: `{"content": "` + strings.Repeat("x", memory.MaxLogEntry+1) + `"}`, isError: true, want: []string{"^Cannot log the note: .*longer than 1000 characters"}},
		{name: "recall sees topics only", tool: "memory_recall", args: `{"query": "tabs"}`, want: []string{"No memory matches"}},
	})
	data, err := os.ReadFile(filepath.Join(s.LogsDir(), "2026-03-14.md"))
	if err != nil || string(data) != "# 2026-03-14\n\n- 09:00 The user prefers tabs.\n- 09:00 CI is at https://ci.example.com\n" {
		t.Errorf("log %q, %v", data, err)
	}
}
