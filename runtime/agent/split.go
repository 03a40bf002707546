package agent

import (
	"strings"

	"github.com/clawseed/clawseed/providers"
)

// A split divides the history for compaction (§7): the head, msgs[:Cut]
// except msgs[Pinned], is summarised; the tail, msgs[Cut:], is kept
// verbatim.
type split struct {
	Cut int
	// Pinned is the index of the current turn's user message when the cut
	// falls inside the current turn (a turn larger than the tail budget):
	// the message is kept, right after the summary. -1 otherwise.
	Pinned int
}

// empty reports whether the split leaves nothing to summarise.
func (s split) empty() bool {
	n := s.Cut
	if s.Pinned >= 0 {
		n--
	}
	return n <= 0
}

// chooseSplit picks where to cut msgs so that the tail keeps at least keep
// tokens and at most maxTail, and always the current turn's user message.
//
// A cut never falls between an assistant message that calls tools and the
// message with their results, so the kept history stays valid for every
// provider. Preference order:
//
//  1. the latest turn start at or before the current turn's user message
//     whose tail holds at least keep tokens, so the tail is whole turns;
//     failing that, the latest such cut inside a turn; failing that, the
//     current turn's user message (everything before it is summarised);
//  2. if that tail exceeds maxTail, the earliest later cut whose tail fits;
//     when it lies inside the current turn the user message is pinned.
//
// tokens reports one message's size; cost is linear in len(msgs).
func chooseSplit(msgs []providers.Message, keep, maxTail int, tokens func(providers.Message) int) split {
	n := len(msgs)
	suffix := make([]int, n+1)
	for i := n - 1; i >= 0; i-- {
		suffix[i] = suffix[i+1] + tokens(msgs[i])
	}
	current := -1
	for i := n - 1; i >= 0; i-- {
		if isTurnStart(msgs[i]) {
			current = i
			break
		}
	}
	limit := current
	if limit < 0 {
		limit = n
	}
	cut := latestCut(limit, func(i int) bool { return i < n && isTurnStart(msgs[i]) && suffix[i] >= keep })
	if cut < 0 {
		cut = latestCut(limit, func(i int) bool { return canCut(msgs, i) && suffix[i] >= keep })
	}
	if cut < 0 {
		cut = limit
	}
	if suffix[cut] > maxTail {
		for i := cut + 1; i <= n; i++ {
			if canCut(msgs, i) && suffix[i] <= maxTail {
				cut = i
				break
			}
		}
	}
	s := split{Cut: cut, Pinned: -1}
	if current >= 0 && cut > current {
		s.Pinned = current
	}
	return s
}

// latestCut returns the largest i in [1, limit] for which ok holds, or -1.
func latestCut(limit int, ok func(i int) bool) int {
	for i := limit; i > 0; i-- {
		if ok(i) {
			return i
		}
	}
	return -1
}

// canCut reports whether the history may be cut before msgs[i]: never
// between a tool-calling assistant message and its results.
func canCut(msgs []providers.Message, i int) bool {
	return i >= len(msgs) || !isResults(msgs[i])
}

// isResults reports whether m answers tool calls: tool_result parts, or the
// `[Tool results]` message of the text protocol (§5.5).
func isResults(m providers.Message) bool {
	if m.Role != providers.RoleUser {
		return false
	}
	for _, p := range m.Parts {
		if p.Type == providers.PartToolResult {
			return true
		}
	}
	return strings.HasPrefix(m.Text(), textResultsHeader)
}

// isTurnStart reports whether m is a user message that starts a turn (not a
// tool-results message). A compaction summary counts too: it stands for the
// turns it replaced.
func isTurnStart(m providers.Message) bool {
	return m.Role == providers.RoleUser && !isResults(m)
}

// windowLimits bound the recent window a compaction from the session
// summary keeps raw (summaryWindow).
type windowLimits struct {
	minTokens, maxTokens int
	// minText is the number of messages with text (not tool results) the
	// window should hold.
	minText int
}

// summaryWindow returns where the raw window of a compaction from the
// session summary starts: at or before first, the first message the
// summary does not cover (everything from there on is kept), never before
// lowest (the messages before it are a compaction's summary), never on a
// tool-results message (a call and its results stay together, and a
// message's reasoning blocks are part of it, so thinking stays with its
// tool_use). From first it reaches back, whole call-and-results pairs at a
// time, until the window holds lim.minTokens and lim.minText text
// messages, while it stays within lim.maxTokens. ok is false when what the
// summary does not cover is alone larger than lim.maxTokens (the summary
// is then too old to be used) or first is out of range.
func summaryWindow(msgs []providers.Message, lowest, first int, lim windowLimits, tokens func(providers.Message) int) (start int, ok bool) {
	if first < lowest || first > len(msgs) {
		return 0, false
	}
	start = first
	for start > lowest && !canCut(msgs, start) {
		start--
	}
	if !canCut(msgs, start) {
		return 0, false // results whose call is not in the history: a damaged history
	}
	size, texts := windowSize(msgs[start:], tokens)
	if size > lim.maxTokens {
		return 0, false
	}
	for start > lowest && (size < lim.minTokens || texts < lim.minText) {
		s := start - 1
		for s > lowest && !canCut(msgs, s) {
			s--
		}
		if !canCut(msgs, s) {
			break
		}
		n, t := windowSize(msgs[s:start], tokens)
		if size+n > lim.maxTokens {
			break
		}
		start, size, texts = s, size+n, texts+t
	}
	return start, true
}

// windowSize returns the tokens of msgs and how many of them carry text.
func windowSize(msgs []providers.Message, tokens func(providers.Message) int) (size, texts int) {
	for _, m := range msgs {
		size += tokens(m)
		if hasText(m) {
			texts++
		}
	}
	return size, texts
}

// hasText reports whether m says something in words: a user's or the
// assistant's text, not a tool-results message.
func hasText(m providers.Message) bool {
	if isResults(m) {
		return false
	}
	for _, p := range m.Parts {
		if p.Type == providers.PartText && strings.TrimSpace(p.Text) != "" {
			return true
		}
	}
	return false
}
