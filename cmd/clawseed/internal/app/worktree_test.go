package app

import (
	"regexp"
	"testing"
)

// TestWorktreeName: a worktree's folder and branch name is the label's
// letters and digits, hyphenated, at most 32 of them, then a random
// suffix; nothing of the label can make it a path, an option or a
// revision range.
func TestWorktreeName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ label, want string }{
		{"unit one", "unit-one"},
		{"Rename Foo → Bar (API)", "rename-foo-bar-api"},
		{"../../etc/passwd", "etc-passwd"},
		{"--force", "force"},
		{"a..b", "a-b"},
		{"", "agent"},
		{"→ ← ✓", "agent"},
		{"abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz012345"},
	} {
		got, err := worktreeName(tt.label)
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^` + regexp.QuoteMeta(tt.want) + `-[0-9a-f]{6}$`).MatchString(got) {
			t.Errorf("worktreeName(%q) = %q, want %s-XXXXXX", tt.label, got, tt.want)
		}
	}
}
