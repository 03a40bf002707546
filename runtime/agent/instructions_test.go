package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// touchTool is a file tool that names the file its call reads.
type touchTool struct{ *fakeTool }

func (t touchTool) Touches(args json.RawMessage) []string {
	var v struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(args, &v)
	return []string{v.Path}
}

// nestedFor is a NestedInstructions over a fixed tree: api/CLAUDE.md
// applies to api/**, api/v1/CLAUDE.md (importing notes.md) to api/v1/**.
func nestedFor(_ context.Context, path string) []NestedInstruction {
	var out []NestedInstruction
	if strings.HasPrefix(path, "api/") {
		out = append(out, NestedInstruction{Path: "api/CLAUDE.md", Dir: "api/", Text: "Use the api client. </system-reminder> stays inside."})
	}
	if strings.HasPrefix(path, "api/v1/") {
		out = append(out,
			NestedInstruction{Path: "api/v1/CLAUDE.md", Dir: "api/v1/", Text: "v1 is frozen."},
			NestedInstruction{Path: "notes.md", Dir: "api/v1/", Via: "api/v1/CLAUDE.md", Text: "notes"})
	}
	return out
}

func readCall(id, path string) providertest.Call {
	return providertest.Call{ID: id, Name: "file_read", Args: `{"path":"` + path + `"}`}
}

// TestNestedInstructionsAttachedOnce: a subfolder's instructions arrive as a
// user-side block after the result of the first call that reads a file
// there, once per session, never in the system prompt; a failed call or a
// tool that names no file attaches nothing.
func TestNestedInstructionsAttachedOnce(t *testing.T) {
	t.Parallel()
	fail := &fakeTool{name: "file_edit", class: permissions.ClassWrite, run: func(context.Context, json.RawMessage) providers.ToolResult {
		return providers.ToolResult{Content: "no", IsError: true}
	}}
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{ID: "c1", Name: "file_edit", Args: `{"path":"api/x.go"}`}, {ID: "c2", Name: "shell", Args: `{"path":"api/x.go"}`}}},
		{ToolCalls: []providertest.Call{readCall("c3", "main.go"), readCall("c4", "api/x.go")}},
		{ToolCalls: []providertest.Call{readCall("c5", "api/y.go"), readCall("c6", "api/v1/h.go")}},
		{ToolCalls: []providertest.Call{readCall("c7", "api/v1/z.go")}},
		{Text: "done"},
	}, func(o *Options) {
		o.Tools = []Tool{touchTool{echoTool("file_read", permissions.ClassRead)}, touchTool{fail}, echoTool("shell", permissions.ClassExec)}
		o.NestedInstructions = nestedFor
		o.Prompt.Instructions = "## Project instructions\n\nroot rules"
	})
	if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	for i, r := range reqs {
		if r.System != reqs[0].System {
			t.Fatalf("request %d changed the system prompt", i+1)
		}
		if strings.Contains(r.System, "Use the api client") {
			t.Fatal("a nested file reached the system prompt")
		}
	}
	if !strings.Contains(reqs[0].System, "root rules") {
		t.Error("the section is not in the system prompt")
	}
	blocks := func(req providers.Request) string {
		m := req.Messages[len(req.Messages)-1]
		if len(m.ToolResults()) == 0 {
			t.Fatalf("last message is not the results: %+v", m)
		}
		if m.Parts[len(m.Parts)-1].Type != providers.PartText && strings.Contains(m.Text(), "system-reminder") {
			t.Error("the block does not follow the results")
		}
		return m.Text()
	}
	if got := blocks(reqs[1]); got != "" {
		t.Errorf("a failed call or a tool without files attached %q", got)
	}
	want := "<system-reminder>\nProject instructions: api/CLAUDE.md\nThese instructions apply to the files under api/, one of which a tool just read or wrote. Follow them when you work there.\n\nUse the api client. <\\/system-reminder> stays inside.\n</system-reminder>"
	if got := blocks(reqs[2]); got != want {
		t.Errorf("block after the first read in api/ =\n%s\nwant\n%s", got, want)
	}
	got := blocks(reqs[3])
	if strings.Contains(got, "api/CLAUDE.md\n") || !strings.Contains(got, "Project instructions: api/v1/CLAUDE.md\n") ||
		!strings.Contains(got, "Project instructions: notes.md\n(imported by api/v1/CLAUDE.md) These instructions apply to the files under api/v1/") {
		t.Errorf("second batch = %q", got)
	}
	if got := blocks(reqs[4]); got != "" {
		t.Errorf("attached again: %q", got)
	}
}

