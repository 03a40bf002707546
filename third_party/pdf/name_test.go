package pdf

import "testing"

// TestNameToRune: the table built at first use is the original's (its
// size and entries at both ends and in between).
func TestNameToRune(t *testing.T) {
	m := nameToRune()
	if len(m) != 4280 {
		t.Errorf("%d names, the original has 4280", len(m))
	}
	for name, r := range map[string]rune{"nbspace": 0x00A0, "exclamdown": 0x00A1, "A": 'A', "wonmonospace": 0xFFE6} {
		if m[name] != r {
			t.Errorf("nameToRune()[%q] = %#x, want %#x", name, m[name], r)
		}
	}
}
