package repl

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
)

// TestStatus: /status reports the session's settings from Status, the
// context share, tokens, cache hits and cost as /context and /cost
// compute them, and the active skills; what comes from files or the
// configuration is escaped.
func TestStatus(t *testing.T) {
	t.Parallel()
	fa := newFakeAgent()
	fa.byModel = []providers.ModelUsage{{Model: "m1", Usage: providers.Usage{InputTokens: 4000, CachedInputTokens: 1000, OutputTokens: 100}}}
	fa.ActivateSkill(context.Background(), "review", "")
	var out bytes.Buffer
	c := &Chat{Agent: fa, Out: &out, Err: &out,
		Prices: func(string) (providers.Price, bool) {
			return providers.Price{Input: 1, CacheRead: 0.1, Output: 10}, true
		},
		Status: func() SessionStatus {
			return SessionStatus{Provider: "openai", Entry: "fast", Model: "m1", SessionID: "20260101-000000-abc",
				Workspace: "/ws/\x1b[2Jx", Trusted: false, Autonomy: "supervised", Sandbox: "sandbox: off (x); commands are not sandboxed"}
		}}
	c.command(t.Context(), "/status")
	got := out.String()
	for _, want := range []string{
		"Status:\n",
		"  provider    openai\n",
		"  model       m1 (fast)\n",
		"  session     20260101-000000-abc\n",
		"  workspace   /ws/\\x1b[2Jx (untrusted — /trust to change)\n",
		"  autonomy    supervised\n",
		"  sandbox     off (x); commands are not sandboxed\n",
		"  context     15% used (150 of 1,000 tokens)\n",
		"  tokens      4,000 input (1,000 cache read, 0 cache write), 100 output this session\n",
		"  cache hits  25.0% of input tokens\n",
		"  cost        $0.004100\n", // 3,000 × 1 + 1,000 × 0.1 + 100 × 10 µ$
		"  skills      review\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\x1b") {
		t.Errorf("raw escape in:\n%s", got)
	}

	// Without the session's part: the agent's model, no cache figure yet.
	out.Reset()
	c = &Chat{Agent: newFakeAgent(), Out: &out, Err: &out}
	c.command(t.Context(), "/status")
	for _, want := range []string{"  model       m1\n", "  cache hits  no input yet\n", "  skills      none active\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
