package instructions

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseImports(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		want       []string
	}{
		{"line start", "@docs/api.md\n@config/settings.md", []string{"docs/api.md", "config/settings.md"}},
		{"inline", "See @docs/guide.md for details", []string{"docs/guide.md"}},
		{"forms", "@./a.md @../b.md @~/c.md @/abs/d.md @_e.md @-f.md @.g.md @9.md", []string{"./a.md", "../b.md", "~/c.md", "/abs/d.md", "_e.md", "-f.md", ".g.md", "9.md"}},
		{"not paths", "@ @/ @@x.md @#tag @%x @^x @&x @*x @(x @)x", nil},
		{"inside words and links", "mail user@example.com, see [a](@x.md) or (@y.md)", nil},
		{"escaped space", `@docs/my\ file.md and @a\b.md`, []string{"docs/my file.md", "a"}},
		{"trailing punctuation", "Read @CONVENTIONS.md. Then @a.md, @b.md; @c.md: @d.md! @e.md? (see @f.md)", []string{"CONVENTIONS.md", "a.md", "b.md", "c.md", "d.md", "e.md", "f.md"}},
		{"each once", "@a.md @b.md @a.md\n@a.md", []string{"a.md", "b.md"}},
		{"tab and unicode space", "x\t@a.md\u00a0@b.md", []string{"a.md", "b.md"}},
		{"fenced backticks", "```\n@no.md\n```\n@yes.md", []string{"yes.md"}},
		{"fenced tildes with info", "~~~ markdown\n@no.md\n~~~\n@yes.md", []string{"yes.md"}},
		{"fence needs as long a close", "````\n@no.md\n```\n@no2.md\n````\n@yes.md", []string{"yes.md"}},
		{"fence of other char does not close", "```\n~~~\n@no.md\n```\n@yes.md", []string{"yes.md"}},
		{"fence indented three", "   ```\n@no.md\n   ```\n@yes.md", []string{"yes.md"}},
		{"four spaces is no fence", "    ```\n@yes.md", []string{"yes.md"}},
		{"unclosed fence", "@yes.md\n```\n@no.md", []string{"yes.md"}},
		{"backtick info string is no fence", "```a`b\n@yes.md", []string{"yes.md"}},
		{"code span", "Use `@decorator` and @real.md", []string{"real.md"}},
		{"double backtick span", "``a ` @no.md`` @yes.md", []string{"yes.md"}},
		{"span across lines", "`one\n@no.md` @yes.md", []string{"yes.md"}},
		{"unmatched backtick", "a ` @yes.md", []string{"yes.md"}},
		{"unmatched run then span", "``` x\n``", nil},
		{"empty", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(c.want, ParseImports(c.text)); diff != "" {
				t.Errorf("ParseImports(%q) (-want +got):\n%s", c.text, diff)
			}
		})
	}
}

func TestParseImportsBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 200 {
		b.WriteString("@f" + strings.Repeat("x", i) + ".md ")
	}
	if n := len(ParseImports(b.String())); n != maxImportsPerFile {
		t.Errorf("got %d imports, want the first %d", n, maxImportsPerFile)
	}
	// Many unmatched backtick runs of different lengths stay linear.
	var s strings.Builder
	for i := range 2000 {
		s.WriteString(strings.Repeat("`", i%50+1) + " x ")
	}
	s.WriteString("@end.md")
	if got := ParseImports(s.String()); !slices.Equal(got, []string{"end.md"}) {
		t.Errorf("got %q", got)
	}
}

// FuzzParseImports checks that the parser never panics, and that what it
// returns are paths it may return: valid, each once, bounded, and written
// in the text (an escaped space as `\ `) outside code.
func FuzzParseImports(f *testing.F) {
	for _, s := range []string{
		"@a.md", "x @b.md y", "```\n@c.md\n```", "`@d.md` @e.md", `@f\ g.md`, "@@h", "a@b.c",
		"~~~~\n@i.md\n~~~\n~~~~", "``\n`` @j.md", "@~/k.md @/l.md @./m.md", "@n.md.", "\u00a0@o.md",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := ParseImports(text)
		if len(got) > maxImportsPerFile {
			t.Fatalf("%d imports", len(got))
		}
		seen := map[string]bool{}
		for _, p := range got {
			if !validImport(p) {
				t.Fatalf("invalid import %q from %q", p, text)
			}
			if seen[p] {
				t.Fatalf("import %q twice", p)
			}
			seen[p] = true
			if !strings.Contains(text, "@"+strings.ReplaceAll(p, " ", `\ `)) {
				t.Fatalf("import %q is not in %q", p, text)
			}
		}
		if blanked := blankCode(text); len(blanked) != len(text) || strings.Count(blanked, "\n") != strings.Count(text, "\n") {
			t.Fatalf("blankCode changed the text's length or lines")
		}
	})
}
