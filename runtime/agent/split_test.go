package agent

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
)

// Histories for split tests are written as one letter per message, so a case
// reads like the conversation: U user turn, A assistant text, C assistant
// with tool calls, R their results. Every message weighs 10 tokens unless
// sized otherwise.
func history(shape string) []providers.Message {
	var msgs []providers.Message
	calls := 0
	for i, c := range shape {
		switch c {
		case 'U':
			msgs = append(msgs, providers.UserText(fmt.Sprint("turn ", i)))
		case 'A':
			msgs = append(msgs, providers.AssistantText(fmt.Sprint("answer ", i)))
		case 'K': // a call with the thinking that led to it, in one message
			calls++
			msgs = append(msgs, providers.Message{Role: providers.RoleAssistant, Parts: []providers.Part{
				{Type: providers.PartReasoning, Text: "think", Signature: "sig"}, call(fmt.Sprint(calls), "shell")}})
		case 'C', 'P': // P: three parallel calls in one message
			m := providers.Message{Role: providers.RoleAssistant}
			n := 1
			if c == 'P' {
				n = 3
			}
			for range n {
				calls++
				m.Parts = append(m.Parts, call(fmt.Sprint(calls), "shell"))
			}
			msgs = append(msgs, m)
		case 'R':
			prev := msgs[len(msgs)-1].ToolCalls()
			m := providers.Message{Role: providers.RoleUser}
			for _, c := range prev {
				m.Parts = append(m.Parts, result(c.ID, "out", false))
			}
			msgs = append(msgs, m)
		case 'T': // text-protocol results
			msgs = append(msgs, providers.UserText(textResultsHeader+"\n<tool_result name=\"shell\" status=\"ok\">x</tool_result>"))
		}
	}
	return msgs
}

func flat(providers.Message) int { return 10 }

func TestChooseSplit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name          string
		shape         string
		keep, maxTail int
		want          split
	}{
		{"empty history", "", 20, 100, split{Cut: 0, Pinned: -1}},
		{"only the current message", "U", 20, 100, split{Cut: 0, Pinned: -1}},
		{"keeps whole recent turns", "UAUAUAUA", 30, 100, split{Cut: 4, Pinned: -1}},
		{"tail reaching keep exactly", "UAUAUAUA", 40, 100, split{Cut: 4, Pinned: -1}},
		{"whole turns preferred", "UCRAUCRCRA", 20, 100, split{Cut: 4, Pinned: -1}},
		{"cut inside an earlier turn", "UCRCRCRUA", 50, 100, split{Cut: 3, Pinned: -1}},
		{"cut inside the current turn", "UCRAUCRCRA", 20, 30, split{Cut: 7, Pinned: 4}},
		{"never between calls and results", "UCRCRUCR", 10, 100, split{Cut: 5, Pinned: -1}},
		{"parallel calls stay with their results", "UPRAUPRA", 15, 100, split{Cut: 4, Pinned: -1}},
		{"current turn always kept", "UAUCRCRCR", 10, 100, split{Cut: 2, Pinned: -1}},
		{"small history: everything before the current turn", "UAUA", 1000, 1000, split{Cut: 2, Pinned: -1}},
		{"text protocol results count as results", "UATUAT", 10, 100, split{Cut: 3, Pinned: -1}},
		// The current turn alone is larger than the tail may be: cut inside
		// it and pin its user message.
		{"turn bigger than the budget", "UAUCRCRCRCR", 10, 30, split{Cut: 9, Pinned: 2}},
		{"turn bigger than everything", "UCRCRCR", 0, 0, split{Cut: 7, Pinned: 0}},
		{"no user message at all", "ACRA", 10, 100, split{Cut: 3, Pinned: -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := chooseSplit(history(c.shape), c.keep, c.maxTail, flat)
			if got != c.want {
				t.Errorf("chooseSplit(%s, keep %d, maxTail %d) = %+v, want %+v", c.shape, c.keep, c.maxTail, got, c.want)
			}
		})
	}
}

