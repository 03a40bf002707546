package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/runtime/session"
)

// memRecorder keeps what the agent records.
type memRecorder struct {
	messages    []providers.Message
	skills      []session.SkillChange
	compactions []session.Compaction
	usage       []providers.ModelUsage
	forks       []session.Fork
	recalled    []string
	todos       [][]session.Todo
	fail        error
}

func (r *memRecorder) RecordMessage(m providers.Message) error {
	r.messages = append(r.messages, m)
	return r.fail
}
func (r *memRecorder) RecordSkill(c session.SkillChange) error {
	r.skills = append(r.skills, c)
	return r.fail
}
func (r *memRecorder) RecordCompaction(c session.Compaction) error {
	r.compactions = append(r.compactions, c)
	return r.fail
}
func (r *memRecorder) RecordFork(f session.Fork) error {
	r.forks = append(r.forks, f)
	return r.fail
}
func (r *memRecorder) RecordRecall(memories []string) error {
	r.recalled = append(r.recalled, memories...)
	return r.fail
}
func (r *memRecorder) RecordTodos(items []session.Todo) error {
	r.todos = append(r.todos, items)
	return r.fail
}
func (r *memRecorder) RecordUsage(model string, u providers.Usage) error {
	r.usage = providers.AddModelUsage(r.usage, model, u)
	return r.fail
}

func filler(i int) string {
	return fmt.Sprintf("filler %d: %s", i, strings.Repeat("lorem ipsum ", 160))
}

func summaryResponses(n int) []providertest.Response {
	var out []providertest.Response
	for i := range n {
		out = append(out, providertest.Response{When: "Summarise the conversation", Text: fmt.Sprintf("## User goals\nSUMMARY-%d", i+1)})
	}
	return out
}

// isSummaryRequest tells the compaction requests from the conversation's.
func isSummaryRequest(r providers.Request) bool {
	if r.System == compactionSystem {
		return true
	}
	n := len(r.Messages)
	return n > 0 && strings.HasPrefix(r.Messages[n-1].Text(), "<compaction_request>")
}

// checkValid fails when a request's history would be rejected by a provider:
// a tool call without its result or a result without its call.
func checkValid(t *testing.T, i int, msgs []providers.Message) {
	t.Helper()
	if diff := cmp.Diff(msgs, repairHistory(msgs)); diff != "" {
		t.Fatalf("request %d carries an invalid history (-sent +repaired):\n%s", i+1, diff)
	}
}

func smallWindow(rec *memRecorder) func(*Options) {
	return func(o *Options) {
		o.ContextWindow = 4000
		o.CompactAtPercent = 80
		o.KeepRecentTokens = 300
		if rec != nil {
			o.Recorder = rec
		}
	}
}

