package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/skills"
)

// reportTwice reports "<tag> one\n", waits until the sink has shown it,
// then reports "<tag> two\n": two chunks a throttle cannot merge.
func reportTwice(t *testing.T, env **testEnv, ctx context.Context, tag string) {
	report := providers.ToolOutput(ctx)
	if report == nil {
		t.Errorf("%s: the call's context has no output function", tag)
		return
	}
	report(tag + " one\n")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(outputText(*env), tag+" one\n") {
		if time.Now().After(deadline) {
			t.Errorf("%s: the first chunk never reached the sink", tag)
			return
		}
		time.Sleep(time.Millisecond)
	}
	report(tag + " two\n")
}

// outputText joins the Text of the tool_output events seen so far.
func outputText(env *testEnv) string {
	var b strings.Builder
	for _, ev := range env.eventsOf(EventToolOutput) {
		b.WriteString(ev.Text)
	}
	return b.String()
}

// callEvents lists the tool_call, tool_output and tool_result events as
// "type id parent text".
func callEvents(env *testEnv) []string {
	env.mu.Lock()
	defer env.mu.Unlock()
	var out []string
	for _, ev := range env.events {
		switch ev.Type {
		case EventToolCall, EventToolOutput, EventToolResult:
			out = append(out, strings.Join([]string{string(ev.Type), ev.ID, ev.Parent, ev.Text + ev.Result}, "|"))
		}
	}
	return out
}