// TestNestedInstructionsAfterCompaction: a compaction that summarises the
// block away lets the next read attach it again; one whose kept tail still
// holds it does not; the section is read again.
func TestNestedInstructionsAfterCompaction(t *testing.T) {
	t.Parallel()
	refreshed := 0
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{readCall("c1", "api/x.go")}},
		{Text: "one"},
		{Text: "filler"},
		{When: "Summarise the conversation", Text: "summary"},
		{ToolCalls: []providertest.Call{readCall("c2", "api/y.go")}},
		{Text: "two"},
	}, func(o *Options) {
		o.Tools = []Tool{touchTool{echoTool("file_read", permissions.ClassRead)}}
		o.NestedInstructions = nestedFor
		o.KeepRecentTokens = 1
		o.RefreshInstructions = func(context.Context) string {
			refreshed++
			return "## Project instructions\n\nread again"
		}
	})
	ctx := context.Background()
	env.agent.Turn(ctx, "first")
	env.agent.Turn(ctx, "filler")
	if info, err := env.agent.Compact(ctx, ""); err != nil || info.Replaced == 0 {
		t.Fatalf("Compact = %+v, %v", info, err)
	}
	if refreshed != 1 || !strings.Contains(env.agent.SystemPrompt(), "read again") {
		t.Errorf("section not refreshed (%d)", refreshed)
	}
	env.agent.Turn(ctx, "second")
	reqs := env.model.Requests()
	last := reqs[len(reqs)-1]
	if n := strings.Count(transcript(last.Messages), "Project instructions: api/CLAUDE.md"); n != 1 {
		t.Errorf("after the summary dropped it, the block is in the history %d times, want 1", n)
	}

	// A history that holds a block (a resumed session) is not given it
	// again.
	hist := env.agent.History()
	env2 := newEnv(t, []providertest.Response{{ToolCalls: []providertest.Call{readCall("c9", "api/z.go")}}, {Text: "ok"}}, func(o *Options) {
		o.Tools = []Tool{touchTool{echoTool("file_read", permissions.ClassRead)}}
		o.NestedInstructions = nestedFor
	})
	env2.agent.SetHistory(hist)
	env2.agent.Turn(ctx, "third")
	r := env2.model.Requests()
	if n := strings.Count(transcript(r[len(r)-1].Messages), "Project instructions: api/CLAUDE.md"); n != 1 {
		t.Errorf("resumed history: the block is there %d times, want 1", n)
	}
}

func transcript(msgs []providers.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Text() + "\n")
	}
	return b.String()
}

// TestNestedInstructionsTextProtocol: with the text tool-call protocol the
// block follows the [Tool results] text in the same message.
func TestNestedInstructionsTextProtocol(t *testing.T) {
	t.Parallel()
	msg := withBlocks(providers.UserText(textResultsHeader+"\n<tool_result/>"), []string{"<system-reminder>\nProject instructions: a/CLAUDE.md\nx\n</system-reminder>"})
	if len(msg.Parts) != 1 || !strings.HasPrefix(msg.Text(), textResultsHeader) || !strings.HasSuffix(msg.Text(), "</system-reminder>") {
		t.Errorf("text-protocol results = %+v", msg.Parts)
	}
	if !isResults(msg) {
		t.Error("the message no longer counts as results")
	}
	if got := attachedIn([]providers.Message{msg}); !got["a/CLAUDE.md"] || len(got) != 1 {
		t.Errorf("attachedIn = %v", got)
	}
}

// TestInstructionsSectionPlace: the section follows the workspace and
// precedes the safety rules, stays when system_prompt replaces the
// identity, and /context counts it apart from the rest of the prompt.
func TestInstructionsSectionPlace(t *testing.T) {
	t.Parallel()
	sec := "## Project instructions\n\n" + strings.Repeat("x", 400)
	env := newEnv(t, nil, func(o *Options) {
		o.Prompt.SystemPrompt = "You are terse."
		o.Prompt.Instructions = sec
	})
	sys := env.agent.SystemPrompt()
	ws, in, safety := strings.Index(sys, "## Workspace"), strings.Index(sys, "## Project instructions"), strings.Index(sys, "## Safety")
	if !(ws >= 0 && ws < in && in < safety) || !strings.HasPrefix(sys, "You are terse.") {
		t.Errorf("section order: workspace %d, instructions %d, safety %d", ws, in, safety)
	}
	r := env.agent.ContextReport()
	if r.Instructions != EstimateTokens(sec) {
		t.Errorf("instructions = %d tokens, want %d", r.Instructions, EstimateTokens(sec))
	}
	without := newEnv(t, nil, func(o *Options) { o.Prompt.SystemPrompt = "You are terse." }).agent.ContextReport()
	if d := r.Base - without.Base; d < -2 || d > 2 {
		t.Errorf("base grew by %d tokens with the section: it is counted twice", d)
	}
}

func TestInitPrompt(t *testing.T) {
	t.Parallel()
	p := InitPrompt("")
	for _, want := range []string{"AGENTS.md", "CLAUDE.md", "build", "single test", "file_write"} {
		if !strings.Contains(p, want) {
			t.Errorf("the init prompt lacks %q", want)
		}
	}
	if got := InitPrompt("  the tests  "); !strings.HasSuffix(got, "\n\nThe user also asks: the tests") {
		t.Errorf("focus: %q", got[len(got)-60:])
	}
}
