package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// Session memory (issue 24): each session keeps a structured summary file
// next to its transcript (session.Summary), brought up to date in the
// background by a side request to the summary model once the conversation
// has grown by [Options.SummaryEveryTokens] since the summary's mark, and
// used by compaction instead of a summary request while it is current
// (summarycompact.go).
//
// The mark is a count of the session's messages (its message records, in
// order): a summary with mark M covers messages 1 to M. The agent counts
// them (sessionMsgs) and knows how many history messages at the front are
// not the last of them in order (lead: a compaction's summary, and a
// current turn's user message kept from inside the turn), so the history
// message that holds message M+1 is found from the end, after a resume
// too: history[len-(sessionMsgs-M)]. What the summary does not cover must
// still be in the history, raw, for it to be current.
//
// A sub-agent (fork skill, subagent) has no summary of its own: its
// recorder keeps none. With sessions off there is no recorder, so no
// summary either.

// A SummaryFile keeps the session summary; the session [Recorder]
// implements it (runtime/session's Writer) when the session has a file.
// Writes replace the file whole.
type SummaryFile interface {
	// SummaryPath is the file's path, for the note that names it.
	SummaryPath() string
	// ReadSummary reads it; ok is false when there is none yet.
	ReadSummary() (s session.Summary, ok bool, err error)
	WriteSummary(session.Summary) error
}

// The session summary's side request: the old summary and the messages it
// does not cover yet, as a transcript, with the instruction last. Its text
// never contains compactionRequest's "Summarise the conversation", so the
// two kinds of request are told apart (test scripts answer them apart).
const (
	sessionSummarySystem = `You keep the running summary of a conversation between a user and an AI agent that works in a software project with tools. When older messages are removed from the agent's context, it continues the work from this summary and the most recent messages alone. Write only the summary, in Markdown: no preamble, no tool calls.`

	sessionSummaryAsk = `Update the session summary with the new messages above: keep what still holds, correct what changed, drop what no longer matters. Write these five sections, in this order, each under its heading line exactly as written, with nothing before the first:

# Task
What the user wants done and the constraints they set, in their words where it matters.
# Decisions
What was decided and why, including approaches tried and rejected.
# Files touched
Every file path, function, command, URL and error message that was read, changed or matters, verbatim, one per line.
# Open questions
What is unresolved or waits for the user.
# Next steps
What was being done last and what comes next.

Leave a section empty rather than guess. Keep the whole summary under about %d words. Write in the language the user writes in.`
)

// Sizes of the session summary.
const (
	// sessionSummaryWords is the length the update asks for.
	sessionSummaryWords = 1500
	// summaryFileSection and summaryFileTotal cap, in bytes, what an
	// update writes: a model that ignores the length asked for must not
	// grow the file without bound.
	summaryFileSection = 24 << 10
	summaryFileTotal   = 64 << 10
)

// summaryFile returns the session summary file, nil when session memory is
// off or the session keeps no file.
func (a *Agent) summaryFile() SummaryFile {
	if a.opts.SummaryEveryTokens <= 0 {
		return nil
	}
	f, _ := a.opts.Recorder.(SummaryFile)
	return f
}

// uncovered returns the index of the history message that holds message
// mark+1 of the session: the first one a summary with that mark does not
// cover. ok is false when the mark says nothing (0: unknown), is ahead of
// the session, or some message it does not cover is no longer in the
// history raw (compacted away by a summary request): then the summary is
// stale.
func uncovered(histLen, lead, recorded, mark int) (first int, ok bool) {
	if mark <= 0 || mark > recorded {
		return 0, false
	}
	first = histLen - (recorded - mark)
	return first, first >= lead
}

// summaryDue returns where the messages an update reads start and whether
// they add up to every tokens: the messages the summary does not cover, or
// the whole history (a compaction's summary included) when some of those
// were compacted away or the summary has no mark.
func summaryDue(msgs []providers.Message, lead, recorded, mark, every int) (from int, due bool) {
	from, ok := uncovered(len(msgs), lead, recorded, mark)
	if !ok {
		from = 0
	}
	return from, tokensFrom(msgs, from) >= every
}

// tokensFrom is the estimated size of msgs[from:].
func tokensFrom(msgs []providers.Message, from int) int {
	n := 0
	for _, m := range msgs[max(from, 0):] {
		n += messageTokens(m)
	}
	return n
}

// A summaryJob is one background update, with everything it needs taken
// from the agent when the turn ended.
type summaryJob struct {
	file  SummaryFile
	old   session.Summary
	msgs  []providers.Message
	mark  int // the session's messages the new summary covers
	model Model
	name  string
}