// TestChooseSplitInvariants checks, over many random histories and budgets,
// what must always hold: no tool call is separated from its results, the
// current user message is always kept, and a tail that could hold keep
// tokens does.
func TestChooseSplitInvariants(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 3000 {
		shape := randomShape(rng, 1+rng.IntN(40))
		msgs := history(shape)
		sizes := make(map[*providers.Part]int)
		for i := range msgs {
			sizes[&msgs[i].Parts[0]] = 1 + rng.IntN(50)
		}
		tokens := func(m providers.Message) int { return sizes[&m.Parts[0]] }
		// tokens is keyed by the part's address, which copies keep: the
		// message value passed shares its Parts backing array.
		keep, maxTail := rng.IntN(200), rng.IntN(300)
		s := chooseSplit(msgs, keep, maxTail, tokens)
		where := fmt.Sprintf("case %d: %s keep=%d maxTail=%d -> %+v", iter, shape, keep, maxTail, s)
		if s.Cut < 0 || s.Cut > len(msgs) {
			t.Fatalf("%s: cut out of range", where)
		}
		if s.Cut < len(msgs) && isResults(msgs[s.Cut]) {
			t.Fatalf("%s: tail starts with tool results", where)
		}
		current := strings.LastIndexByte(shape, 'U')
		if current >= 0 && s.Cut > current && s.Pinned != current {
			t.Fatalf("%s: current user message neither kept nor pinned", where)
		}
		if s.Pinned >= 0 && s.Pinned != current {
			t.Fatalf("%s: pinned a message that is not the current turn's", where)
		}
		suffix := func(i int) int {
			n := 0
			for _, m := range msgs[i:] {
				n += tokens(m)
			}
			return n
		}
		if s.Pinned < 0 && s.Cut > 0 && suffix(s.Cut) <= maxTail && suffix(s.Cut) < keep {
			// Too little kept: only right when no earlier cut could keep more.
			for i := 1; i < s.Cut; i++ {
				if canCut(msgs, i) && suffix(i) >= keep && suffix(i) <= maxTail {
					t.Fatalf("%s: tail of %d tokens < keep, but cutting at %d keeps %d", where, suffix(s.Cut), i, suffix(i))
				}
			}
		}
		head, kept := s.parts(msgs)
		if len(head)+len(kept) != len(msgs) {
			t.Fatalf("%s: %d + %d messages, want %d", where, len(head), len(kept), len(msgs))
		}
		valid := repairHistory(append([]providers.Message{providers.UserText("summary")}, kept...))
		if len(valid) != len(kept)+1 {
			t.Fatalf("%s: kept history needed repair", where)
		}
	}
}

func randomShape(rng *rand.Rand, turns int) string {
	var b strings.Builder
	for range turns {
		b.WriteByte('U')
		for range rng.IntN(4) {
			if rng.IntN(3) == 0 {
				b.WriteString("PR")
			} else {
				b.WriteString("CR")
			}
		}
		if rng.IntN(4) > 0 {
			b.WriteByte('A')
		}
	}
	return b.String()
}

// BenchmarkChooseSplit measures split selection over 2,000 messages.
func BenchmarkChooseSplit(b *testing.B) {
	msgs := history(strings.Repeat("UCRPRA", 2000/6+1)[:2000])
	for b.Loop() {
		chooseSplit(msgs, 20000, 80000, messageTokens)
	}
}

