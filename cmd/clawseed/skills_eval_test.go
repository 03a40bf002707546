package main

import "testing"

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

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
