package skills

import (
	"strings"
	"testing"
)

func TestSetDescription(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, desc, want, err string
	}{
		{
			name: "one line",
			src:  "---\nname: deploy\ndescription: Deploys.\nversion: 1.0.0\n---\n# Deploy\n",
			desc: "Deploys the app to production. Use when the user says ship it.",
			want: "---\nname: deploy\ndescription: Deploys the app to production. Use when the user says ship it.\nversion: 1.0.0\n---\n# Deploy\n",
		},
		{
			name: "block scalar replaced whole, comments and blank lines kept",
			src:  "---\n# the skill\nname: deploy\ndescription: >\n  Deploys\n  things.\n\nallowed-tools: Read\n---\nbody\n",
			desc: "Ships: to prod",
			want: "---\n# the skill\nname: deploy\ndescription: 'Ships: to prod'\n\nallowed-tools: Read\n---\nbody\n",
		},
		{
			name: "multi-line description",
			src:  "---\nname: x\ndescription: old\n---\n",
			desc: "line one\nline two",
			want: "---\nname: x\ndescription: |-\n    line one\n    line two\n---\n",
		},
		{
			name: "none yet: after name",
			src:  "---\nname: x\nlicense: MIT\n---\nbody",
			desc: "New.",
			want: "---\nname: x\ndescription: New.\nlicense: MIT\n---\nbody",
		},
		{
			name: "crlf and bom kept",
			src:  "\ufeff---\r\nname: x\r\ndescription: old\r\n---\r\nbody\r\n",
			desc: "New.",
			want: "\ufeff---\r\nname: x\r\ndescription: New.\r\n---\r\nbody\r\n",
		},
		{name: "no frontmatter", src: "# just a body\n", desc: "d", err: "SKILL.md has no frontmatter (--- lines) to hold a description"},
		{name: "twice", src: "---\ndescription: a\ndescription: b\n---\n", desc: "d", err: "the frontmatter has description twice"},
		{name: "empty", src: "---\nname: x\n---\n", desc: "  ", err: "empty description"},
		{name: "flow mapping", src: "---\n{name: x, description: y}\n---\n", desc: "d", err: "the frontmatter would not read back cleanly: invalid YAML frontmatter ignored: could not find expected ':'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := SetDescription([]byte(tt.src), tt.desc)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q (got %q)", err, tt.err, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// FuzzSetDescription: whatever the file, the result is an error or a
// file whose description reads back as given, other keys unchanged, and
// whose body is the same.
func FuzzSetDescription(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: b\n---\nbody\n",
		"---\nname: a\ndescription: |\n  x\n   y\n\n# c\nz: 1\n---\n",
		"---\r\nname: a\r\n---\r\n",
		"---\n\"description\": q\n---\n",
		"---\nname: [a\n---\n",
	} {
		f.Add(s, "A new description: with colon")
		f.Add(s, "multi\nline")
	}
	f.Fuzz(func(t *testing.T, src, desc string) {
		out, err := SetDescription([]byte(src), desc)
		if err != nil {
			return
		}
		m, body, _ := parseMarkdown(string(out))
		got, _ := m.get("description")
		if s, _ := asString(got); strings.TrimSpace(s) != strings.TrimSpace(desc) {
			t.Fatalf("description %q, want %q", s, desc)
		}
		_, oldBody, _ := parseMarkdown(src)
		if body != oldBody {
			t.Fatalf("body changed: %q → %q", oldBody, body)
		}
	})
}