// TestSummaryWindow: the raw window of a compaction from the session
// summary. Shapes as in TestChooseSplit (K: a call message with its
// thinking); every message weighs 10 tokens.
func TestSummaryWindow(t *testing.T) {
	t.Parallel()
	lim := func(minT, maxT, minText int) windowLimits {
		return windowLimits{minTokens: minT, maxTokens: maxT, minText: minText}
	}
	cases := []struct {
		name          string
		shape         string
		lowest, first int
		lim           windowLimits
		want          int
		ok            bool
	}{
		{"uncovered part alone, limits met", "UAUAUA", 0, 4, lim(10, 100, 1), 4, true},
		{"results are kept with their call", "UAUCRCRA", 0, 6, lim(0, 100, 0), 5, true},
		{"parallel calls stay with their results", "UAUPRA", 0, 4, lim(0, 100, 0), 3, true},
		{"text-protocol results stay with their call", "UCTA", 0, 2, lim(0, 100, 0), 1, true},
		{"thinking stays with its tool_use", "UAUKRA", 0, 4, lim(0, 100, 0), 3, true},
		{"reaches back to the minimum tokens", "UAUAUAUA", 0, 8, lim(30, 100, 0), 5, true},
		{"reaches back to five text messages", "UCRCRAUCRCRAUA", 0, 14, lim(0, 1000, 5), 5, true},
		{"steps back over a whole pair", "UACRUA", 0, 4, lim(25, 100, 0), 2, true},
		{"stops before a pair that would pass the maximum", "UACRUA", 0, 4, lim(100, 35, 0), 4, true},
		{"stops at the maximum", "UAUAUAUAUA", 0, 10, lim(1000, 40, 5), 6, true},
		{"never before lowest (a compaction's summary)", "UAUAUA", 1, 5, lim(1000, 1000, 10), 1, true},
		{"everything covered, history too short", "UA", 0, 2, lim(1000, 1000, 5), 0, true},
		{"what is not covered is over the maximum: stale", "UAUAUAUA", 0, 2, lim(10, 50, 0), 0, false},
		{"first before lowest: stale", "UAUA", 2, 1, lim(0, 100, 0), 0, false},
		{"first past the end", "UA", 0, 3, lim(0, 100, 0), 0, false},
		{"results with no call in reach", "TUA", 0, 0, lim(0, 100, 0), 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			msgs := history(c.shape)
			got, ok := summaryWindow(msgs, c.lowest, c.first, c.lim, flat)
			if got != c.want || ok != c.ok {
				t.Fatalf("summaryWindow(%s, lowest %d, first %d, %+v) = %d, %v; want %d, %v", c.shape, c.lowest, c.first, c.lim, got, ok, c.want, c.ok)
			}
			if !ok || got == len(msgs) {
				return
			}
			if isResults(msgs[got]) {
				t.Errorf("window starts with tool results")
			}
			kept := append([]providers.Message{providers.UserText("summary")}, msgs[got:]...)
			if len(repairHistory(kept)) != len(kept) {
				t.Errorf("the kept window needed repair")
			}
		})
	}
}

// TestSummaryWindowInvariants: over random histories, a window never
// starts on tool results, holds everything from first, stays within the
// maximum when it grew, and stops growing only for a reason.
func TestSummaryWindowInvariants(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := range 3000 {
		msgs := history(randomShape(rng, 1+rng.IntN(30)))
		first := rng.IntN(len(msgs) + 1)
		l := windowLimits{minTokens: rng.IntN(200), maxTokens: rng.IntN(300), minText: rng.IntN(8)}
		start, ok := summaryWindow(msgs, 0, first, l, flat)
		where := fmt.Sprintf("case %d: %d messages, first %d, %+v -> %d %v", iter, len(msgs), first, l, start, ok)
		uncoveredSize, _ := windowSize(msgs[first:], flat)
		if !ok {
			if uncoveredSize <= l.maxTokens-10 {
				t.Fatalf("%s: refused although the uncovered part fits", where)
			}
			continue
		}
		if start > first || start < 0 {
			t.Fatalf("%s: window does not hold everything from first", where)
		}
		if start < len(msgs) && isResults(msgs[start]) {
			t.Fatalf("%s: window starts with tool results", where)
		}
		size, texts := windowSize(msgs[start:], flat)
		if start < first && size > l.maxTokens {
			t.Fatalf("%s: grew past the maximum (%d)", where, size)
		}
		if start > 0 && size < l.minTokens-0 && texts < l.minText {
			// Growth stopped short of both minimums: only the maximum may
			// stop it (the next pair does not fit).
			s := start - 1
			for s > 0 && isResults(msgs[s]) {
				s--
			}
			if n, _ := windowSize(msgs[s:], flat); n <= l.maxTokens {
				t.Fatalf("%s: stopped at %d tokens, %d texts although %d fit", where, size, texts, n)
			}
		}
	}
}
