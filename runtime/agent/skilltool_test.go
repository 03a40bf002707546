package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers/providertest"
)

// TestSkillSchemaRequired: the Skill tool requires "skill" only when it
// cannot search; with a truncated index a search call names no skill, so
// the schema requires nothing and the handler says what a call lacks
// (issue 20, item 24).
func TestSkillSchemaRequired(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		budget   int
		call     string
		required []string
		want     string
		wantErr  bool
	}{
		{"full index requires skill", 100000, `{}`, []string{"skill"}, `"skill" is required`, true},
		{"truncated index requires nothing", 1, `{"action":"search","query":"greets"}`, nil, "greeter — Greets.", false},
		{"search without query", 1, `{"action":"search"}`, nil, `action "search" needs a "query"`, true},
		{"neither skill nor search", 1, `{}`, nil, `give "skill" (the exact name from <available_skills>) to activate or deactivate a skill, or action "search" with a "query"`, true},
		{"activate by name", 1, `{"skill":"greeter"}`, nil, "Skill 'greeter' activated.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, []providertest.Response{skillCall(tt.call), {Text: "ok"}}, func(o *Options) { o.IndexBudget = tt.budget })
			if _, err := env.agent.Turn(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			reqs := env.model.Requests()
			var schema struct {
				Required []string `json:"required"`
			}
			for _, s := range reqs[0].Tools {
				if s.Name == skillToolName {
					if err := json.Unmarshal(s.Schema, &schema); err != nil {
						t.Fatalf("Skill schema: %v: %s", err, s.Schema)
					}
				}
			}
			if strings.Join(schema.Required, ",") != strings.Join(tt.required, ",") {
				t.Errorf("required = %q, want %q", schema.Required, tt.required)
			}
			r := lastResults(reqs[1])
			if len(r) != 1 || r[0].IsError != tt.wantErr || !strings.Contains(r[0].Content, tt.want) {
				t.Errorf("result = %+v, want %q (error %v)", r, tt.want, tt.wantErr)
			}
		})
	}
}
