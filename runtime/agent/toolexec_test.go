package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

func TestToolCallErrors(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{
			{Name: "no_such_tool", Args: `{}`},
			{Name: "file_read", Args: `{"path": `},
			{Name: "file_read", Args: `{"path":"a"}`},
		}},
		{Text: "recovered"},
	}, nil)
	res, err := env.agent.Turn(t.Context(), "go")
	if err != nil || res.Final != "recovered" {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	got := lastResults(env.model.Requests()[1])
	want := []providers.ToolResult{
		{CallID: "call_1", Name: "no_such_tool", Content: "Unknown tool: no_such_tool", IsError: true},
		{CallID: "call_2", Name: "file_read", Content: `Invalid arguments for file_read: not valid JSON: {"path":`, IsError: true},
		{CallID: "call_3", Name: "file_read", Content: `file_read:{"path":"a"}`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]ToolCallSummary{{"no_such_tool", false}, {"file_read", false}, {"file_read", true}}, res.ToolCalls); diff != "" {
		t.Errorf("summaries (-want +got):\n%s", diff)
	}
}

func TestMaxIterations(t *testing.T) {
	t.Parallel()
	var script []providertest.Response
	for range 5 {
		script = append(script, providertest.Response{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{}`}}})
	}
	env := newEnv(t, script, func(o *Options) { o.MaxIterations = 3 })
	res, err := env.agent.Turn(t.Context(), "loop")
	if !errors.Is(err, ErrMaxIterations) || res.Status != StatusMaxIterations || res.Iterations != 3 {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	if ev := env.eventsOf(EventError); len(ev) != 1 || ev[0].Text != "Agent exceeded maximum tool iterations (3)" {
		t.Errorf("error events = %+v", ev)
	}
	h := env.agent.History()
	if diff := cmp.Diff(h, repairHistory(h)); diff != "" {
		t.Errorf("history left invalid:\n%s", diff)
	}
	if len(env.model.Requests()) != 3 {
		t.Errorf("%d requests, want 3", len(env.model.Requests()))
	}
}

func TestParallelCallsKeepOrderWithinLimit(t *testing.T) {
	t.Parallel()
	var running, peak atomic.Int32
	slow := &fakeTool{name: "slow", class: permissions.ClassRead, run: func(ctx context.Context, args json.RawMessage) providers.ToolResult {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		return providers.ToolResult{Content: string(args)}
	}}
	var calls []providertest.Call
	for i := range 6 {
		calls = append(calls, providertest.Call{Name: "slow", Args: fmt.Sprintf(`{"n":%d}`, i)})
	}
	env := newEnv(t, []providertest.Response{{ToolCalls: calls}, {Text: "ok"}}, func(o *Options) {
		o.Tools = []Tool{slow}
		o.ParallelTools = 2
	})
	env.agent.Turn(t.Context(), "go")
	rs := lastResults(env.model.Requests()[1])
	for i, r := range rs {
		if r.Content != fmt.Sprintf(`{"n":%d}`, i) {
			t.Errorf("result %d = %q", i, r.Content)
		}
	}
	if p := peak.Load(); p > 2 {
		t.Errorf("%d calls ran at once, limit 2", p)
	}
}

func TestToolTimeoutPanicAndTruncation(t *testing.T) {
	t.Parallel()
	tools := []Tool{
		&fakeTool{name: "hang", run: func(ctx context.Context, _ json.RawMessage) providers.ToolResult {
			<-ctx.Done()
			return providers.ToolResult{Content: "stopped"}
		}},
		&fakeTool{name: "boom", run: func(context.Context, json.RawMessage) providers.ToolResult { panic("kaboom") }},
		&fakeTool{name: "big", run: func(context.Context, json.RawMessage) providers.ToolResult {
			return providers.ToolResult{Content: strings.Repeat("x", 90) + strings.Repeat("y", 30)}
		}},
	}
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "hang"}, {Name: "boom"}, {Name: "big"}}},
		{Text: "ok"},
	}, func(o *Options) {
		o.Tools = tools
		o.ToolTimeout = 20 * time.Millisecond
		o.MaxToolOutputChars = 30
	})
	env.agent.Turn(t.Context(), "go")
	rs := lastResults(env.model.Requests()[1])
	want := []string{
		"Tool hang timed out after 20ms.",
		"Tool boom failed: internal error: kaboom",
		strings.Repeat("x", 20) + "\n\n[... 90 characters truncated ...]\n\n" + strings.Repeat("y", 10),
	}
	for i, w := range want {
		if rs[i].Content != w {
			t.Errorf("result %d = %q, want %q", i, rs[i].Content, w)
		}
	}
	if !rs[0].IsError || !rs[1].IsError || rs[2].IsError {
		t.Errorf("error flags wrong: %+v", rs)
	}
}

func TestCancelMidStreamKeepsValidHistory(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{
		{Text: "partial answer", ToolCalls: []providertest.Call{{Name: "shell", Args: `{}`}}, HangAfterChunks: 1},
		{Text: "fresh"},
	}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	var once sync.Once
	env.agent.opts.Sink = func(ev Event) {
		env.sink(ev)
		if ev.Type == EventTextDelta {
			once.Do(cancel)
		}
	}
	res, err := env.agent.Turn(ctx, "start")
	if !errors.Is(err, context.Canceled) || res.Status != StatusCancelled {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	if len(env.eventsOf(EventToolCall)) != 0 {
		t.Error("a tool call of a cut response was announced")
	}
	if _, err := env.agent.Turn(t.Context(), "again"); err != nil {
		t.Fatal(err)
	}
	req := env.model.Requests()[1]
	for _, m := range req.Messages {
		if len(m.ToolCalls()) > 0 {
			t.Errorf("request after cancel carries tool calls: %+v", m)
		}
	}
	if got := req.Messages[1]; got.Role != providers.RoleAssistant || !strings.HasPrefix("partial answer", got.Text()) || got.Text() == "" {
		t.Errorf("partial text not kept: %+v", got)
	}
}

func TestCancelMidToolAnswersEveryCall(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	block := &fakeTool{name: "block", run: func(ctx context.Context, _ json.RawMessage) providers.ToolResult {
		close(started)
		<-ctx.Done()
		return providers.ToolResult{Content: "finished anyway"}
	}}
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "block"}, {Name: "file_read", Args: `{}`}}},
		{Text: "resumed"},
	}, func(o *Options) {
		o.Tools = []Tool{block, echoTool("file_read", permissions.ClassRead)}
		o.ParallelTools = 1
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	res, err := env.agent.Turn(ctx, "start")
	if !errors.Is(err, context.Canceled) || res.Status != StatusCancelled {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	if _, err := env.agent.Turn(t.Context(), "go on"); err != nil {
		t.Fatal(err)
	}
	rs := lastResults(env.model.Requests()[1])
	if len(rs) != 2 || rs[0].Content != "Cancelled by user." || rs[1].Content != "Cancelled by user." {
		t.Errorf("results after cancel = %+v", rs)
	}
}

type scriptedApprover struct {
	answers []Approval
	// reason goes with every Deny ("no, and tell the model why").
	reason string
	asked  []ApprovalRequest
}

func (s *scriptedApprover) Approve(_ context.Context, req ApprovalRequest) (ApprovalAnswer, error) {
	s.asked = append(s.asked, req)
	a := ApprovalAnswer{Decision: s.answers[0]}
	if a.Decision == Deny {
		a.Reason = s.reason
	}
	s.answers = s.answers[1:]
	return a, nil
}

func TestApproval(t *testing.T) {
	t.Parallel()
	shellCalls := providertest.Response{ToolCalls: []providertest.Call{{Name: "shell", Args: `{"command":"ls"}`}}}
	supervised := func(ap Approver) func(*Options) {
		return func(o *Options) {
			o.Policy = permissions.Policy{Level: permissions.Supervised, AutoApprove: []string{"file_read"}}
			o.Approver = ap
		}
	}
	t.Run("denied", func(t *testing.T) {
		ap := &scriptedApprover{answers: []Approval{Deny}}
		env := newEnv(t, []providertest.Response{shellCalls, {Text: "ok"}}, supervised(ap))
		env.agent.Turn(t.Context(), "go")
		if rs := lastResults(env.model.Requests()[1]); rs[0].Content != "The user denied the shell call." || !rs[0].IsError {
			t.Errorf("results = %+v", rs)
		}
	})
	t.Run("no approver", func(t *testing.T) {
		env := newEnv(t, []providertest.Response{shellCalls, {Text: "ok"}}, supervised(nil))
		env.agent.Turn(t.Context(), "go")
		rs := lastResults(env.model.Requests()[1])
		if !rs[0].IsError || !strings.Contains(rs[0].Content, "--yes") {
			t.Errorf("results = %+v", rs)
		}
	})
	t.Run("read tools never ask", func(t *testing.T) {
		ap := &scriptedApprover{}
		env := newEnv(t, []providertest.Response{{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{}`}}}, {Text: "ok"}}, supervised(ap))
		env.agent.Turn(t.Context(), "go")
		if len(ap.asked) != 0 {
			t.Errorf("asked for a read tool")
		}
	})
}

func TestReadOnlyHidesWriteTools(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{{ToolCalls: []providertest.Call{{Name: "shell", Args: `{}`}}}, {Text: "ok"}},
		func(o *Options) { o.Policy = permissions.Policy{Level: permissions.ReadOnly} })
	env.agent.Turn(t.Context(), "go")
	if diff := cmp.Diff([]string{"Skill", "file_read"}, env.agent.ToolNames()); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if rs := lastResults(env.model.Requests()[1]); rs[0].Content != "Unknown tool: shell" {
		t.Errorf("results = %+v", rs)
	}
}
