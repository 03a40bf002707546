package skills

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		paths      []string
		body       string
		err        bool
	}{
		{"no frontmatter", "# Rule\n\nDo it.", nil, "# Rule\n\nDo it.", false},
		{"list", "---\npaths:\n  - \"src/**/*.ts\"\n  - lib/\n---\nBody", []string{"src/**/*.ts", "lib/"}, "Body", false},
		{"comma string", "\ufeff---\r\npaths: \"*.go, *.mod\"\r\n---\r\n\r\nBody\r\n", []string{"*.go", "*.mod"}, "Body", false},
		{"unquoted alias-like glob", "---\npaths: **/*.go\n---\nBody", nil, "Body", true}, // YAML: quote it
		{"other keys", "---\ndescription: x\n---\nBody", nil, "Body", false},
		{"paths not a list", "---\npaths:\n  a: b\n---\nBody", nil, "Body", true},
		{"invalid yaml", "---\npaths: [a\n  b: ]\n---\nBody", nil, "Body", true},
		{"unclosed", "---\npaths: x\nBody", nil, "---\npaths: x\nBody", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			paths, body, err := ParseRule(c.text)
			if diff := cmp.Diff(c.paths, paths); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			if body != c.body {
				t.Errorf("body = %q, want %q", body, c.body)
			}
			if (err != nil) != c.err {
				t.Errorf("err = %v, want error %v", err, c.err)
			}
		})
	}
}

func TestMatchingGlob(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"src/main.go": "package main", "README.md": "x"})
	w := ScanWorkspace(context.Background(), root)
	for _, c := range []struct {
		globs []string
		want  string
		ok    bool
	}{
		{[]string{"*.py", "*.go", "*.md"}, "*.go", true},
		{[]string{"/src/"}, "/src/", true},
		{[]string{"*.py", "[bad"}, "", false},
		{nil, "", false},
	} {
		got, ok := w.MatchingGlob(c.globs)
		if got != c.want || ok != c.ok {
			t.Errorf("MatchingGlob(%q) = %q, %v; want %q, %v", c.globs, got, ok, c.want, c.ok)
		}
	}
}
