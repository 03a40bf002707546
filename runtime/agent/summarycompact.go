package agent

import (
	"strings"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// Compaction from the session summary (issue 24): when the context is full
// and the session summary is current, the head of the history is replaced
// by the summary itself, cut per section to a budget, and the recent window
// is kept raw. No model request is made.

// The recent window kept raw, in tokens, for a window that leaves 80,000
// tokens or more for history; a smaller one scales them down
// (summaryLimits). Claude Code's values.
const (
	summaryWindowMin  = 10000
	summaryWindowMax  = 40000
	summaryWindowMsgs = 5
	// summarySectionTokens and summaryTotalTokens cap the summary in the
	// history: each section, and all of them (at most a quarter of the
	// history's room).
	summarySectionTokens = 2000
	summaryTotalTokens   = 12000
)

// sessionSummaryLead opens the message that replaces the head.
const sessionSummaryLead = "Earlier messages of this conversation were replaced by the session summary below, which is kept up to date as the conversation goes on"

// summaryLimits returns the window limits for a compaction whose history
// may use budget tokens: at most half of it is kept raw.
func summaryLimits(budget int) windowLimits {
	hi := min(summaryWindowMax, budget/2)
	return windowLimits{minTokens: min(summaryWindowMin, hi/2), maxTokens: hi, minText: summaryWindowMsgs}
}

// fromSessionSummary returns the message that replaces history[:start]
// when the session summary can stand for it: session memory is on, the
// summary says something, it covers every message before the window, and
// what it does not cover fits in the window. ok is false otherwise
// (compaction then asks the model, as without session memory).
func (a *Agent) fromSessionSummary(budget int) (lead providers.Message, start int, ok bool) {
	f := a.summaryFile()
	if f == nil {
		return providers.Message{}, 0, false
	}
	sum, exists, err := f.ReadSummary()
	if err != nil || !exists || sum.Empty() {
		return providers.Message{}, 0, false
	}
	first, ok := uncovered(len(a.history), a.lead, a.sessionMsgs, sum.Messages)
	if !ok {
		return providers.Message{}, 0, false
	}
	start, ok = summaryWindow(a.history, a.lead, first, summaryLimits(budget), messageTokens)
	if !ok || start == 0 {
		return providers.Message{}, 0, false
	}
	total := min(summaryTotalTokens, budget/4) * 4
	return sessionSummaryMessage(sum, f.SummaryPath(), min(summarySectionTokens*4, total), total), start, true
}

// sessionSummaryMessage is the <compaction_summary> message made of the
// session summary: the boundary sentence naming the file, then the
// sections, each cut to perSection bytes and all to total, with a note
// naming the file when something was cut.
func sessionSummaryMessage(sum session.Summary, path string, perSection, total int) providers.Message {
	body, cut := sum.Cut(perSection, total)
	var b strings.Builder
	b.WriteString("<compaction_summary>\n" + sessionSummaryLead + " (" + path + ").\n\n")
	b.WriteString(escapeClose(strings.TrimSpace(body), "compaction_summary"))
	if cut {
		b.WriteString("\n\n[Sections marked […] were cut to fit the context; the whole summary is in " + path + ".]")
	}
	b.WriteString("\n</compaction_summary>")
	return providers.UserText(b.String())
}
