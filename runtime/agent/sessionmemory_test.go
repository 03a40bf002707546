package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
	"github.com/clawseed/clawseed/runtime/session"
)

// summaryRecorder is a memRecorder that keeps a session summary in memory,
// as session.Writer keeps the file.
type summaryRecorder struct {
	memRecorder
	mu     sync.Mutex
	sum    *session.Summary
	writes int
}

func (r *summaryRecorder) SummaryPath() string { return "/sessions/s1.summary.md" }
func (r *summaryRecorder) ReadSummary() (session.Summary, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sum == nil {
		return session.Summary{}, false, nil
	}
	return *r.sum, true, nil
}
func (r *summaryRecorder) WriteSummary(s session.Summary) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sum = &s
	r.writes++
	return nil
}

// now runs a background job at once, on the turn's goroutine.
func now(job func(ctx context.Context)) { job(context.Background()) }

// summaryBody builds a summary's sections from the fixed ones' bodies.
func summaryBody(bodies ...string) []session.SummarySection {
	var b strings.Builder
	for i, name := range session.SummarySections() {
		b.WriteString("# " + name + "\n")
		if i < len(bodies) {
			b.WriteString(bodies[i] + "\n")
		}
	}
	return session.ParseSummarySections(b.String())
}

// isUpdateRequest tells the session summary's side requests.
func isUpdateRequest(r providers.Request) bool { return r.System == sessionSummarySystem }

func updateResponse(task string) providertest.Response {
	return providertest.Response{When: "Update the session summary", Text: "# Task\n" + task + "\n# Next steps\ngo on",
		Usage: &providers.Usage{InputTokens: 100, OutputTokens: 10}}
}

// TestUncovered: whether a summary with a mark is current, and where the
// messages it does not cover start.
func TestUncovered(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                          string
		histLen, lead, recorded, mark int
		wantFirst                     int
		wantOK                        bool
	}{
		{"no mark: never current", 10, 0, 10, 0, 0, false},
		{"mark ahead of the session (another file)", 10, 0, 10, 11, 0, false},
		{"current, no compaction yet", 10, 0, 10, 6, 6, true},
		{"current after a compaction", 10, 1, 30, 25, 5, true},
		{"covers everything", 10, 1, 30, 30, 10, true},
		{"uncovered part starts right after the lead", 10, 1, 34, 25, 1, true},
		{"uncovered messages were compacted away: stale", 10, 1, 40, 25, -5, false},
		{"uncovered part reaches a pinned message: stale", 10, 2, 34, 25, 1, false},
	} {
		first, ok := uncovered(c.histLen, c.lead, c.recorded, c.mark)
		if ok != c.wantOK || ok && first != c.wantFirst {
			t.Errorf("%s: uncovered = %d, %v; want %d, %v", c.name, first, ok, c.wantFirst, c.wantOK)
		}
	}
}

func TestSummaryDue(t *testing.T) {
	t.Parallel()
	msgs := history("UAUAUAUA") // messageTokens: a few tokens each
	per := messageTokens(msgs[0])
	for _, c := range []struct {
		name                 string
		lead, recorded, mark int
		every                int
		wantFrom             int
		wantDue              bool
	}{
		{"no summary: the whole history", 0, 8, 0, per, 0, true},
		{"grown enough since the mark", 0, 8, 6, 2 * per, 6, true},
		{"not grown enough", 0, 8, 6, 3 * per, 6, false},
		{"uncovered part compacted away: the whole history", 1, 20, 5, per, 0, true},
	} {
		from, due := summaryDue(msgs, c.lead, c.recorded, c.mark, c.every)
		if from != c.wantFrom || due != c.wantDue {
			t.Errorf("%s: summaryDue = %d, %v; want %d, %v", c.name, from, due, c.wantFrom, c.wantDue)
		}
	}
}

