package skills

import "testing"

func TestLevenshtein(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "abc", 0},
		{"kitten", "sitting", 3},
		{"auto-coder", "auto-codr", 1},
		{"auto-coder", "autocoder", 1},
		{"auto-coder", "atuo-coder", 2}, // a transposition is two edits
		{"技能", "技术", 1},                 // runes, not bytes
		{"flaw", "lawn", 2},
	}
	for _, tt := range tests {
		for _, pair := range [][2]string{{tt.a, tt.b}, {tt.b, tt.a}} {
			if got := levenshtein(pair[0], pair[1], 100); got != tt.want {
				t.Errorf("levenshtein(%q, %q) = %d, want %d", pair[0], pair[1], got, tt.want)
			}
		}
	}
	// Past the limit the exact distance is not computed.
	if got := levenshtein("kitten", "sitting", 1); got != 2 {
		t.Errorf("levenshtein with limit 1 = %d, want 2 (limit+1)", got)
	}
	if got := levenshtein("a", "abcdef", 2); got != 3 {
		t.Errorf("levenshtein with length gap = %d, want 3", got)
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	names := []string{"auto-coder", "code-review", "deploy", "deploys", "docs"}
	tests := []struct {
		name, want string
	}{
		{"auto-codr", "auto-coder"},
		{"atuo-coder", "auto-coder"},
		{"deplo", "deploy"},     // distance 1 to deploy, 2 to deploys
		{"deployss", "deploys"}, // closest wins over name order
		{"dccs", "docs"},
		{"dox", "docs"}, // two edits
		{"something-else", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.name, names); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	// Ties go to the first name in order.
	if got := suggest("ab", []string{"aa", "bb", "ac"}); got != "aa" {
		t.Errorf("tie: got %q, want aa", got)
	}
	if got := suggest("x", nil); got != "" {
		t.Errorf("no candidates: got %q", got)
	}
}
