package agent

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers/providertest"
)

type fakeMemory struct{ user, project string }

func (f *fakeMemory) Indexes() (string, string) { return f.user, f.project }

// TestMemorySectionFrozen: the `## Memory` section carries both indexes,
// stays byte-identical while memories are written during the session, and
// is read again after a compaction.
func TestMemorySectionFrozen(t *testing.T) {
	t.Parallel()
	mem := &fakeMemory{user: "# User memory\n- [tabs](tabs.md) — prefers tabs"}
	env := newEnv(t, []providertest.Response{{Text: "one"}, {Text: "two"}}, func(o *Options) { o.Memory = mem })
	ctx := context.Background()
	env.agent.Turn(ctx, "first")
	mem.user += "\n- [go](go.md) — writes Go"
	env.agent.Turn(ctx, "second")
	reqs := env.model.Requests()
	if reqs[0].System != reqs[1].System {
		t.Fatal("a memory write changed the system prompt mid-session")
	}
	sys := reqs[0].System
	for _, want := range []string{"## Memory", "memory_store", "### User memory (MEMORY.md)", "- [tabs](tabs.md) — prefers tabs", "### Project memory (MEMORY.md)\n\n(empty)"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if strings.Index(sys, "## Memory") > strings.Index(sys, "## Safety") {
		t.Error("## Memory must come before ## Safety (§5.1)")
	}
	env.agent.refreshMemory() // what a compaction does
	if !strings.Contains(env.agent.SystemPrompt(), "writes Go") {
		t.Error("the section was not refreshed")
	}
}

// TestMemorySectionDailyLog: in daily-log mode the section says that
// memory_store notes facts in today's log, names no date (the prompt is
// the same bytes on every day), and keeps both indexes.
func TestMemorySectionDailyLog(t *testing.T) {
	t.Parallel()
	mem := &fakeMemory{user: "# User memories\n\n- [tabs](tabs.md) — prefers tabs"}
	topics := memorySection(mem, false)
	logs := memorySection(mem, true)
	if topics == logs {
		t.Fatal("the modes render the same section")
	}
	for _, want := range []string{"## Memory", "memory_store appends one short, timestamped note to today's log (logs/YYYY-MM-DD.md in the memory folder)", "distilled", "- [tabs](tabs.md) — prefers tabs", "### Project memory (MEMORY.md)\n\n(empty)"} {
		if !strings.Contains(logs, want) {
			t.Errorf("daily-log section lacks %q:\n%s", want, logs)
		}
	}
	if regexp.MustCompile(`\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}`).MatchString(logs) {
		t.Errorf("the daily-log section holds a date or time:\n%s", logs)
	}
	if strings.Contains(logs, "memory_store with the same name") {
		t.Error("the daily-log section speaks of topic files' names")
	}
	env := newEnv(t, []providertest.Response{{Text: "one"}}, func(o *Options) { o.Memory, o.MemoryDailyLog = mem, true })
	env.agent.Turn(context.Background(), "hi")
	if sys := env.model.Requests()[0].System; !strings.Contains(sys, logs) {
		t.Error("the agent's prompt lacks the daily-log section")
	}
}

// TestAutoRecallOncePerSession: the recall block is prefixed to the user
// message, never the system prompt, and a memory is given once.
func TestAutoRecallOncePerSession(t *testing.T) {
	t.Parallel()
	var excludes [][]string
	env := newEnv(t, []providertest.Response{{Text: "one"}, {Text: "two"}}, func(o *Options) {
		o.Recall = func(_ context.Context, text string, exclude []string) (string, []string) {
			excludes = append(excludes, append([]string(nil), exclude...))
			if strings.Contains(text, "indent") && len(exclude) == 0 {
				return "<memory_context>\nuser/tabs.md (updated 2026-11-01): prefers tabs\n</memory_context>\n\n", []string{"user/tabs.md"}
			}
			return "", nil
		}
	})
	ctx := context.Background()
	env.agent.Turn(ctx, "how should I indent?")
	env.agent.Turn(ctx, "and indent again?")
	reqs := env.model.Requests()
	first := reqs[0].Messages[0].Text()
	if !strings.HasPrefix(first, "<memory_context>\nuser/tabs.md") || !strings.HasSuffix(first, "] how should I indent?") {
		t.Fatalf("first user message = %q", first)
	}
	if strings.Contains(reqs[0].System, "memory_context") {
		t.Error("recall reached the system prompt")
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1].Text()
	if strings.Contains(last, "memory_context") {
		t.Errorf("recalled twice: %q", last)
	}
	if len(excludes) != 2 || len(excludes[1]) != 1 || excludes[1][0] != "user/tabs.md" {
		t.Errorf("excludes = %v", excludes)
	}
}

// The recalled set belongs to the session (issue 20, item 21): each recall
// is recorded, and a resumed session passes the saved set as exclude, so a
// memory recalled before --continue is not given again.
func TestAutoRecallResumed(t *testing.T) {
	t.Parallel()
	recaller := func(excludes *[][]string) Recaller {
		return func(_ context.Context, text string, exclude []string) (string, []string) {
			*excludes = append(*excludes, slices.Clone(exclude))
			if slices.Contains(exclude, "user/tabs.md") {
				return "", nil
			}
			return "<memory_context>\ntabs\n</memory_context>\n\n", []string{"user/tabs.md"}
		}
	}
	rec := &memRecorder{}
	var first [][]string
	env := newEnv(t, []providertest.Response{{Text: "one"}}, func(o *Options) {
		o.Recall, o.Recorder = recaller(&first), rec
	})
	if _, err := env.agent.Turn(t.Context(), "indent?"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.recalled, []string{"user/tabs.md"}) {
		t.Fatalf("recorded recall = %q", rec.recalled)
	}
	var second [][]string
	env2 := newEnv(t, []providertest.Response{{Text: "two"}}, func(o *Options) { o.Recall = recaller(&second) })
	env2.agent.Resume(t.Context(), rec.messages, nil, nil, rec.recalled)
	if _, err := env2.agent.Turn(t.Context(), "indent again?"); err != nil {
		t.Fatal(err)
	}
	if len(second) != 1 || !slices.Equal(second[0], []string{"user/tabs.md"}) {
		t.Errorf("excludes after resume = %q", second)
	}
	var all strings.Builder
	for _, m := range env2.model.Requests()[0].Messages {
		all.WriteString(m.Text())
	}
	if n := strings.Count(all.String(), "<memory_context>"); n != 1 {
		t.Errorf("%d <memory_context> blocks after resume, want the first one only", n)
	}
}