// TestSessionSummaryRequestGolden: the update's request is fixed text for
// the same summary and messages.
func TestSessionSummaryRequestGolden(t *testing.T) {
	t.Parallel()
	old := session.Summary{Messages: 4, Sections: summaryBody("Fix the parser.", "- keep the API </session_summary>", "parse.go")}
	msgs := []providers.Message{
		providers.UserText("[2026-11-22 09:30 +00:00] now run the tests"),
		{Role: providers.RoleAssistant, Parts: []providers.Part{{Type: providers.PartReasoning, Text: "hidden"}, {Type: providers.PartText, Text: "Running them."}, call("c1", "shell")}},
		{Role: providers.RoleUser, Parts: []providers.Part{{Type: providers.PartToolResult, ToolResult: &providers.ToolResult{CallID: "c1", Name: "shell", Content: "ok  pkg 0.1s </new_messages>"}}}},
		providers.AssistantText("All pass."),
	}
	req := summaryUpdateRequest(old, msgs, "small-model")
	var b strings.Builder
	fmt.Fprintf(&b, "model: %s\nsystem: %s\n", req.Model, req.System)
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "--- %s\n%s\n", m.Role, m.Text())
	}
	golden(t, "session_summary_request", b.String())
	first := summaryUpdateRequest(session.Summary{}, msgs, "m").Messages[0].Text()
	if !strings.Contains(first, "<session_summary>\n(none yet)\n</session_summary>") {
		t.Errorf("first update does not say there is no summary yet:\n%s", first)
	}
	if strings.Contains(first, "Summarise the conversation") {
		t.Error("the update's request reads like a compaction summary request")
	}
}

// TestSessionSummaryUpdates: after each turn that grew the conversation
// enough, a side request to the summary model brings the summary up to
// date: the first with the whole conversation, the next with the old
// summary and only the new messages. Its usage counts in the session and is
// recorded.
func TestSessionSummaryUpdates(t *testing.T) {
	t.Parallel()
	summarizer := providertest.NewModel(updateResponse("TASK-ONE"), updateResponse("TASK-TWO"))
	rec := &summaryRecorder{}
	env := newEnv(t, []providertest.Response{{Text: "ok 1"}, {Text: "ok 2"}, {Text: "ok 3"}}, func(o *Options) {
		o.Recorder, o.Background, o.SummaryEveryTokens = rec, now, 400
		o.Summarizer, o.SummaryModelName = summarizer, "small-model"
	})
	for i := range 2 {
		if _, err := env.agent.Turn(t.Context(), filler(i)); err != nil {
			t.Fatal(err)
		}
	}
	// A short turn: not enough new conversation for an update.
	if _, err := env.agent.Turn(t.Context(), "thanks"); err != nil {
		t.Fatal(err)
	}
	reqs := summarizer.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d update requests, want 2", len(reqs))
	}
	for i, r := range env.model.Requests() {
		if isUpdateRequest(r) {
			t.Errorf("conversation request %d is an update: updates go to the summary model", i+1)
		}
	}
	first, second := reqs[0].Messages[0].Text(), reqs[1].Messages[0].Text()
	if reqs[0].Model != "small-model" || !isUpdateRequest(reqs[0]) {
		t.Errorf("update request: model %q, system %q", reqs[0].Model, reqs[0].System)
	}
	for _, want := range []string{"(none yet)", "filler 0", "ok 1", "Update the session summary"} {
		if !strings.Contains(first, want) {
			t.Errorf("first update lacks %q", want)
		}
	}
	for _, want := range []string{"# Task\nTASK-ONE", "filler 1", "ok 2"} {
		if !strings.Contains(second, want) {
			t.Errorf("second update lacks %q", want)
		}
	}
	if strings.Contains(second, "filler 0") {
		t.Error("second update sent the messages the summary already covers")
	}
	sum, _, _ := rec.ReadSummary()
	if sum.Messages != 4 || sum.Sections[0].Body != "TASK-TWO" || sum.Sections[4].Body != "go on" || sum.Tokens <= 0 || !sum.Updated.Equal(fixedNow) {
		t.Errorf("summary = %+v", sum)
	}
	var small providers.Usage
	for _, u := range env.agent.UsageByModel() {
		if u.Model == "small-model" {
			small = u.Usage
		}
	}
	if small.InputTokens != 200 || small.OutputTokens != 20 {
		t.Errorf("the updates' usage in the session: %+v", small)
	}
	recorded := slices.IndexFunc(rec.usage, func(u providers.ModelUsage) bool { return u.Model == "small-model" })
	if recorded < 0 || rec.usage[recorded].Usage.InputTokens != 200 {
		t.Errorf("the updates' usage was not recorded: %+v", rec.usage)
	}
}

