package nesting

import (
	"errors"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func deepInline(n int) string {
	return "x = " + strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n) + "\n"
}

func TestCheckTOML(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		wantLine int // 0: accepted
	}{
		{"empty", "", 0},
		{"config", "[providers]\ndefault = \"x\"\n\n[providers.models.fake]\nextra_headers = { \"X-A\" = \"b\" }\nmodels = [[1, 2], [3]]\n", 0},
		{"manifest", "[skill]\nname = \"a\"\ntags = [\"x\", \"y\"]\n[[tools]]\nname = \"t\"\n", 0},
		{"strings hide brackets", "a = \"[[[[{{{{\"\nb = '''\n[[[[\n'''\nc = \"\"\"x\\\"\"\"\"\n# [[[[[\n", 0},
		{"inline 8000", deepInline(8000), 1},
		{"inline after lines", "a = 1\nb = 2\n" + deepInline(100), 3},
		{"array 8000", "x = " + strings.Repeat("[", 8000) + strings.Repeat("]", 8000), 1},
		{"multi-line array", "x = [\n" + strings.Repeat("[\n", 70) + strings.Repeat("]\n", 70) + "]\n", 64},
		{"dotted key", strings.Repeat("a.", 100) + "b = 1\n", 1},
		{"dotted key no value", strings.Repeat("a.", 100000), 1},
		{"header", "\n[" + strings.Repeat("a.", 80) + "b]\n", 2},
		{"array header", "[[" + strings.Repeat("a.", 80) + "b]]\n", 1},
		{"header plus key", "[" + strings.Repeat("a.", 40) + "b]\n" + strings.Repeat("c.", 30) + "d = 1\n", 2},
		{"quoted dots", "\"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.1.2.3.4.5.6.7.8.9\" = 1\n", 0},
		{"within limit", "x = " + strings.Repeat("[", 60) + strings.Repeat("]", 60) + "\n", 0},
		{"unterminated string", "a = \"[[[\nb = 1\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckTOML([]byte(tt.src))
			if tt.wantLine == 0 {
				if err != nil {
					t.Fatalf("CheckTOML = %v, want nil", err)
				}
				return
			}
			var ne *Error
			if !errors.As(err, &ne) {
				t.Fatalf("CheckTOML = %v, want *Error", err)
			}
			if ne.Line != tt.wantLine || ne.Limit != Limit {
				t.Errorf("Error = %+v, want line %d limit %d", ne, tt.wantLine, Limit)
			}
		})
	}
}

// treeDepth returns the number of nested tables and arrays in a decoded
// TOML value; the root table is 0.
func treeDepth(v any) int {
	d := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			d = max(d, 1+treeDepth(e))
		}
	case []map[string]any:
		for _, e := range v {
			d = max(d, 1+treeDepth(e))
		}
	case []any:
		for _, e := range v {
			d = max(d, 1+treeDepth(e))
		}
	}
	return d
}

// FuzzCheckTOML checks that the pre-scan never panics and is sound: text
// that passes it and decodes never nests deeper than Limit.
func FuzzCheckTOML(f *testing.F) {
	for _, s := range []string{
		"", "a = 1", deepInline(40), deepInline(20), "[a.b]\nc.d = {e = [[1]]}\n",
		"[[a]]\nb = 1\n[[a]]\nb = 2\n", "a = \"\"\"\n[\n\"\"\"\n", "x = [\n[1,\n2],\n]\n",
		"a = {b = {}, c = [], d = {e.f = 1}}\n", "'a.b' = 1\n\"c\".d = 2\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		err := CheckTOML(src)
		if err != nil {
			var ne *Error
			if !errors.As(err, &ne) || ne.Line < 1 || ne.Line > strings.Count(string(src), "\n")+1 {
				t.Fatalf("CheckTOML = %#v", err)
			}
			return
		}
		var tree map[string]any
		if _, derr := toml.Decode(string(src), &tree); derr != nil {
			return
		}
		if d := treeDepth(tree); d > Limit {
			t.Fatalf("CheckTOML passed text that decodes %d deep:\n%s", d, src)
		}
	})
}

func BenchmarkCheckTOMLDeep(b *testing.B) {
	src := []byte(deepInline(16000))
	for b.Loop() {
		_ = CheckTOML(src)
	}
}