// A running call's output reaches the sink as tool_output events of its
// call, before its result, from a tool the model called, a fork's
// sub-agent (with its Parent), and a shell skill run by the model or by
// the user; it is not recorded.
func TestToolOutputEvents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script []providertest.Response
		invoke string // a /NAME the user runs instead of a turn
		want   []string
	}{
		{
			name: "tool call",
			script: []providertest.Response{
				{ToolCalls: []providertest.Call{{Name: "runner", Args: `{}`}}},
				{Text: "ok"},
			},
			want: []string{"tool_call|call_1||", "tool_output|call_1||runner one\n", "tool_output|call_1||runner two\n", "tool_result|call_1||done"},
		},
		{
			name: "fork sub-agent",
			script: []providertest.Response{
				skillCall(`{"skill":"reviewer","args":"1"}`),
				{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{}`}}},
				{Text: "LGTM"},
				{Text: "ok"},
			},
			want: []string{"tool_call|call_1||", "tool_call|call_2|call_1|", "tool_output|call_2|call_1|reader one\n",
				"tool_output|call_2|call_1|reader two\n", "tool_result|call_2|call_1|read", "tool_result|call_1||Result of skill 'reviewer':\nLGTM"},
		},
		{
			name: "shell skill called by the model",
			script: []providertest.Response{
				skillCall(`{"skill":"stamp"}`),
				{Text: "ok"},
			},
			want: []string{"tool_call|call_1||", "tool_output|call_1||skill one\n", "tool_output|call_1||skill two\n", "tool_result|call_1||stamped"},
		},
		{
			name:   "shell skill run by the user",
			invoke: "stamp",
			want:   []string{"tool_call|/stamp||", "tool_output|/stamp||skill one\n", "tool_output|/stamp||skill two\n", "tool_result|/stamp||stamped"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var env *testEnv
			rec := &memRecorder{}
			env = newEnv(t, tt.script, func(o *Options) {
				runnerSkills()(o)
				o.Recorder = rec
				o.Tools = []Tool{
					&fakeTool{name: "runner", class: permissions.ClassExec, run: func(ctx context.Context, _ json.RawMessage) providers.ToolResult {
						reportTwice(t, &env, ctx, "runner")
						return providers.ToolResult{Content: "done"}
					}},
					&fakeTool{name: "file_read", class: permissions.ClassRead, run: func(ctx context.Context, _ json.RawMessage) providers.ToolResult {
						reportTwice(t, &env, ctx, "reader")
						return providers.ToolResult{Content: "read"}
					}},
					echoTool("shell", permissions.ClassExec),
				}
				o.SkillShell = func(ctx context.Context, _ *skills.Skill, _, _ string) providers.ToolResult {
					reportTwice(t, &env, ctx, "skill")
					return providers.ToolResult{Content: "stamped"}
				}
			})
			if tt.invoke != "" {
				if _, out := env.agent.InvokeSkill(t.Context(), tt.invoke, ""); out.IsError {
					t.Fatalf("InvokeSkill: %+v", out)
				}
			} else if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			got := callEvents(env)
			for i := range got { // the Args of tool_call differ; keep type, ids and text
				if strings.HasPrefix(got[i], "tool_call|") {
					got[i] = got[i][:strings.LastIndex(got[i], "|")+1]
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			for _, m := range rec.messages {
				if b, _ := json.Marshal(m); strings.Contains(string(b), " one\\n") {
					t.Errorf("live output recorded in the session: %s", b)
				}
			}
		})
	}
}

// A call that reports nothing sends no tool_output, and its context has
// the function all the same.
func TestToolOutputNone(t *testing.T) {
	t.Parallel()
	var had bool
	env := newEnv(t, []providertest.Response{
		{ToolCalls: []providertest.Call{{Name: "quiet", Args: `{}`}}},
		{Text: "ok"},
	}, func(o *Options) {
		o.Tools = append(o.Tools, &fakeTool{name: "quiet", class: permissions.ClassRead, run: func(ctx context.Context, _ json.RawMessage) providers.ToolResult {
			had = providers.ToolOutput(ctx) != nil
			return providers.ToolResult{Content: "done"}
		}})
	})
	if _, err := env.agent.Turn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if !had {
		t.Error("the call's context has no output function")
	}
	if ev := env.eventsOf(EventToolOutput); len(ev) != 0 {
		t.Errorf("tool_output events %+v for a call that reported nothing", ev)
	}
}

// emitLog records what an outputTail sends and when.
type emitLog struct {
	mu    sync.Mutex
	texts []string
	times []time.Time
}

func (l *emitLog) emit(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.texts = append(l.texts, s)
	l.times = append(l.times, time.Now())
}

// A call writing without pause gets one event per interval at most (and
// one last when it ends), and nothing it wrote is lost when it writes less
// than the cap per interval.
func TestOutputTailThrottles(t *testing.T) {
	t.Parallel()
	const interval = 50 * time.Millisecond
	var log emitLog
	tail := newOutputTail(log.emit, interval)
	var fed strings.Builder
	start := time.Now()
	for i := 0; time.Since(start) < 400*time.Millisecond; i++ {
		chunk := string(rune('a' + i%26))
		fed.WriteString(chunk)
		tail.add(chunk)
		time.Sleep(200 * time.Microsecond)
	}
	tail.close()
	elapsed := time.Since(start)
	if got := strings.Join(log.texts, ""); got != fed.String() {
		t.Errorf("events join to %d bytes, %d were written", len(got), fed.Len())
	}
	if max := int(elapsed/interval) + 2; len(log.texts) > max {
		t.Errorf("%d events in %s, want at most %d", len(log.texts), elapsed, max)
	}
	if len(log.texts) < 3 {
		t.Errorf("%d events in %s: the output was not sent as it came", len(log.texts), elapsed)
	}
	for i := 1; i < len(log.times)-1; i++ { // the last one is sent at close
		if gap := log.times[i].Sub(log.times[i-1]); gap < interval {
			t.Errorf("events %d and %d %s apart, want at least %s", i-1, i, gap, interval)
		}
	}
}

// An event carries the last maxOutputEvent bytes of what came meanwhile,
// cut at a character boundary; the tail sends nothing after close and
// never makes the tool wait for the sink.
func TestOutputTailCapAndClose(t *testing.T) {
	t.Parallel()
	entered, release := make(chan struct{}, 1), make(chan struct{})
	var log emitLog
	blocked := func(s string) {
		entered <- struct{}{}
		<-release // a sink held by an approval prompt
		log.emit(s)
	}
	tail := newOutputTail(blocked, time.Hour)
	tail.add("first\n")
	<-entered // it took "first\n"; the rest waits for close
	// Two bytes a character, twice the cap.
	flood := strings.Repeat("é", maxOutputEvent) + "end\n"
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			tail.add(flood) // must not wait for the blocked sink
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("add waited for the sink")
	}
	close(release)
	tail.close()
	tail.add("late\n")
	if len(log.texts) != 2 {
		t.Fatalf("%d events %q, want 2 (the first chunk, then the rest at close)", len(log.texts), log.texts)
	}
	last := log.texts[1]
	if len(last) > maxOutputEvent || !utf8.ValidString(last) || !strings.HasSuffix(flood, last) || len(last) < maxOutputEvent-1 {
		t.Errorf("last event is %d bytes (valid UTF-8 %v), want the flood's last %d", len(last), utf8.ValidString(last), maxOutputEvent)
	}
	// A tail that got nothing starts nothing and sends nothing.
	quiet := newOutputTail(func(string) { t.Error("a quiet call sent an event") }, time.Hour)
	quiet.close()
}