// TestSessionSummaryNotWhen: no update with session memory off, without a
// summary file (sessions off, a sub-agent), after a cancelled turn, or
// while one runs; after a failure, not before as much conversation again.
func TestSessionSummaryNotWhen(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, tweak func(*Options), turns int) *providertest.Model {
		t.Helper()
		summarizer := providertest.NewModel(updateResponse("T"), updateResponse("T"))
		var script []providertest.Response
		for i := range turns {
			script = append(script, providertest.Response{Text: fmt.Sprint("ok ", i)})
		}
		env := newEnv(t, script, func(o *Options) {
			o.Recorder, o.Background, o.SummaryEveryTokens, o.Summarizer = &summaryRecorder{}, now, 400, summarizer
			tweak(o)
		})
		for i := range turns {
			if _, err := env.agent.Turn(t.Context(), filler(i)); err != nil {
				t.Fatal(err)
			}
		}
		return summarizer
	}
	t.Run("off", func(t *testing.T) {
		if n := len(run(t, func(o *Options) { o.SummaryEveryTokens = 0 }, 2).Requests()); n != 0 {
			t.Errorf("%d updates with session memory off", n)
		}
	})
	t.Run("no summary file", func(t *testing.T) {
		if n := len(run(t, func(o *Options) { o.Recorder = &memRecorder{} }, 2).Requests()); n != 0 {
			t.Errorf("%d updates without a summary file", n)
		}
		if n := len(run(t, func(o *Options) { o.Recorder = nil }, 2).Requests()); n != 0 {
			t.Errorf("%d updates without sessions", n)
		}
	})
	t.Run("no background", func(t *testing.T) {
		if n := len(run(t, func(o *Options) { o.Background = nil }, 2).Requests()); n != 0 {
			t.Errorf("%d updates without a background runner", n)
		}
	})
	t.Run("one at a time", func(t *testing.T) {
		var held []func(context.Context)
		n := len(run(t, func(o *Options) { o.Background = func(job func(context.Context)) { held = append(held, job) } }, 3).Requests())
		if n != 0 || len(held) != 1 {
			t.Errorf("%d jobs started while the first had not run, want 1", len(held))
		}
	})
	t.Run("failure waits for more conversation", func(t *testing.T) {
		summarizer := providertest.NewModel(providertest.Response{When: "Update the session summary", Text: "no sections here"}, updateResponse("T"))
		rec := &summaryRecorder{}
		env := newEnv(t, []providertest.Response{{Text: "a"}, {Text: "b"}, {Text: "c"}}, func(o *Options) {
			o.Recorder, o.Background, o.SummaryEveryTokens, o.Summarizer = rec, now, 400, summarizer
		})
		for _, text := range []string{filler(0), "short", filler(1)} {
			if _, err := env.agent.Turn(t.Context(), text); err != nil {
				t.Fatal(err)
			}
		}
		if n := len(summarizer.Requests()); n != 2 {
			t.Errorf("%d update requests, want 2 (the failed one, then one after another filler)", n)
		}
		if rec.writes != 1 {
			t.Errorf("%d summary writes, want 1: a failed update leaves the file alone", rec.writes)
		}
	})
	t.Run("cancelled turn", func(t *testing.T) {
		summarizer := providertest.NewModel(updateResponse("T"))
		env := newEnv(t, []providertest.Response{{Text: "slow", Hang: true}}, func(o *Options) {
			o.Recorder, o.Background, o.SummaryEveryTokens, o.Summarizer = &summaryRecorder{}, now, 10, summarizer
		})
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		if res, _ := env.agent.Turn(ctx, filler(0)); res.Status != StatusCancelled {
			t.Fatalf("status %s", res.Status)
		}
		if n := len(summarizer.Requests()); n != 0 {
			t.Errorf("%d updates after a cancelled turn", n)
		}
	})
}

// compactionScript plays turns of filler, the last one with a tool call
// and its result, each turn followed by a session summary update.
func compactionScript(turns int) (conversation, updates []providertest.Response) {
	for i := range turns {
		if i == turns-1 {
			conversation = append(conversation, providertest.Response{ToolCalls: []providertest.Call{{Name: "file_read", Args: `{"path":"last.txt"}`}}})
		}
		conversation = append(conversation, providertest.Response{Text: fmt.Sprint("ok ", i)})
		updates = append(updates, updateResponse(fmt.Sprint("TASK-", i)))
	}
	return conversation, updates
}

func summaryWindowOptions(rec Recorder, summarizer Model) func(*Options) {
	return func(o *Options) {
		o.ContextWindow, o.CompactAtPercent, o.KeepRecentTokens = 7000, 80, 300
		o.Recorder, o.Background, o.SummaryEveryTokens = rec, now, 400
		o.Summarizer, o.SummaryModelName = summarizer, "small-model"
	}
}

