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
