package skills

import (
	"context"
	"slices"
	"testing"
)

func TestSearchRanking(t *testing.T) {
	t.Parallel()
	cat := &Catalog{Skills: []*Skill{
		{Name: "deploy", Description: "Ship the service to production.", Status: StatusListed},
		{Name: "k8s-rollout", Description: "Roll out a release.", Triggers: []string{"deploy to kubernetes"}, Status: StatusListed},
		{Name: "notes", Description: "Write release notes; mentions deploy once.", Status: StatusListed},
		{Name: "pdf-tools", Description: "Read and fill PDF forms.", WhenToUse: "When the user sends a PDF.", Status: StatusListed},
		{Name: "secret-deploy", Description: "deploy deploy deploy", Status: StatusHidden},
		{Name: "user-deploy", Description: "Deploy by hand.", DisableModelInvocation: true, Status: StatusUserOnly},
	}}
	set := NewActiveSet(ActiveConfig{Enabled: true, Excluded: []string{"notes"}}, cat)
	names := func(ss []*Skill) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	tests := []struct {
		query  string
		byUser bool
		want   []string
	}{
		{"deploy", false, []string{"deploy", "k8s-rollout"}},                // exact name first; hidden, excluded, user-only out
		{"DEPLOY to Kubernetes!", false, []string{"k8s-rollout", "deploy"}}, // trigger words outweigh one name word
		{"deploy", true, []string{"deploy", "user-deploy", "k8s-rollout"}},  // a name word outweighs a trigger word
		{"pdf", false, []string{"pdf-tools"}},
		{"fill forms", false, []string{"pdf-tools"}},
		{"quantum", false, nil},
		{"  ", false, nil},
	}
	for _, tt := range tests {
		if got := names(set.Search(tt.query, 10, tt.byUser)); !slices.Equal(got, tt.want) {
			t.Errorf("Search(%q, byUser=%v) = %v, want %v", tt.query, tt.byUser, got, tt.want)
		}
	}
	// An unlisted skill is still activatable by exact name.
	if out := set.Activate(context.Background(), "pdf-tools", "", false); out.IsError {
		t.Fatal(out.Text)
	}
}
