package skills_test

import (
	"slices"
	"testing"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/skills"
)

// TestBuiltinAllowedTools: every bundled skill of issue 30 (all but the
// older skill-creator) has allowed-tools, so its own reading is not asked
// about; every entry parses as a rule (one that does not would silently
// pre-approve nothing), and a bundled skill pre-approves only what reads:
// writes, commits, jobs and new skills are asked about as usual.
func TestBuiltinAllowedTools(t *testing.T) {
	reads := []string{"file_read", "glob_search", "content_search", "memory_recall", "memory_export", "cron_list", "cron_runs",
		"shell(clawseed config check:*)", "shell(clawseed config show:*)"}
	cat := skills.Discover(t.Context(), skills.Options{Builtins: true})
	for _, s := range cat.Skills {
		if len(s.AllowedTools) == 0 && s.Name != "skill-creator" {
			t.Errorf("%s: no allowed-tools", s.Name)
		}
		for _, e := range s.AllowedTools {
			if _, err := permissions.ParseRule(permissions.RuleAllow, e, permissions.RuleBases{Workspace: "/ws"}); err != nil {
				t.Errorf("%s: allowed-tools %q does not parse: %v", s.Name, e, err)
			}
			if !slices.Contains(reads, e) {
				t.Errorf("%s: allowed-tools %q pre-approves more than reading", s.Name, e)
			}
		}
	}
}