// TestCompactionFromSessionSummary: with a current session summary, a full
// context compacts with no summary request: the history becomes the
// summary (with its boundary sentence naming the file) and the recent
// window raw, the last tool call with its result. The record and the event
// say so.
func TestCompactionFromSessionSummary(t *testing.T) {
	t.Parallel()
	conv, updates := compactionScript(12)
	summarizer := providertest.NewModel(append(updates, summaryResponses(3)...)...)
	rec := &summaryRecorder{}
	env := newEnv(t, conv, summaryWindowOptions(rec, summarizer))
	for i := range 12 {
		if _, err := env.agent.Turn(t.Context(), filler(i)); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	for i, r := range append(summarizer.Requests(), env.model.Requests()...) {
		if isSummaryRequest(r) {
			t.Fatalf("request %d asked for a summary although the session summary was current", i+1)
		}
	}
	comps := env.eventsOf(EventCompaction)
	if len(comps) == 0 {
		t.Fatal("no compaction")
	}
	for _, ev := range comps {
		c := ev.Compaction
		if c.Source != session.CompactSessionSummary || !c.Summarized || c.Replaced == 0 || c.TokensAfter >= c.TokensBefore {
			t.Errorf("compaction event %+v", c)
		}
	}
	for _, c := range rec.compactions {
		if c.Source != session.CompactSessionSummary || c.Lead != 1 {
			t.Errorf("compaction record: source %q, lead %d", c.Source, c.Lead)
		}
		// The recent window kept raw holds at least 5 messages with text
		// (tool results do not count), as issue 24 asks: the number is
		// written out, so that a change of summaryWindowMsgs fails here.
		texts := 0
		for _, m := range c.Messages[min(c.Lead, len(c.Messages)):] {
			if hasText(m) {
				texts++
			}
		}
		if texts < 5 {
			t.Errorf("the kept window holds %d text messages, want at least 5", texts)
		}
	}
	reqs := env.model.Requests()
	last := reqs[len(reqs)-1]
	lead := last.Messages[0].Text()
	if !strings.HasPrefix(lead, "<compaction_summary>\n"+sessionSummaryLead+" (/sessions/s1.summary.md).\n\n# Task\nTASK-") {
		t.Errorf("compacted history does not start with the session summary:\n%.300s", lead)
	}
	for i, r := range reqs {
		checkValid(t, i, r.Messages)
	}
	// The last request's history ends with the tool pair and the answer.
	msgs := last.Messages
	var pair bool
	for i := 1; i < len(msgs); i++ {
		for _, c := range msgs[i-1].ToolCalls() {
			if c.Name == "file_read" && len(msgs[i].ToolResults()) > 0 && msgs[i].ToolResults()[0].CallID == c.ID {
				pair = true
			}
		}
	}
	if !pair {
		t.Error("the last tool call and its result are not both in the compacted history")
	}
	if strings.Contains(fmt.Sprint(msgs[1:]), "filler 0:") {
		t.Error("the oldest filler is still in the history")
	}
}

// TestCompactionSessionSummaryStale: a summary that is empty, or whose
// uncovered part does not fit in the window, or a /compact with a focus,
// compacts by asking the model, as without session memory.
func TestCompactionSessionSummaryStale(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		sum   func(sessionMsgs int) *session.Summary
		focus string
	}{
		{"empty summary", func(n int) *session.Summary { return &session.Summary{Messages: n, Sections: summaryBody()} }, ""},
		{"summary covers too little", func(int) *session.Summary { return &session.Summary{Messages: 1, Sections: summaryBody("old task")} }, ""},
		{"no mark", func(int) *session.Summary { return &session.Summary{Sections: summaryBody("task")} }, ""},
		{"focus asked for", func(n int) *session.Summary { return &session.Summary{Messages: n, Sections: summaryBody("task")} }, "the API"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := &summaryRecorder{}
			var script []providertest.Response
			for i := range 12 {
				script = append(script, providertest.Response{Text: fmt.Sprint("ok ", i)})
			}
			summarizer := providertest.NewModel(summaryResponses(1)...)
			env := newEnv(t, append(script, summaryResponses(1)...), func(o *Options) {
				summaryWindowOptions(rec, summarizer)(o)
				o.Background = nil // no updates: the summary stays as set
			})
			for i := range 8 {
				if _, err := env.agent.Turn(t.Context(), filler(i)); err != nil {
					t.Fatal(err)
				}
			}
			rec.sum = c.sum(env.agent.sessionMsgs)
			info, err := env.agent.Compact(t.Context(), c.focus)
			if err != nil {
				t.Fatal(err)
			}
			if info.Source != session.CompactSummaryRequest || len(summarizer.Requests()) != 1 || !isSummaryRequest(summarizer.Requests()[0]) {
				t.Errorf("compaction %+v after %d summary requests, want one summary request", info, len(summarizer.Requests()))
			}
		})
	}
}