func TestAutoCompactionKeepsSystemPrompt(t *testing.T) {
	t.Parallel()
	script := summaryResponses(6)
	for i := range 10 {
		script = append(script, providertest.Response{Text: fmt.Sprint("ok ", i)})
	}
	rec := &memRecorder{}
	env := newEnv(t, script, smallWindow(rec))
	if out := env.agent.ActivateSkill(context.Background(), "auto-coder", ""); out.IsError {
		t.Fatal(out.Text)
	}
	for i := range 10 {
		if _, err := env.agent.Turn(t.Context(), filler(i)); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	reqs := env.model.Requests()
	var system string
	summaries := 0
	for i, r := range reqs {
		if isSummaryRequest(r) {
			summaries++
			text := r.Messages[len(r.Messages)-1].Text()
			for _, want := range []string{"<compaction_request>", "Summarise the conversation", "## User goals", "## Decisions", "## Files and identifiers", "## Open questions", "## Current work"} {
				if !strings.Contains(text, want) {
					t.Errorf("summary request %d lacks %q", i+1, want)
				}
			}
			// Asked at the end of the conversation itself, so the
			// provider's cache serves the prefix: same tools, same
			// system prompt, the previous request's messages.
			prev := reqs[i-1]
			if len(r.Tools) != len(prev.Tools) || r.System != prev.System || len(r.Messages) <= len(prev.Messages) {
				t.Errorf("summary request %d does not extend request %d", i+1, i)
			}
			continue
		}
		if system == "" {
			system = r.System
			if !strings.Contains(system, "<active_skill") {
				t.Fatal("the active skill is not in the system prompt")
			}
		} else if r.System != system {
			t.Errorf("request %d: system prompt changed", i+1)
		}
		checkValid(t, i, r.Messages)
	}
	if summaries == 0 {
		t.Fatal("no compaction happened")
	}
	comps := env.eventsOf(EventCompaction)
	if len(comps) != summaries {
		t.Fatalf("%d compaction events for %d summary requests", len(comps), summaries)
	}
	for _, ev := range comps {
		c := ev.Compaction
		if c.Reason != CompactAuto || !c.Summarized || c.TokensAfter >= c.TokensBefore || c.Replaced == 0 {
			t.Errorf("compaction event = %+v", *c)
		}
	}
	last := reqs[len(reqs)-1]
	first := last.Messages[0].Text()
	if !strings.HasPrefix(first, "<compaction_summary>\n"+compactionLead) || !strings.Contains(first, "SUMMARY-") {
		t.Errorf("last request starts with %q, want the summary", first)
	}
	for _, m := range last.Messages {
		if strings.Contains(m.Text(), "filler 0:") {
			t.Error("the oldest filler is still sent")
		}
	}
	if !strings.Contains(last.Messages[len(last.Messages)-1].Text(), "filler 9:") {
		t.Error("the current user message is not last")
	}
	// Within the window: what the later requests carry stays bounded.
	if got := env.agent.ContextReport().Total; got > 4000 {
		t.Errorf("context after the session = %d tokens, over the window", got)
	}
	if len(rec.compactions) != summaries {
		t.Fatalf("%d compaction records, want %d", len(rec.compactions), summaries)
	}
	lastRec := rec.compactions[len(rec.compactions)-1]
	if lastRec.Messages[0].Text() != lastRec.Summary {
		t.Error("compaction record: the summary is not its first message")
	}
}

func TestOverflowCompactsAndRetries(t *testing.T) {
	t.Parallel()
	script := []providertest.Response{
		{Status: 400, Error: "This model's maximum context length is 4096 tokens."},
		{When: "Summarise the conversation", Text: "SUMMARY"},
		{Text: "fits now"},
	}
	env := newEnv(t, script, nil)
	var old []providers.Message
	for i := range 6 {
		old = append(old, providers.UserText(filler(i)), providers.AssistantText("ok"))
	}
	env.agent.SetHistory(old)
	res, err := env.agent.Turn(t.Context(), "next")
	if err != nil || res.Final != "fits now" {
		t.Fatalf("Turn = %+v, %v", res, err)
	}
	reqs := env.model.Requests()
	if len(reqs) != 3 || !isSummaryRequest(reqs[1]) {
		t.Fatalf("requests: %d, second is summary: %v", len(reqs), len(reqs) > 1 && isSummaryRequest(reqs[1]))
	}
	if reqs[2].System != reqs[0].System {
		t.Error("system prompt changed by compaction")
	}
	if got := reqs[2].Messages[0].Text(); !strings.Contains(got, "SUMMARY") {
		t.Errorf("retried request starts with %q", got)
	}
	if len(reqs[2].Messages) >= len(reqs[0].Messages) {
		t.Errorf("retry sent %d messages, first try %d", len(reqs[2].Messages), len(reqs[0].Messages))
	}
	comps := env.eventsOf(EventCompaction)
	if len(comps) != 1 || comps[0].Compaction.Reason != CompactOverflow {
		t.Fatalf("compaction events = %+v", comps)
	}
	if errs := env.eventsOf(EventError); len(errs) != 0 {
		t.Errorf("error events after a successful retry: %+v", errs)
	}
}

func TestOverflowRetriedOnce(t *testing.T) {
	t.Parallel()
	tooLong := providertest.Response{Status: 400, Error: "context length exceeded"}
	env := newEnv(t, []providertest.Response{tooLong, {When: "Summarise the conversation", Text: "S"}, tooLong}, nil)
	var old []providers.Message
	for i := range 4 {
		old = append(old, providers.UserText(filler(i)), providers.AssistantText("ok"))
	}
	env.agent.SetHistory(old)
	res, err := env.agent.Turn(t.Context(), "next")
	if providers.KindOf(err) != providers.KindContextLength || res.Status != StatusError {
		t.Fatalf("Turn = %+v, %v; want the context-length error", res, err)
	}
	if n := len(env.model.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (try, summary, one retry)", n)
	}
}

func TestSummaryFailureDropsWholeTurns(t *testing.T) {
	t.Parallel()
	script := []providertest.Response{{When: "Summarise the conversation", Status: 500, Error: "summary model down"}, {Text: "done"}}
	env := newEnv(t, script, smallWindow(nil))
	var old []providers.Message
	for i := range 8 {
		old = append(old, providers.UserText(filler(i)),
			providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{call(fmt.Sprint(i), "file_read")}},
			providers.Message{Role: providers.RoleUser, Parts: []providers.Part{result(fmt.Sprint(i), "x", false)}},
			providers.AssistantText("ok"))
	}
	env.agent.SetHistory(old)
	if _, err := env.agent.Turn(t.Context(), "next"); err != nil {
		t.Fatal(err)
	}
	reqs := env.model.Requests()
	last := reqs[len(reqs)-1]
	checkValid(t, len(reqs)-1, last.Messages)
	note := last.Messages[0].Text()
	if !strings.HasPrefix(note, "[") || !strings.Contains(note, "earlier messages were removed") || strings.Contains(note, "\n") {
		t.Errorf("first message = %q, want a one-line note", note)
	}
	if second := last.Messages[1]; !isTurnStart(second) {
		t.Errorf("after the note comes %+v, want the start of a turn", second)
	}
	c := env.eventsOf(EventCompaction)
	if len(c) != 1 || c[0].Compaction.Summarized || !strings.Contains(c[0].Compaction.Error, "summary model down") {
		t.Fatalf("compaction events = %+v", c)
	}
}

