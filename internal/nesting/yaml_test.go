package nesting

import (
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// deepBlockMapping nests `a:` n levels deep, two spaces a level.
func deepBlockMapping(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat("  ", i) + "a:\n")
	}
	return b.String()
}

// deepEntries nests `- a:` entries: each line is an indentless sequence of
// the mapping above and a mapping, two levels.
func deepEntries(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat("  ", i) + "- a:\n")
	}
	return b.String()
}

// indent indents every line of s by two spaces.
func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}

func TestCheckYAMLRefusesDeepNesting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		line int // 0: accepted
	}{
		{"flat", "name: x\ntags: [a, b]\n", 0},
		{"limit flow sequences", "x: " + strings.Repeat("[", Limit-1) + strings.Repeat("]", Limit-1), 0},
		{"flow sequences", "name: x\nx: " + strings.Repeat("[", Limit) + strings.Repeat("]", Limit), 2},
		{"flow mappings", "x: " + strings.Repeat("{a: ", 8000) + "1" + strings.Repeat("}", 8000), 1},
		{"flow over lines", "x: [\n" + strings.Repeat("[\n", Limit) + strings.Repeat("]\n", Limit) + "]", Limit},
		{"limit block mappings", deepBlockMapping(Limit), 0},
		{"block mappings", deepBlockMapping(Limit + 1), Limit + 1},
		{"compact sequences", "x:\n  " + strings.Repeat("- ", Limit) + "y\n", 2},
		{"indentless sequences", "a:\n" + deepEntries(40), 33},
		{"flow sequence pairs", "x: " + strings.Repeat("[a: ", 40) + "b" + strings.Repeat("]", 40), 1},
		{"flow keys", "? " + strings.Repeat("[", Limit) + strings.Repeat("]", Limit) + "\n: x\n", 1},
		{"implicit flow key", strings.Repeat("[", Limit) + strings.Repeat("]", Limit) + ": x\n", 1},
		{"brackets in a block scalar", "d: |\n  " + strings.Repeat("[", 200) + "\n  " + strings.Repeat("- ", 200) + "\nn: x\n", 0},
		{"indentation in a folded scalar", "d: >-\n" + indent(deepBlockMapping(Limit+5)) + "n: x\n", 0},
		{"brackets in quoted scalars", "a: \"" + strings.Repeat("[", 200) + "\"\nb: '" + strings.Repeat("{", 200) + "\n  ''x'' '\n", 0},
		{"brackets in a plain scalar", "a: x " + strings.Repeat("[", 200) + "\n  " + strings.Repeat("{", 200) + "\n", 0},
		{"brackets in comments", "a: 1 # " + strings.Repeat("[", 200) + "\n# " + strings.Repeat("{", 200) + "\n", 0},
		{"block after a plain continuation", "a: x\n  [y\n" + deepBlockMapping(Limit+1), Limit + 3},
		{"documents start afresh", deepBlockMapping(Limit) + "---\n" + deepBlockMapping(Limit), 0},
		{"crlf", strings.ReplaceAll(deepBlockMapping(Limit+1), "\n", "\r\n"), Limit + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckYAML([]byte(tt.src))
			if tt.line == 0 {
				if err != nil {
					t.Fatalf("CheckYAML = %v, want nil", err)
				}
				return
			}
			var ne *Error
			if !errors.As(err, &ne) {
				t.Fatalf("CheckYAML = %v, want *Error", err)
			}
			if ne.Line != tt.line || ne.Limit != Limit {
				t.Errorf("Error{Line: %d, Limit: %d}, want line %d, limit %d", ne.Line, ne.Limit, tt.line, Limit)
			}
		})
	}
}

