package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/hooks"
	"github.com/clawseed/clawseed/runtime/session"
)

// Compaction reasons (§7).
const (
	// CompactAuto: the next request would exceed compact_at_percent.
	CompactAuto = "auto"
	// CompactOverflow: the provider said the context is too long.
	CompactOverflow = "overflow"
	// CompactManual: /compact.
	CompactManual = "manual"
)

// CompactionInfo describes one compaction; it is the payload of the
// compaction event.
type CompactionInfo struct {
	Reason       string `json:"reason"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
	// Replaced is the number of messages removed from the history.
	Replaced int `json:"replaced"`
	// Kept is the number of messages kept verbatim.
	Kept int `json:"kept"`
	// Summarized is false when the summary request failed and the oldest
	// turns were dropped with a note instead.
	Summarized bool `json:"summarized"`
	// Source says how: session.CompactSessionSummary (the session summary
	// file, no request), session.CompactSummaryRequest or
	// session.CompactDropped.
	Source string `json:"source,omitempty"`
	// Error says why summarising failed.
	Error string `json:"error,omitempty"`
}

// FromSessionSummary reports whether the session summary replaced the
// head, with no model request.
func (c CompactionInfo) FromSessionSummary() bool { return c.Source == session.CompactSessionSummary }

// summaryResultChars caps each tool result in the transcript sent for
// summarising: the summary needs what a result showed, not all of it.
const summaryResultChars = 2000

const compactionSystem = `You summarise a conversation between a user and an AI agent that works in a software project with tools. Older messages are about to be removed from the agent's context; it will continue the work from your summary and the most recent messages alone. Write only the summary: no preamble, no tool calls.`

// transcriptLead and compactionInPlace open the summary instruction: after a
// transcript, or at the end of the conversation itself. Both are followed by
// compactionRequest, so every summary request contains "Summarise the
// conversation" (what test scripts answer).
const (
	transcriptLead    = "The transcript above is the older part of a conversation. "
	compactionInPlace = "<compaction_request>\nOlder messages of this conversation are about to be removed from your context; you will continue the work from a summary and the most recent messages alone. Do not call any tool and do not answer the last request: write only the summary. "
)

const compactionRequest = `Summarise the conversation so far so the work can continue from it. Use these headings, in this order, and leave out a heading that would be empty:

## User goals
## Decisions
## Files and identifiers
## Open questions
## Current work

Under "Files and identifiers" list every file path, function, command, URL, error message and other identifier that was touched or matters, verbatim. Under "Current work" say what was being done last and what the next step is. Keep it under about %d words. Write in the language the user writes in.`

// compactionLead opens every summary message, so the model knows what it is
// reading.
const compactionLead = "Earlier messages of this conversation were replaced by this summary."

// threshold is the request size, in tokens, above which the history is
// compacted before the next request.
func (a *Agent) threshold() int {
	return a.opts.ContextWindow * a.opts.CompactAtPercent / 100
}

// Compact summarises the older part of the history now (/compact). focus,
// when not empty, tells the summary what to concentrate on. Replaced is 0
// when there was nothing to compact. The usage of the summary request is
// counted in the session.
func (a *Agent) Compact(ctx context.Context, focus string) (CompactionInfo, error) {
	info, err := a.compact(ctx, CompactManual, focus)
	return info, err
}

// compact replaces the head of the history by a summary (§7): the session
// summary when it is current and no focus is asked for (no request,
// summarycompact.go), else one the model writes. The system prompt is not
// touched: the skill index and active skills survive any number of
// compactions byte for byte. When the summary request fails, the oldest
// whole turns are dropped and a one-line note is inserted instead. It
// returns an error only when ctx ends, and then leaves the history as it
// was.
//
// The summary is a user message and the kept tail may start with one too;
// the OpenAI wire accepts adjacent user messages and the Anthropic API merges
// them into one turn.
func (a *Agent) compact(ctx context.Context, reason, focus string) (CompactionInfo, error) {
	stats := a.Context()
	info := CompactionInfo{Reason: reason, TokensBefore: a.estimate(stats)}
	budget := a.threshold() - (stats.Total() - stats.History)
	if reason == CompactOverflow {
		// The provider counted more than we estimated: halve what we send.
		budget = min(budget, stats.History/2)
	}
	budget = max(budget, 0)
	var sp split
	lead, start, fromSummary := providers.Message{}, 0, false
	if strings.TrimSpace(focus) == "" {
		lead, start, fromSummary = a.fromSessionSummary(budget)
	}
	if fromSummary {
		sp = split{Cut: start, Pinned: -1}
	} else {
		keep := min(a.opts.KeepRecentTokens, budget/2)
		sp = chooseSplit(a.history, keep, budget*3/4, messageTokens)
	}
	if sp.empty() {
		info.TokensAfter = info.TokensBefore
		return info, nil
	}

	trigger := "auto" // Claude Code's word: the loop decided (over the threshold, or the provider said too long)
	if reason == CompactManual {
		trigger = "manual"
	}
	a.fire(ctx, hooks.PreCompact, trigger, func() map[string]any {
		return map[string]any{"trigger": trigger, "custom_instructions": focus}
	})
	head, kept := sp.parts(a.history)
	switch {
	case fromSummary:
		info.Summarized, info.Source = true, session.CompactSessionSummary
	default:
		summary, err := a.summarize(ctx, head, focus, budget, reason)
		if ctx.Err() != nil {
			return info, ctx.Err()
		}
		if err != nil {
			sp = wholeTurns(a.history, sp)
			head, kept = sp.parts(a.history)
			lead = providers.UserText(fmt.Sprintf("[%d earlier messages were removed to fit the context window; summarising them failed.]", len(head)))
			info.Error, info.Source = err.Error(), session.CompactDropped
		} else {
			lead = summaryMessage(summary)
			info.Summarized, info.Source = true, session.CompactSummaryRequest
		}
	}
	lead = a.afterCompactHooks(ctx, trigger, lead)
	// The kept messages that are still the session's last messages in
	// order: those from the cut on, past the old lead (a pinned user
	// message is not one of them).
	inOrder := len(a.history) - max(sp.Cut, a.lead)
	a.history = append([]providers.Message{lead}, kept...)
	dropOldImages(a.history)
	a.anchors = nil
	a.lead = len(a.history) - inOrder
	a.reported = 0
	// The prompt's cached prefix is lost with the history anyway: take the
	// memories written since the session started.
	a.refreshMemory()
	// The instructions too, and a subfolder's instructions are attached
	// again when a call reaches it if the summary replaced their block.
	a.refreshInstructions(ctx)
	a.nested = nil
	// The skills of nested folders announced since join the index.
	a.indexAll()
	info.Replaced, info.Kept = len(head), len(kept)
	info.TokensAfter = a.estimate(a.Context())
	if a.opts.Recorder != nil {
		a.recorded(a.opts.Recorder.RecordCompaction(session.Compaction{
			Summary:      lead.Text(),
			Replaced:     info.Replaced,
			TokensBefore: info.TokensBefore,
			TokensAfter:  info.TokensAfter,
			Messages:     a.History(),
			Source:       info.Source,
			Lead:         a.lead,
		}))
	}
	ev := info
	a.opts.Sink(Event{Type: EventCompaction, Compaction: &ev})
	return info, nil
}

// afterCompactHooks fires PostCompact, then SessionStart "compact" (what
// Claude Code fires as a compacted session goes on): the context those
// give the model is added to the summary message, the first message of
// the new history.
func (a *Agent) afterCompactHooks(ctx context.Context, trigger string, lead providers.Message) providers.Message {
	a.fire(ctx, hooks.PostCompact, trigger, func() map[string]any {
		return map[string]any{"trigger": trigger, "compact_summary": lead.Text()}
	})
	res := a.fire(ctx, hooks.SessionStart, "compact", func() map[string]any {
		return map[string]any{"source": "compact", "model": a.opts.ModelName}
	})
	if r := reminder(hooks.SessionStart, res.Context); r != "" {
		return providers.UserText(lead.Text() + "\n\n" + strings.TrimRight(r, "\n"))
	}
	return lead
}

// parts returns the messages a split summarises and the ones it keeps (the
// pinned user message first).
func (s split) parts(msgs []providers.Message) (head, kept []providers.Message) {
	for i, m := range msgs[:s.Cut] {
		if i == s.Pinned {
			kept = append(kept, m)
			continue
		}
		head = append(head, m)
	}
	return head, append(kept, msgs[s.Cut:]...)
}

// wholeTurns moves a cut that falls inside an earlier turn forward to the
// start of the next turn, so dropping the head without a summary removes
// whole turns and never leaves the tail starting mid-turn.
func wholeTurns(msgs []providers.Message, s split) split {
	if s.Pinned >= 0 {
		return s
	}
	for i := s.Cut; i < len(msgs); i++ {
		if isTurnStart(msgs[i]) {
			s.Cut = i
			return s
		}
	}
	return s
}

// summaryMessage wraps a summary in the <compaction_summary> user message.
func summaryMessage(summary string) providers.Message {
	summary = strings.ReplaceAll(strings.TrimSpace(summary), "</compaction_summary>", `<\/compaction_summary>`)
	return providers.UserText("<compaction_summary>\n" + compactionLead + "\n\n" + summary + "\n</compaction_summary>")
}

// summarize asks the model for a summary of head. The history travels as a
// plain-text transcript in one user message, with long tool results cut: no
// tool schemas are needed, every provider accepts it, and it is far smaller
// than the raw messages.
func (a *Agent) summarize(ctx context.Context, head []providers.Message, focus string, budget int, reason string) (string, error) {
	words := min(max(budget/4, 300), 2000) * 3 / 4
	ask := fmt.Sprintf(compactionRequest, words)
	if focus = strings.TrimSpace(focus); focus != "" {
		ask += "\n\nFocus the summary on: " + focus
	}
	if a.summaryInPlace(reason) {
		summary, err := a.summaryRequest(ctx, a.inPlaceRequest(ask), a.opts.Model, budget)
		if err == nil || ctx.Err() != nil || !transcriptMayHelp(err) {
			return summary, err
		}
	}
	model := a.opts.Summarizer
	if model == nil {
		model = a.opts.Model
	}
	req := providers.Request{
		Model:    a.summaryModelName(),
		System:   compactionSystem,
		Messages: []providers.Message{providers.UserText("<transcript>\n" + renderTranscript(head) + "</transcript>\n\n" + transcriptLead + ask)},
	}
	return a.summaryRequest(ctx, req, model, budget)
}

// summaryInPlace reports whether the summary is asked for at the end of the
// conversation itself rather than of a transcript: when the session's own
// model summarises (no summary_model), with native tools, and the request
// is known to fit (not after a context-length error). Such a request shares
// the whole prefix (tools, system prompt, history) with the previous one,
// so the provider's prompt cache serves nearly all of it: a compaction at
// 80 % of a 200K window then costs a tenth of its input tokens.
func (a *Agent) summaryInPlace(reason string) bool {
	return reason != CompactOverflow && a.opts.Summarizer == nil && a.opts.SummaryModelName == "" && !a.opts.TextTools
}

// transcriptMayHelp reports whether a failed in-place summary is worth
// asking again as a transcript: the model called tools or wrote nothing,
// or the request was too long or refused. A provider that is down or
// refuses the key would fail the same way again.
func transcriptMayHelp(err error) bool {
	pe, ok := errors.AsType[*providers.Error](err)
	if !ok {
		return true
	}
	return pe.Kind == providers.KindContextLength || pe.Kind == providers.KindBadRequest
}

// inPlaceRequest is the next conversation request with the summary
// instruction as its last user message. The model summarises everything,
// the recent messages it keeps verbatim included: a little overlap, and
// the prefix stays byte for byte what the cache holds.
func (a *Agent) inPlaceRequest(ask string) providers.Request {
	blocks := a.systemBlocks()
	msgs := append(slices.Clone(a.requestHistory()), providers.UserText(compactionInPlace+ask))
	return providers.Request{
		Model:           a.opts.ModelName,
		SystemBlocks:    blocks,
		BlockAt:         a.blockAnchors(blocks),
		System:          strings.Join(blocks, "\n\n"),
		Messages:        msgs,
		Tools:           a.specs,
		MaxTokens:       a.opts.MaxTokens,
		Temperature:     a.opts.Temperature,
		ReasoningEffort: a.opts.ReasoningEffort,
		CacheKey:        a.opts.SessionID,
	}
}

// summaryRequest sends a summary request and returns its text, cut at half
// the history budget: a model that ignores the length asked for must not
// fill the room the compaction made. A response that calls tools instead
// is a failure. Its usage counts in the session under the model that
// answered.
func (a *Agent) summaryRequest(ctx context.Context, req providers.Request, model Model, budget int) (string, error) {
	summary, err := a.collectText(ctx, model, req)
	if err != nil {
		return "", err
	}
	return truncateOutput(summary, max(budget/2, 500)*4), nil
}

// renderTranscript renders messages for the summary request, one block per
// part; reasoning is left out.
func renderTranscript(msgs []providers.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch {
			case p.Type == providers.PartText && p.Text != "":
				fmt.Fprintf(&b, "[%s]\n%s\n\n", m.Role, p.Text)
			case p.Image != nil:
				fmt.Fprintf(&b, "[%s attached]\n%s\n\n", m.Role, p.Image.Placeholder())
			case p.ToolCall != nil:
				fmt.Fprintf(&b, "[assistant called %s]\n%s\n\n", p.ToolCall.Name, p.ToolCall.Args)
			case p.ToolResult != nil:
				status := "result"
				if p.ToolResult.IsError {
					status = "error"
				}
				fmt.Fprintf(&b, "[%s %s]\n%s\n\n", p.ToolResult.Name, status, truncateOutput(p.ToolResult.Content, summaryResultChars))
				for _, im := range p.ToolResult.Images() {
					fmt.Fprintf(&b, "%s\n\n", im.Placeholder())
				}
			}
		}
	}
	return strings.ReplaceAll(b.String(), "</transcript>", `<\/transcript>`)
}