// maybeUpdateSummary starts a background update of the session summary
// when one is due (after a turn that completed). One runs at a time; a
// turn that ends while one runs leaves the next check to the next turn.
// After a failure, the next try waits for as much new conversation again.
func (a *Agent) maybeUpdateSummary() {
	f := a.summaryFile()
	if f == nil || a.opts.Background == nil || a.summaryBusy.Load() {
		return
	}
	old, _, err := f.ReadSummary()
	if err != nil {
		old = session.Summary{} // an unreadable file is replaced whole
	}
	every := a.opts.SummaryEveryTokens
	from, due := summaryDue(a.history, a.lead, a.sessionMsgs, old.Messages, every)
	if !due {
		return
	}
	if failed := int(a.summaryFailedAt.Load()); failed > old.Messages && failed <= a.sessionMsgs &&
		tokensFrom(a.history, len(a.history)-(a.sessionMsgs-failed)) < every {
		return
	}
	model := a.opts.Summarizer
	if model == nil {
		model = a.opts.Model
	}
	job := summaryJob{file: f, old: old, msgs: slices.Clone(a.history[from:]), mark: a.sessionMsgs, model: model, name: a.summaryModelName()}
	a.summaryBusy.Store(true)
	a.opts.Background(func(ctx context.Context) {
		defer a.summaryBusy.Store(false)
		if err := a.updateSummary(ctx, job); err != nil {
			a.summaryFailedAt.Store(int64(job.mark))
		}
	})
}

// updateSummary runs one update: it may run on its own goroutine while
// the next turn runs, so it touches nothing of the agent but the usage
// (locked). Its usage counts in the session under the model that answered.
// The file is replaced only by a summary with at least one section that
// says something.
func (a *Agent) updateSummary(ctx context.Context, job summaryJob) error {
	req := summaryUpdateRequest(job.old, job.msgs, job.name)
	text, err := a.collectText(ctx, job.model, req)
	if err != nil {
		return err
	}
	sum := session.Summary{Sections: session.ParseSummarySections(text)}
	if sum.Empty() {
		return errors.New("the session summary update wrote no section")
	}
	body, _ := sum.Cut(summaryFileSection, summaryFileTotal)
	sum = session.Summary{
		Messages: job.mark,
		Tokens:   job.old.Tokens + tokensFrom(job.msgs, 0),
		Updated:  a.opts.Now().UTC(),
		Sections: session.ParseSummarySections(body),
	}
	return job.file.WriteSummary(sum)
}

// summaryUpdateRequest is the update's request: deterministic for the same
// summary and messages (a golden file holds one).
func summaryUpdateRequest(old session.Summary, msgs []providers.Message, model string) providers.Request {
	current := "(none yet)"
	if !old.Empty() {
		current = strings.TrimSpace(old.Body())
	}
	var b strings.Builder
	b.WriteString("<session_summary>\n" + escapeClose(current, "session_summary") + "\n</session_summary>\n\n")
	b.WriteString("<new_messages>\n" + escapeClose(renderTranscript(msgs), "new_messages") + "</new_messages>\n\n")
	fmt.Fprintf(&b, sessionSummaryAsk, sessionSummaryWords)
	return providers.Request{
		Model:    model,
		System:   sessionSummarySystem,
		Messages: []providers.Message{providers.UserText(b.String())},
	}
}

// escapeClose keeps text from closing the <tag> block it is put in.
func escapeClose(text, tag string) string {
	return strings.ReplaceAll(text, "</"+tag+">", `<\/`+tag+">")
}

// collectText sends a side request (a compaction summary, a session
// summary update) and returns its text, reasoning left out. A response
// that calls tools, or says nothing, is a failure. Its usage counts in the
// session under the model that answered, whatever happens.
func (a *Agent) collectText(ctx context.Context, model Model, req providers.Request) (string, error) {
	var text strings.Builder
	resp := &response{}
	defer func() { a.addModelUsage(resp.answeredBy(req.Model), resp.usage) }()
	calls := false
	for ev, err := range model.Stream(ctx, req) {
		if err != nil {
			return "", err
		}
		resp.model = ev.AnsweredBy(resp.model)
		switch ev.Type {
		case providers.EventTextDelta:
			text.WriteString(ev.Text)
		case providers.EventToolCall:
			calls = true
		case providers.EventUsage:
			if ev.Usage != nil {
				resp.usage.Add(*ev.Usage)
			}
		}
	}
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if calls {
		return "", errors.New("the summary request was answered with tool calls")
	}
	out := strings.TrimSpace(stripThink(text.String()))
	if out == "" {
		return "", errors.New("the summary request returned no text")
	}
	return out, nil
}