// streamFunc is a Model made of a function.
type streamFunc func(ctx context.Context, req providers.Request) iter.Seq2[providers.Event, error]

func (f streamFunc) Stream(ctx context.Context, req providers.Request) iter.Seq2[providers.Event, error] {
	return f(ctx, req)
}

func TestCancelDuringSummaryLeavesHistory(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	summarizer := streamFunc(func(ctx context.Context, _ providers.Request) iter.Seq2[providers.Event, error] {
		return func(yield func(providers.Event, error) bool) {
			cancel()
			yield(providers.Event{}, ctx.Err())
		}
	})
	env := newEnv(t, nil, func(o *Options) {
		smallWindow(nil)(o)
		o.Summarizer = summarizer
	})
	var old []providers.Message
	for i := range 8 {
		old = append(old, providers.UserText(filler(i)), providers.AssistantText("ok"))
	}
	env.agent.SetHistory(old)
	res, err := env.agent.Turn(ctx, "next")
	if !errors.Is(err, context.Canceled) || res.Status != StatusCancelled {
		t.Fatalf("Turn = %+v, %v", res, err)
	}
	h := env.agent.History()
	if len(h) != len(old)+1 || h[0].Text() != old[0].Text() {
		t.Errorf("history changed by a cancelled compaction: %d messages", len(h))
	}
	if len(env.eventsOf(EventCompaction)) != 0 {
		t.Error("compaction event for a cancelled compaction")
	}
}

