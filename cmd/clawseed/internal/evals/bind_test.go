package evals

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/skills"
)

// TestBindSkills: the skills under test get the catalog's names (a Claude
// Code plugin's skill is plugin:skill there), found by folder; one the
// catalog lacks or hides is an error.
func TestBindSkills(t *testing.T) {
	dir, err := filepath.Abs("testdata/commit-plugin/skills/commit-message")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cat  []*skills.Skill
		want string // the bound name, or the error
		err  bool
	}{
		{"plugin skill", []*skills.Skill{{Name: "other", Dir: "/elsewhere"}, {Name: "commit-tools:commit-message", Dir: dir, Status: skills.StatusListed}}, "commit-tools:commit-message", false},
		{"not in the catalog", []*skills.Skill{{Name: "commit-message", Dir: "/a/copy/elsewhere"}}, "is not in this workspace's catalog", true},
		{"hidden", []*skills.Skill{{Name: "commit-message", Dir: dir, Status: skills.StatusHidden, Reason: "excluded by [skills].excluded"}}, "is hidden (excluded by [skills].excluded)", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cases, err := LoadSuite("testdata/commit-plugin")
			if err != nil {
				t.Fatal(err)
			}
			err = BindSkills(cases, &skills.Catalog{Skills: tt.cat})
			if tt.err {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				if strings.Join(c.Skills, ",") != tt.want {
					t.Errorf("%s: skills %q, want %q", c.Name, c.Skills, tt.want)
				}
			}
		})
	}
}
