package repl

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
)

// sideAgent is a fakeAgent whose session made side requests.
type sideAgent struct {
	*fakeAgent
	byPurpose []providers.PurposeUsage
}

func (s sideAgent) UsageByPurpose() []providers.PurposeUsage { return s.byPurpose }

// TestCostSideRequests: /cost has a line per kind of side request (model
// memory recall), after the totals that include it; none without any.
func TestCostSideRequests(t *testing.T) {
	t.Parallel()
	fa := newFakeAgent()
	fa.byModel = []providers.ModelUsage{{Model: "gpt-5", Usage: providers.Usage{InputTokens: 1_500, OutputTokens: 30}}}
	for _, tt := range []struct {
		name      string
		byPurpose []providers.PurposeUsage
		want      string
	}{
		{"recall", []providers.PurposeUsage{{Purpose: "memory recall", Model: "gpt-5", Usage: providers.Usage{InputTokens: 500, OutputTokens: 10}}},
			"Memory recall (included above): input 500, output 10: "},
		{"none", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			c := &Chat{Agent: sideAgent{fa, tt.byPurpose}, Out: &out, Err: &out}
			c.command(t.Context(), "/cost")
			if tt.want == "" {
				if strings.Contains(out.String(), "(included above)") {
					t.Errorf("a side-request line without side requests:\n%s", out.String())
				}
				return
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out.String())
			}
		})
	}
}
