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
