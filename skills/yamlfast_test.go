package skills

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkFastFrontmatter fails when the fast parser accepts fm but disagrees
// with the YAML library. It reports whether the fast path was taken.
func checkFastFrontmatter(t *testing.T, fm string) bool {
	t.Helper()
	fast, ok := fastFrontmatter(fm)
	if !ok {
		return false
	}
	slow, err := decodeYAMLMapping(fm)
	if err != nil {
		t.Fatalf("fast path accepted %q, the YAML parser refuses it: %v", fm, err)
	}
	if d := cmp.Diff(slow, fast, cmp.AllowUnexported(kv{}, yamlScalar{})); d != "" {
		t.Fatalf("fast path differs for %q (-yaml +fast):\n%s", fm, d)
	}
	return true
}

func TestFastFrontmatterAgreesWithYAML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fm   string
		fast bool
	}{
		{"name: x\ndescription: Review code, then report.\n", true},
		{"name: x # comment\n# full line\n\ndescription: 'it''s' # c\nversion: \"1.0 # not a comment\"\n", true},
		{"tags: [a, b c, \"d, e\", 'f']  # c\n", true},
		{"tags: []\nempty:\nnull-comment: # c\n", true},
		{"triggers:\n  - one\n  - 'two'\n\n  - \"three: x\"\nname: z\n", true},
		{"triggers:\n- one\n- two\nname: z\n", true},
		{"a: x\na: z\n", true},
		{"a: [x, z,]\n", true},
		{"a: C# and F#\nb: x:y\nc: He said \"hi\"\n", true},
		{"allowed-tools: Read Bash(git add:*) Grep\n", true},
		{"1: x\n", true},
		{"version: 1.2.0\nv2: 10.0.1rc1\n", true},
		// Left to the YAML parser.
		{"version: 1.0\n", false},
		{"version: 1.2.0-beta\n", false},
		{"version: 1..2\n", true},
		{"a: true\n", false},
		{"a: yes\n", false},
		{"a: ~\n", false},
		{"a: -x\n", false},
		{"a: x\n  continued\n", false},
		{"a: |\n  block\n", false},
		{"a: \"esc\\n\"\n", false},
		{"a: &anchor x\nb: *anchor\n", false},
		{"a:\n  nested: map\n", false},
		{"a:\n  - x\n    - y\n", false},
		{"a: [x, , y]\n", false},
		{"a: [x\n", false},
		{"a: [a:b]\n", false},
		{"a: x: y\n", false},
		{"a:\tx\n", false},
		{"- a\n- b\n", false},
		{"a : x\n", false},
		{"\"quoted key\": x\n", false},
		{"a: 'unterminated\n", false},
		{"a: \"x\"y\n", false},
		{"a: [x]y\n", false},
	}
	for _, tt := range tests {
		if got := checkFastFrontmatter(t, tt.fm); got != tt.fast {
			t.Errorf("fast path taken for %q: %v, want %v", tt.fm, got, tt.fast)
		}
	}
}

// TestFastFrontmatterIsShallow pins why the fast path needs no nesting check
// of its own (issue 8, item 2): it only ever reads a mapping of scalars and
// lists of scalars, and leaves anything nested to the YAML path, which
// checks nesting before parsing.
func TestFastFrontmatterIsShallow(t *testing.T) {
	t.Parallel()
	for _, fm := range []string{
		"a: [[x]]\n",
		"a: [x, [y]]\n",
		"a: {b: c}\n",
		"a:\n  b: c\n",
		"a:\n  - - x\n",
		"a:\n  - b: c\n",
		"a:\n  - [x]\n",
		"a: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n",
	} {
		if m, ok := fastFrontmatter(fm); ok {
			t.Errorf("fast path read nested %q as %v", fm, m)
		}
	}
	m, ok := fastFrontmatter("a: x\nb: [c, d]\ne:\n  - f\n")
	if !ok {
		t.Fatal("fast path declined a mapping of lists")
	}
	for _, e := range m {
		if l, isList := e.val.([]any); isList {
			for _, v := range l {
				if _, scalar := v.(yamlScalar); !scalar {
					t.Errorf("%s holds %T", e.key, v)
				}
			}
		}
	}
}
