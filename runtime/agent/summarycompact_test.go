package agent

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// TestSummaryLimits: the recent window a compaction from the session
// summary keeps raw is at least 10,000 tokens and 5 text messages and at
// most 40,000 tokens (issue 24's numbers, written out here so that a change
// of the constants fails), scaled down for a history with less room: never
// more than half of it, the token minimum half of that maximum.
func TestSummaryLimits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		budget int
		want   windowLimits
	}{
		{1_000_000, windowLimits{minTokens: 10_000, maxTokens: 40_000, minText: 5}},
		{200_000, windowLimits{minTokens: 10_000, maxTokens: 40_000, minText: 5}},
		{80_000, windowLimits{minTokens: 10_000, maxTokens: 40_000, minText: 5}}, // the smallest budget with Claude Code's values
		{60_000, windowLimits{minTokens: 10_000, maxTokens: 30_000, minText: 5}},
		{40_000, windowLimits{minTokens: 10_000, maxTokens: 20_000, minText: 5}},
		{30_000, windowLimits{minTokens: 7_500, maxTokens: 15_000, minText: 5}},
		{5_090, windowLimits{minTokens: 1_272, maxTokens: 2_545, minText: 5}},
		{1, windowLimits{minTokens: 0, maxTokens: 0, minText: 5}},
		{0, windowLimits{minTokens: 0, maxTokens: 0, minText: 5}},
	} {
		if got := summaryLimits(tt.budget); got != tt.want {
			t.Errorf("summaryLimits(%d) = %+v, want %+v", tt.budget, got, tt.want)
		}
	}
}

// TestSummaryLimitsWindow: each minimum holds on its own in the window a
// roomy history keeps: five large messages although two pass 10,000
// tokens, and 10,000 tokens of small messages although five are fewer.
func TestSummaryLimitsWindow(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		msgs   int
		tokens int
		want   int // messages kept
	}{
		{"five text messages", 10, 6_000, 5},
		{"10,000 tokens", 30, 1_000, 10},
		{"at most 40,000 tokens", 10, 9_000, 4},
	} {
		msgs := history(strings.Repeat("UA", tt.msgs/2))
		each := func(providers.Message) int { return tt.tokens }
		start, ok := summaryWindow(msgs, 0, len(msgs)-1, summaryLimits(200_000), each)
		if !ok || len(msgs)-start != tt.want {
			t.Errorf("%s: kept %d of %d messages of %d tokens (ok %v), want %d", tt.name, len(msgs)-start, len(msgs), tt.tokens, ok, tt.want)
		}
	}
}

// TestSessionSummaryMessage: the session summary in the history names its
// file; a section over its budget is cut, marked […], and a note after the
// sections says where the whole summary is. A summary that fits has
// neither.
func TestSessionSummaryMessage(t *testing.T) {
	t.Parallel()
	const path = "/home/u/.clawseed/sessions/s1.summary.md"
	perSection := summarySectionTokens * 4
	total := summaryTotalTokens * 4
	note := "[Sections marked […] were cut to fit the context; the whole summary is in " + path + ".]"

	var long strings.Builder
	for i := 0; long.Len() <= 2*perSection; i++ {
		fmt.Fprintf(&long, "decision %03d: %s\n", i, strings.Repeat("x", 80))
	}
	sum := session.Summary{Messages: 10, Sections: summaryBody(strings.TrimSpace(long.String()), "LAST-FILE.go")}
	text := sessionSummaryMessage(sum, path, perSection, total).Text()
	if !strings.HasPrefix(text, "<compaction_summary>\n"+sessionSummaryLead+" ("+path+").\n\n# ") {
		t.Errorf("lead:\n%.300s", text)
	}
	if !strings.HasSuffix(text, "\n\n"+note+"\n</compaction_summary>") {
		t.Errorf("no note naming the whole summary's file at the end:\n…%s", text[max(0, len(text)-300):])
	}
	if n := strings.Count(text, "\n[…]\n"); n != 1 {
		t.Errorf("%d cut sections marked, want 1:\n%s", n, text)
	}
	if strings.Contains(text, "decision 099:") || !strings.Contains(text, "decision 000:") || !strings.Contains(text, "LAST-FILE.go") {
		t.Errorf("the long section is not cut to its budget, or the short one is cut:\n%s", text)
	}
	if len(text) > perSection+2000 {
		t.Errorf("message is %d bytes, over its section's budget of %d", len(text), perSection)
	}

	fits := session.Summary{Messages: 10, Sections: summaryBody("TASK", "FILE.go")}
	text = sessionSummaryMessage(fits, path, perSection, total).Text()
	if strings.Contains(text, "[…]") || strings.Contains(text, "were cut to fit") || !strings.HasSuffix(text, "# Next steps\n</compaction_summary>") {
		t.Errorf("a summary that fits is marked as cut:\n%s", text)
	}
}