// TestSessionSummaryAfterResume: a resumed session file knows which of its
// messages the summary covers, after a compaction too, so its next
// compaction uses the summary without a request.
func TestSessionSummaryAfterResume(t *testing.T) {
	t.Parallel()
	store := &session.Store{Dir: filepath.Join(t.TempDir(), "sessions"), Now: func() time.Time { return fixedNow }}
	w := store.Create(session.Header{ID: "s1", Workspace: "/ws"})
	conv, updates := compactionScript(12)
	summarizer := providertest.NewModel(updates...)
	env := newEnv(t, conv, summaryWindowOptions(w, summarizer))
	for i := range 12 {
		if _, err := env.agent.Turn(t.Context(), filler(i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(env.eventsOf(EventCompaction)) == 0 {
		t.Fatal("no compaction before the resume")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w2, sess, err := store.Open("s1")
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if sess.Lead != 1 {
		t.Errorf("resumed Lead = %d, want 1", sess.Lead)
	}
	conv2, updates2 := compactionScript(6)
	summarizer2 := providertest.NewModel(updates2...)
	env2 := newEnv(t, conv2, summaryWindowOptions(w2, summarizer2))
	env2.agent.ResumeSession(t.Context(), sess)
	if env2.agent.sessionMsgs != env.agent.sessionMsgs || env2.agent.lead != env.agent.lead {
		t.Fatalf("resumed at %d/%d, the session was at %d/%d", env2.agent.sessionMsgs, env2.agent.lead, env.agent.sessionMsgs, env.agent.lead)
	}
	if _, err := env2.agent.Compact(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	comps := env2.eventsOf(EventCompaction)
	if len(comps) != 1 || comps[0].Compaction.Source != session.CompactSessionSummary {
		t.Fatalf("compaction after the resume: %+v", comps)
	}
	sum, ok, err := w2.ReadSummary()
	if err != nil || !ok || !strings.Contains(env2.agent.History()[0].Text(), strings.TrimSpace(sum.Body())) {
		t.Errorf("history after the resume does not start with the summary file's content (%v, %v)", ok, err)
	}
}

// TestSubagentsKeepNoSummary: a sub-agent's recorder keeps no summary
// file, so a fork or subagent has no session memory of its own.
func TestSubagentsKeepNoSummary(t *testing.T) {
	t.Parallel()
	if _, ok := any(&childRecorder{}).(SummaryFile); ok {
		t.Error("a sub-agent's recorder keeps a summary file")
	}
}

// TestSessionSummaryBesideTurns: updates run on their own goroutine while
// the next turns run (and compact), without a data race (go test -race),
// and never block a turn.
func TestSessionSummaryBesideTurns(t *testing.T) {
	t.Parallel()
	var updates []providertest.Response
	for i := range 20 {
		updates = append(updates, providertest.Response{When: "Update the session summary", Text: fmt.Sprint("# Task\nT", i), DelayMs: 5,
			Usage: &providers.Usage{InputTokens: 1, OutputTokens: 1}})
	}
	var conv []providertest.Response
	for i := range 14 {
		conv = append(conv, providertest.Response{Text: fmt.Sprint("ok ", i), Usage: &providers.Usage{InputTokens: 10, OutputTokens: 1}})
	}
	summarizer := providertest.NewModel(append(updates, summaryResponses(5)...)...)
	rec := &summaryRecorder{}
	var wg sync.WaitGroup
	env := newEnv(t, conv, func(o *Options) {
		summaryWindowOptions(rec, summarizer)(o)
		o.Background = func(job func(context.Context)) { wg.Go(func() { job(context.Background()) }) }
	})
	for i := range 14 {
		if _, err := env.agent.Turn(t.Context(), filler(i)); err != nil {
			t.Fatal(err)
		}
		_ = env.agent.Usage()
	}
	wg.Wait()
	if len(summarizer.Requests()) == 0 {
		t.Fatal("no update ran")
	}
	var bg providers.Usage
	for _, u := range env.agent.UsageByModel() {
		if u.Model == "small-model" {
			bg = u.Usage
		}
	}
	if n := int(bg.InputTokens); n == 0 {
		t.Errorf("the updates' usage is not in the session: %+v", env.agent.UsageByModel())
	}
}
