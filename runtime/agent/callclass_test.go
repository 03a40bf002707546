package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// perCallTool is a write-class tool whose "read" calls are read-class, like
// git's status next to its commit.
type perCallTool struct{ *fakeTool }

func (p perCallTool) CallClass(args json.RawMessage) permissions.Class {
	if strings.Contains(string(args), `"read"`) {
		return permissions.ClassRead
	}
	return permissions.ClassWrite
}

// Under supervised autonomy, a call whose own class is read runs without
// asking; a write call of the same tool asks, and the approval request
// carries the call's class.
func TestCallClassDecidesApproval(t *testing.T) {
	t.Parallel()
	ap := &scriptedApprover{answers: []Approval{ApproveOnce}}
	calls := providertest.Response{ToolCalls: []providertest.Call{
		{Name: "git", Args: `{"action":"read"}`}, {Name: "git", Args: `{"action":"write"}`}}}
	env := newEnv(t, []providertest.Response{calls, {Text: "ok"}}, func(o *Options) {
		o.Tools = append(o.Tools, perCallTool{echoTool("git", permissions.ClassWrite)})
		o.Policy = permissions.Policy{Level: permissions.Supervised}
		o.Approver = ap
	})
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if len(ap.asked) != 1 || ap.asked[0].Args != `{"action":"write"}` || ap.asked[0].Class != permissions.ClassWrite {
		t.Errorf("approval requests = %+v, want one for the write call", ap.asked)
	}
	for _, r := range lastResults(env.model.Requests()[1]) {
		if r.IsError {
			t.Errorf("result %+v", r)
		}
	}
}

// orderedFake is a tool whose calls must run in call order.
type orderedFake struct{ *fakeTool }

func (orderedFake) Ordered() bool { return true }

// The calls of an ordered tool in one response run one at a time, in call
// order, although the agent runs calls concurrently: the first call gives
// the second every chance to start early.
func TestOrderedToolRunsInCallOrder(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var log []string
	secondStarted := make(chan struct{}, 1)
	tool := orderedFake{&fakeTool{name: "git", class: permissions.ClassRead,
		run: func(_ context.Context, args json.RawMessage) providers.ToolResult {
			mu.Lock()
			log = append(log, "start "+string(args))
			mu.Unlock()
			switch string(args) {
			case `{"n":1}`:
				select {
				case <-secondStarted:
				case <-time.After(200 * time.Millisecond):
				}
			case `{"n":2}`:
				secondStarted <- struct{}{}
			}
			mu.Lock()
			log = append(log, "end "+string(args))
			mu.Unlock()
			return providers.ToolResult{Content: "ok"}
		}}}
	calls := providertest.Response{ToolCalls: []providertest.Call{
		{Name: "git", Args: `{"n":1}`}, {Name: "git", Args: `{"n":2}`}, {Name: "git", Args: `{"n":3}`}}}
	env := newEnv(t, []providertest.Response{calls, {Text: "ok"}}, func(o *Options) {
		o.Tools = append(o.Tools, tool)
		o.ParallelTools = 4
	})
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	want := []string{`start {"n":1}`, `end {"n":1}`, `start {"n":2}`, `end {"n":2}`, `start {"n":3}`, `end {"n":3}`}
	if !slices.Equal(log, want) {
		t.Errorf("order = %q", log)
	}
}

// A write and a read of one response run in call order, one after the
// other: the read sees what the write did (issue 20, item 16: cron_add then
// cron_list showed no job, file_write then file_read of that file failed).
// Only reads run concurrently.
func TestWriteThenReadRunInOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		calls      []providertest.Call
		want       []string
		concurrent bool
	}{
		{"write then read", []providertest.Call{{Name: "store", Args: `{"v":"new"}`}, {Name: "load"}}, []string{"stored", "new"}, false},
		{"read then write", []providertest.Call{{Name: "load"}, {Name: "store", Args: `{"v":"new"}`}}, []string{"old", "stored"}, false},
		{"per-call write then read", []providertest.Call{{Name: "git", Args: `{"action":"write"}`}, {Name: "load"}}, []string{"stored", "new"}, false},
		{"reads only", []providertest.Call{{Name: "load"}, {Name: "load"}}, []string{"old", "old"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			value := "old"
			var running, peak int
			enter := func() {
				mu.Lock()
				running++
				peak = max(peak, running)
				mu.Unlock()
				time.Sleep(30 * time.Millisecond) // gives a concurrent call every chance to overlap
			}
			leave := func() {
				mu.Lock()
				running--
				mu.Unlock()
			}
			store := func(context.Context, json.RawMessage) providers.ToolResult {
				enter()
				defer leave()
				mu.Lock()
				value = "new"
				mu.Unlock()
				return providers.ToolResult{Content: "stored"}
			}
			load := &fakeTool{name: "load", class: permissions.ClassRead, run: func(context.Context, json.RawMessage) providers.ToolResult {
				mu.Lock()
				v := value
				mu.Unlock()
				enter()
				defer leave()
				return providers.ToolResult{Content: v}
			}}
			env := newEnv(t, []providertest.Response{{ToolCalls: tt.calls}, {Text: "ok"}}, func(o *Options) {
				o.Tools = []Tool{load, &fakeTool{name: "store", class: permissions.ClassWrite, run: store},
					perCallTool{&fakeTool{name: "git", class: permissions.ClassWrite, run: store}}}
				o.ParallelTools = 4
			})
			if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range lastResults(env.model.Requests()[1]) {
				got = append(got, r.Content)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("results = %q, want %q", got, tt.want)
			}
			if (peak > 1) != tt.concurrent {
				t.Errorf("at most %d calls ran at once; concurrent = %v", peak, tt.concurrent)
			}
		})
	}
}
