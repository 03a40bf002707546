package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/skills"
)

// TestToolSchemaTokens: the tool schemas' size in the context estimate,
// counted when asked for, is that of the tools array as it is then: after
// New, after the tools change (the Skill tool turns searchable when a
// reload leaves skills out of the index), and none with text tools.
func TestToolSchemaTokens(t *testing.T) {
	t.Parallel()
	listed := func(n int) *skills.Catalog {
		cat := &skills.Catalog{}
		for i := range n {
			cat.Skills = append(cat.Skills, &skills.Skill{Name: fmt.Sprintf("skill-%04d", i), Description: "Does things.", Status: skills.StatusListed})
		}
		return cat
	}
	for _, text := range []bool{false, true} {
		ag, err := New(Options{
			Model: &encodingModel{}, Tools: []Tool{&fakeTool{name: "file_read", class: permissions.ClassRead}},
			Policy: permissions.Policy{Level: permissions.Full}, TextTools: text,
			Skills: skills.NewActiveSet(skills.ActiveConfig{Enabled: true}, listed(1)), SkillsEnabled: true, IndexBudget: 4000,
		})
		if err != nil {
			t.Fatal(err)
		}
		want := func() int {
			if text {
				return 0
			}
			b, _ := json.Marshal(ag.ToolSpecs())
			return EstimateTokens(string(b))
		}
		before := ag.Context().Tools
		if before != want() {
			t.Errorf("text %v: %d tokens for the tools after New, want %d", text, before, want())
		}
		ag.SetCatalog(listed(1000)) // the index is truncated: Skill searches
		ag.syncTools(context.Background())
		if got := ag.Context().Tools; got != want() || !text && got == before {
			t.Errorf("text %v: %d tokens for the tools after a reload (%d before), want %d", text, got, before, want())
		}
	}
}
