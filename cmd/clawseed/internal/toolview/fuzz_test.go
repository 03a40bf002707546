package toolview

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// hasControl reports whether s holds a character termtext escapes in a
// line (tab and newline included: every line here is one terminal line).
func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || 0x7f <= r && r <= 0x9f || 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069 {
			return true
		}
	}
	return !utf8.ValidString(s)
}

// FuzzView: whatever the model sends, a header and a result's lines are
// valid UTF-8 without control characters and fit the width; undoing HTML
// escapes keeps JSON the same value.
func FuzzView(f *testing.F) {
	for _, c := range headerCases {
		f.Add(c.tool, c.args, uint8(40))
	}
	f.Add("shell", `"\u0026\\u0026"`, uint8(1))
	f.Add("mcp__a__b", `{"x":"\t\u001b"}`, uint8(0))
	f.Fuzz(func(t *testing.T, tool, args string, width uint8) {
		w := int(width)
		h := Header(tool, json.RawMessage(args), w)
		if hasControl(h) || w > 0 && cells(h) > w {
			t.Fatalf("Header(%q, %q, %d) = %q", tool, args, w, h)
		}
		shown, more := Result(args, 5, w)
		if len(shown) > 5 || more < 0 {
			t.Fatalf("Result(%q): %d lines, %d more", args, len(shown), more)
		}
		for _, l := range shown {
			if hasControl(l) || w > 0 && cells(l) > w {
				t.Fatalf("Result(%q, 5, %d) line %q", args, w, l)
			}
		}
		if json.Valid([]byte(args)) {
			var before, after any
			json.Unmarshal([]byte(args), &before)
			if err := json.Unmarshal([]byte(unescapeHTML(args)), &after); err != nil || !reflect.DeepEqual(before, after) {
				t.Fatalf("unescapeHTML(%q) = %q: not the same JSON value (%v)", args, unescapeHTML(args), err)
			}
		}
		if path, hunks, ok := Diff(tool, json.RawMessage(args), nil); ok {
			for _, l := range RenderDiff(path, hunks, w, 10, false) {
				if hasControl(l) || w > 0 && cells(l) > w {
					t.Fatalf("RenderDiff line %q", l)
				}
			}
		}
	})
}
