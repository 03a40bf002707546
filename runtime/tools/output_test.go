package tools

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestHeadTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limit  int
		writes []string
		budget int
		want   string
	}{
		{"fits", 30, []string{"hello ", "world"}, 30, "hello world"},
		{"exact", 11, []string{"hello world"}, 11, "hello world"},
		{"cut", 9, []string{"abcdefghijklmnopqrstuvwxyz"}, 9, "abcdef\n\n[... 17 characters truncated ...]\n\nxyz"},
		{"cut across many writes", 9, strings.Split("abcdefghijklmnopqrstuvwxyz", ""), 9, "abcdef\n\n[... 17 characters truncated ...]\n\nxyz"},
		{"smaller budget, nothing dropped yet", 30, []string{"abcdefghijklmnopqrstuvwxyz"}, 6, "abcd\n\n[... 20 characters truncated ...]\n\nyz"},
		{"smaller budget after dropping", 9, []string{"abcdefghijklmnopqrstuvwxyz"}, 3, "ab\n\n[... 23 characters truncated ...]\n\nz"},
		{"runes not split", 7, []string{"ééééééééééé"}, 7, "éé\n\n[... 8 characters truncated ...]\n\né"},
		{"invalid utf-8 replaced", 30, []string{"a\xffb"}, 30, "a\uFFFDb"},
	}
	for _, tt := range tests {
		h := newHeadTail(tt.limit)
		for _, w := range tt.writes {
			if n, err := h.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		if got := h.render(tt.budget); got != tt.want {
			t.Errorf("%s: render(%d) = %q, want %q", tt.name, tt.budget, got, tt.want)
		}
	}
}

func TestCutLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ü", maxLineChars+5)
	want := strings.Repeat("ü", maxLineChars) + " [... line truncated]"
	if diff := cmp.Diff(want, cutLine(long)); diff != "" {
		t.Error(diff)
	}
	if got := cutLine("short"); got != "short" {
		t.Errorf("got %q", got)
	}
}

func TestFormatShellBudget(t *testing.T) {
	t.Parallel()
	out, errs := newHeadTail(60), newHeadTail(60)
	out.Write([]byte(strings.Repeat("o", 100)))
	errs.Write([]byte(strings.Repeat("e", 100)))
	got := formatShell(out, errs, "[exit code: 0]", 60)
	// A tiny budget: the streams keep half of it, stderr a third of that.
	want := strings.Repeat("o", 13) + "\n\n[... 80 characters truncated ...]\n\n" + strings.Repeat("o", 7) +
		"\n[stderr]\n" + strings.Repeat("e", 6) + "\n\n[... 90 characters truncated ...]\n\n" + strings.Repeat("e", 4) + "\n[exit code: 0]"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

// TestFormatShellFitsMaxOutput protects issue 8 item 7: the shell's result,
// notes and footer included, fits max_tool_output_chars, so the agent's cap
// never cuts it again and its notes keep their true counts.
func TestFormatShellFitsMaxOutput(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{300, 1000, 30000} {
		for _, sizes := range [][2]int{{10 * limit, 0}, {0, 10 * limit}, {10 * limit, 10 * limit}, {limit, limit / 2}} {
			out, errs := newHeadTail(limit), newHeadTail(limit)
			out.Write([]byte(strings.Repeat("ö", sizes[0])))
			errs.Write([]byte(strings.Repeat("e", sizes[1])))
			got := formatShell(out, errs, "[note: background processes kept the output open; later output was not collected]\n[exit code: 0]", limit)
			if n := utf8.RuneCountInString(got); n > limit {
				t.Errorf("limit %d, streams %v: %d characters", limit, sizes, n)
			}
		}
	}
}