func TestManualCompact(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{{When: "Summarise the conversation", Text: "S"}}, nil)
	info, err := env.agent.Compact(t.Context(), "")
	if err != nil || info.Replaced != 0 {
		t.Fatalf("Compact on an empty history = %+v, %v", info, err)
	}
	if n := len(env.model.Requests()); n != 0 {
		t.Fatalf("%d requests to compact nothing", n)
	}
	env.agent.SetHistory([]providers.Message{
		providers.UserText("fix the parser"), providers.AssistantText("done"),
		providers.UserText("now the lexer"), providers.AssistantText("done too"),
	})
	info, err = env.agent.Compact(t.Context(), "the parser bug")
	if err != nil || info.Replaced != 2 || info.Kept != 2 || info.Reason != CompactManual {
		t.Fatalf("Compact = %+v, %v", info, err)
	}
	req := env.model.Requests()[0]
	if last := req.Messages[len(req.Messages)-1].Text(); !strings.HasSuffix(last, "Focus the summary on: the parser bug") {
		t.Errorf("focus missing from the summary request:\n%s", last)
	}
	if req.Model != "test-model" {
		t.Errorf("summary model = %q, want the session's", req.Model)
	}
	h := env.agent.History()
	if len(h) != 3 || h[1].Text() != "now the lexer" {
		t.Errorf("history after /compact = %+v", h)
	}
}

// TestCompactionInsideOneTurn runs a single turn of many tool calls (several
// in parallel per response) that outgrows the window: the turn's own user
// message is kept through every compaction and no call loses its result.
func TestCompactionInsideOneTurn(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1500)
	script := summaryResponses(10)
	for i := range 8 {
		script = append(script, providertest.Response{ToolCalls: []providertest.Call{
			{Name: "file_read", Args: fmt.Sprintf(`{"path":"a%d","pad":%q}`, i, big)},
			{Name: "file_read", Args: fmt.Sprintf(`{"path":"b%d"}`, i)},
		}})
	}
	script = append(script, providertest.Response{Text: "all read"})
	env := newEnv(t, script, smallWindow(nil))
	res, err := env.agent.Turn(t.Context(), "read everything")
	if err != nil || res.Final != "all read" {
		t.Fatalf("Turn = %+v, %v", res, err)
	}
	if len(env.eventsOf(EventCompaction)) == 0 {
		t.Fatal("no compaction")
	}
	for i, r := range env.model.Requests() {
		if isSummaryRequest(r) {
			continue
		}
		checkValid(t, i, r.Messages)
		found := false
		for _, m := range r.Messages {
			if strings.HasSuffix(m.Text(), "] read everything") {
				found = true
			}
		}
		if !found {
			t.Errorf("request %d lost the turn's user message", i+1)
		}
	}
}

func TestEstimateUsesReportedTokens(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{{Text: "hello there", Usage: &providers.Usage{InputTokens: 1000, OutputTokens: 5}}}, nil)
	if _, err := env.agent.Turn(t.Context(), "hi"); err != nil {
		t.Fatal(err)
	}
	want := 1000 + messageTokens(providers.AssistantText("hello there"))
	if got := env.agent.ContextReport().Total; got != want {
		t.Errorf("estimate = %d, want reported 1000 + %d added", got, want-1000)
	}
}

