package tomltext

import (
	"testing"

	"github.com/BurntSushi/toml"
)

// TestQuoteRoundTrips: what Quote writes, a TOML parser reads back as the
// input (invalid UTF-8 replaced).
func TestQuoteRoundTrips(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", `a "quoted" \ path`, "tab\tnl\ncr\r", "bell\a bs\b ff\f del\x7f esc\x1b", "ünï©ødé ✓", "bad\xffutf8"} {
		var v struct{ K string }
		if _, err := toml.Decode("K = "+Quote(s), &v); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		want := s
		if s == "bad\xffutf8" {
			want = "bad\uFFFDutf8"
		}
		if v.K != want {
			t.Errorf("Quote(%q) read back as %q", s, v.K)
		}
	}
}
