package evals

import (
	"strings"
	"testing"
)

func TestCleanDescription(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"Deploys the app.", "Deploys the app."},
		{"  \"Deploys the app.\"\n", "Deploys the app."},
		{"```\nDeploys: the app.\n```", "Deploys: the app."},
		{"```text\nDeploys.\n```", "Deploys."},
		{"description: Deploys.", "Deploys."},
		{"'Deploys.'", "Deploys."},
		{"", ""},
	} {
		if got := cleanDescription(tt.in); got != tt.want {
			t.Errorf("cleanDescription(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCheckDescription: what the model suggests replaces the description
// only when it is one, a new one, within a description's length.
func TestCheckDescription(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ desc, old, note string }{
		{"Deploys the app to staging.", "Deploys.", ""},
		{"", "Deploys.", "held no description"},
		{"Deploys.", "  Deploys.\n", "the current description"},
		{strings.Repeat("é", maxDescription), "Deploys.", ""},
		{strings.Repeat("é", maxDescription+1), "Deploys.", "has 1025 characters, more than the 1024"},
	} {
		got := checkDescription(tt.desc, tt.old)
		if (tt.note == "") != (got == "") || !strings.Contains(got, tt.note) {
			t.Errorf("checkDescription(%.20q): %q, want %q", tt.desc, got, tt.note)
		}
	}
}