func TestRecorderAndResume(t *testing.T) {
	t.Parallel()
	rec := &memRecorder{}
	script := []providertest.Response{
		skillCall(`{"skill":"greeter","args":"Ada"}`),
		{Text: "hello", Usage: &providers.Usage{InputTokens: 50, OutputTokens: 3}},
	}
	env := newEnv(t, script, func(o *Options) { o.Recorder = rec })
	env.agent.ActivateSkill(context.Background(), "auto-coder", "")
	if _, err := env.agent.Turn(t.Context(), "greet"); err != nil {
		t.Fatal(err)
	}
	wantSkills := []session.SkillChange{
		{Action: "activate", Name: "auto-coder", Hash: rec.skills[0].Hash},
		{Action: "activate", Name: "greeter", Args: "Ada", Hash: rec.skills[1].Hash},
	}
	if diff := cmp.Diff(wantSkills, rec.skills); diff != "" || rec.skills[0].Hash == "" {
		t.Errorf("skill records (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(env.agent.History(), rec.messages); diff != "" {
		t.Errorf("recorded messages differ from history (-history +recorded):\n%s", diff)
	}
	if diff := cmp.Diff(env.agent.UsageByModel(), rec.usage); diff != "" || providers.TotalUsage(rec.usage) != env.agent.Usage() {
		t.Errorf("recorded usage differs from the session's (-session +recorded):\n%s", diff)
	}

	// A new process resumes: same system prompt, history and usage.
	env2 := newEnv(t, nil, nil)
	states := []session.SkillState{{Name: "auto-coder", Hash: rec.skills[0].Hash}, {Name: "greeter", Args: "Ada", Hash: rec.skills[1].Hash}}
	if diags := env2.agent.Resume(context.Background(), rec.messages, states, rec.usage, nil); len(diags) != 0 {
		t.Fatalf("Resume diagnostics: %+v", diags)
	}
	if env2.agent.SystemPrompt() != env.agent.SystemPrompt() {
		t.Error("resumed system prompt differs")
	}
	if env2.agent.Usage() != env.agent.Usage() || !cmp.Equal(env2.agent.UsageByModel(), env.agent.UsageByModel()) {
		t.Error("resumed usage differs")
	}
	if diff := cmp.Diff(env.agent.History(), env2.agent.History()); diff != "" {
		t.Errorf("resumed history (-want +got):\n%s", diff)
	}
	// A changed skill comes back with its new text and is recorded so.
	rec3 := &memRecorder{}
	env3 := newEnv(t, nil, func(o *Options) { o.Recorder = rec3 })
	env3.agent.Resume(context.Background(), rec.messages, []session.SkillState{{Name: "greeter", Args: "Ada", Hash: "0000"}}, nil, nil)
	if len(rec3.skills) != 1 || rec3.skills[0].Hash == "0000" || !env3.agent.Skills().ChangedOnDisk("greeter") {
		t.Errorf("changed skill: records %+v, changed %v", rec3.skills, env3.agent.Skills().ChangedOnDisk("greeter"))
	}
	// A skill that is gone is reported and recorded as deactivated, so the
	// file agrees with the live session.
	rec4 := &memRecorder{}
	env4 := newEnv(t, nil, func(o *Options) { o.Recorder = rec4 })
	diags := env4.agent.Resume(context.Background(), nil, []session.SkillState{{Name: "vanished", Hash: "1"}, {Name: "greeter", Hash: rec.skills[1].Hash}}, nil, nil)
	if len(diags) != 1 || !strings.Contains(diags[0].Message, `"vanished" not restored`) {
		t.Errorf("diagnostics = %+v", diags)
	}
	want := []session.SkillChange{{Action: "deactivate", Name: "vanished"}}
	if diff := cmp.Diff(want, rec4.skills); diff != "" {
		t.Errorf("records after a failed restore (-want +got):\n%s", diff)
	}
}

func TestRecordFailureReportedOnce(t *testing.T) {
	t.Parallel()
	rec := &memRecorder{fail: errors.New("disk full")}
	env := newEnv(t, []providertest.Response{{Text: "a"}, {Text: "b"}}, func(o *Options) { o.Recorder = rec })
	for range 2 {
		if _, err := env.agent.Turn(t.Context(), "x"); err != nil {
			t.Fatal(err)
		}
	}
	errs := env.eventsOf(EventError)
	if len(errs) != 1 || !strings.Contains(errs[0].Text, "session not saved: disk full") {
		t.Errorf("error events = %+v", errs)
	}
	if len(env.agent.History()) != 4 {
		t.Error("the conversation did not go on in memory")
	}
}

func TestLongSummaryCapped(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("blah ", 20000)
	env := newEnv(t, []providertest.Response{{When: "Summarise the conversation", Text: huge}}, smallWindow(nil))
	var old []providers.Message
	for i := range 4 {
		old = append(old, providers.UserText(filler(i)), providers.AssistantText("ok"))
	}
	env.agent.SetHistory(old)
	info, err := env.agent.Compact(t.Context(), "")
	if err != nil || !info.Summarized {
		t.Fatalf("Compact = %+v, %v", info, err)
	}
	summary := env.agent.History()[0].Text()
	if len(summary) > 8000 || !strings.Contains(summary, "characters truncated") {
		t.Errorf("summary of %d characters kept; want it cut to the budget", len(summary))
	}
	if info.TokensAfter >= info.TokensBefore {
		t.Errorf("compaction grew the context: %+v", info)
	}
}

// TestSkillRecordsReplayInOrder writes a real session file while one response
// deactivates and re-activates a skill (moving it to the end) and checks that
// loading the file rebuilds the active skills in the live order.
func TestSkillRecordsReplayInOrder(t *testing.T) {
	t.Parallel()
	store := &session.Store{Dir: t.TempDir()}
	w := store.Create(session.Header{ID: "20261122-090000-abcdef", Workspace: "/ws"})
	script := []providertest.Response{
		{ToolCalls: []providertest.Call{
			{Name: "Skill", Args: `{"skill":"auto-coder","action":"deactivate"}`},
			{Name: "Skill", Args: `{"skill":"auto-coder"}`},
			{Name: "Skill", Args: `{"skill":"greeter","args":"Bo"}`},
		}},
		{Text: "done"},
	}
	env := newEnv(t, script, func(o *Options) { o.Recorder = w })
	env.agent.ActivateSkill(context.Background(), "auto-coder", "")
	env.agent.ActivateSkill(context.Background(), "greeter", "Ada")
	if _, err := env.agent.Turn(t.Context(), "shuffle"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	sess, err := store.Load("20261122-090000-abcdef")
	if err != nil {
		t.Fatal(err)
	}
	var live []session.SkillState
	for _, e := range env.agent.Skills().Snapshot() {
		live = append(live, session.SkillState{Name: e.Name, Args: e.Args, Hash: e.Hash})
	}
	if live[0].Name != "greeter" || live[0].Args != "Bo" {
		t.Fatalf("live order = %+v, want greeter first", live)
	}
	if diff := cmp.Diff(live, sess.Skills); diff != "" {
		t.Errorf("replayed skills (-live +file):\n%s", diff)
	}
}

// TestInPlaceSummaryFallsBack: a summary asked at the end of the
// conversation that the model answers with a tool call is asked again as a
// transcript, with the fixed summary prompt and no tools.
func TestInPlaceSummaryFallsBack(t *testing.T) {
	t.Parallel()
	env := newEnv(t, []providertest.Response{
		{When: "<compaction_request>", ToolCalls: []providertest.Call{{Name: "file_read", Args: `{"path":"x"}`}}},
		{When: "<transcript>", Text: "## User goals\nFROM-TRANSCRIPT"},
	}, nil)
	env.agent.SetHistory([]providers.Message{
		providers.UserText("fix the parser"), providers.AssistantText("done"),
		providers.UserText("now the lexer"), providers.AssistantText("done too"),
	})
	info, err := env.agent.Compact(t.Context(), "")
	if err != nil || !info.Summarized {
		t.Fatalf("Compact = %+v, %v", info, err)
	}
	reqs := env.model.Requests()
	if len(reqs) != 2 || len(reqs[0].Tools) == 0 || reqs[1].System != compactionSystem || len(reqs[1].Tools) != 0 {
		t.Fatalf("requests: %d", len(reqs))
	}
	if h := env.agent.History(); !strings.Contains(h[0].Text(), "FROM-TRANSCRIPT") {
		t.Errorf("summary = %q", h[0].Text())
	}
}