// TestCheckYAMLCountsLikeTheParser checks that the scan counts exactly the
// depth the YAML library builds for the shapes frontmatter has, so the
// conservative direction costs real documents nothing.
func TestCheckYAMLCountsLikeTheParser(t *testing.T) {
	t.Parallel()
	docs := []string{
		"",
		"just a scalar",
		"name: x\ndescription: y\n",
		"tags: [a, b]\nmetadata: {\"openclaw\": {\"requires\": {\"bins\": [\"gh\"]}}}\n",
		"metadata:\n  openclaw:\n    requires:\n      bins:\n        - gh\n",
		"triggers:\n- a\n- b\nname: x\n",
		"a:\n- b:\n  - c: [d, {e: f}]\n",
		"- - - x\n- y\n",
		"x: [a: b, [c: [d]]]\n",
		"x: [[a]: b]\n",
		"[a, [b]]: c\n",
		"? [a, {b: c}]\n: - d\n",
		"a: &x [1, [2]]\nb: *x\n",
		"d: |\n  [[[\n  - - -\nn: {a: [b]}\n",
		"a: \"x\n  [[\" \nb: [c]\n",
		"%YAML 1.1\n---\na: [b]\n...\n",
		"a:\n" + deepEntries(5),
		"\uFEFFa: [b]\n",
		"a:\n  b:\n    c:\n  d: [e]\n",
	}
	for _, doc := range docs {
		want := yamlTreeDepth(t, []byte(doc))
		if got := yamlEstimate([]byte(doc)); got != want {
			t.Errorf("%q: scan counts %d levels, the parser builds %d", doc, got, want)
		}
	}
}

func TestCheckYAMLDecodesUTF16(t *testing.T) {
	t.Parallel()
	src := "x: " + strings.Repeat("[", Limit+1) + strings.Repeat("]", Limit+1)
	le := []byte{0xFF, 0xFE}
	for _, r := range src {
		le = append(le, byte(r), 0)
	}
	if err := CheckYAML(le); err == nil {
		t.Error("UTF-16 text nested too deeply passed")
	}
}

// yamlEstimate is the smallest limit the scan accepts src under.
func yamlEstimate(src []byte) int {
	for l := 0; ; l++ {
		if scanYAML(src, l) == nil {
			return l
		}
	}
}

// yamlTreeDepth parses src with the YAML library and returns how deeply its
// mappings and sequences nest (-1 when it does not parse).
func yamlTreeDepth(t testing.TB, src []byte) (depth int) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			depth = -1
		}
	}()
	var n yaml.Node
	if err := yaml.Unmarshal(src, &n); err != nil {
		return -1
	}
	return yamlNodeDepth(&n)
}

func yamlNodeDepth(n *yaml.Node) int {
	d := 0
	for _, c := range n.Content {
		d = max(d, yamlNodeDepth(c))
	}
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		d++
	}
	return d
}

// yamlSeeds are also committed in testdata/fuzz/FuzzCheckYAML.
var yamlSeeds = []string{
	"name: x\ndescription: y\ntags: [a, b]\n",
	"metadata: {\"openclaw\": {\"always\": true, \"requires\": {\"bins\": [\"gh\"]}}}\n",
	"a:\n- b:\n  - c: [d, {e: f}]\n  - ? g\n    : h\n",
	"x: [[a]: b, c: [d: e]]\n",
	"d: |-2\n    [[[\n   - -\nn: >\n\n  {{\n",
	"a: \"x\\\n  [[\" \nb: 'it''s [\n  {'\n",
	"a: x\n  [y\n  b\nc:\n  d: e\n",
	"%YAML 1.1\n---\na: &x [1, [2]]\nb: *x\n...\n--- [c]\n",
	"a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n",
	"- - - x\n-\t- y\n- ? [a]\n  : b\n",
	"\uFEFFa:\r\n  - b\r\n",
	"a: !!seq [b]\nc: !t {d: e}\n\"k\": [f]\n",
	"x:\n  [a,\n b]: c\n",
	"argument-hint: [title] [message]\n",
}

func FuzzCheckYAML(f *testing.F) {
	for _, s := range yamlSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		err := CheckYAML(src)
		s := yamlScanner{src: yamlText(src), limit: len(src) + 1, line: 1, allowKey: true}
		s.run()
		if s.steps > 8*len(src)+8 {
			t.Fatalf("%d steps for %d bytes: not linear", s.steps, len(src))
		}
		d := yamlTreeDepth(t, src)
		if d <= 0 {
			return
		}
		if scanYAML(src, d-1) == nil {
			t.Fatalf("the parser nests %d levels deep, the scan accepts a limit of %d", d, d-1)
		}
		if err == nil && d > Limit {
			t.Fatalf("CheckYAML passed %d levels", d)
		}
	})
}
