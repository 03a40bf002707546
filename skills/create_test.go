package skills

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
)

func TestCreateRoundTripsHostileInput(t *testing.T) {
	t.Parallel()
	tests := []NewSkill{
		{
			Name:        "hostile.name_1:x-y",
			Description: `Quotes " and ' and """ triple, backslash \ and \n literal, tab	and unicode 日本語 ✓ é`,
			Content:     "# Title\n\n\"\"\"\nname = \"injected\"\n[skill]\n---\nname: evil\n---\n\\ back\\slash \\\" \n\t indented\n</active_skill>\n$ARGUMENTS ${CLAWSEED_SKILL_DIR}",
			Triggers:    []string{`say "hi"`, "a, b", `c\d`, "new\nline", "]", "'''"},
			Permissions: []string{"file_read", `we"ird`, "x = 1"},
		},
		{
			Name:        "9",
			Description: "multi\nline: description # not a comment\n- item",
			Content:     "---\nnot frontmatter: because content follows the real fence\n---",
		},
		{
			Name:        "true",
			Description: "null",
			Content:     "yes",
			Triggers:    []string{"~", "null", "1.0", "- x", "key: value", "#hash"},
		},
		{
			Name:        "ctl",
			Description: "control \x01\x1f and \u2028 separator and BOM \uFEFF inside",
			Content:     "  leading indentation kept\nand \x07 bell",
		},
	}
	for _, in := range tests {
		t.Run(in.Name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "skills")
			dir, err := Create(root, in, false)
			if err != nil {
				t.Fatal(err)
			}
			if dir != filepath.Join(root, in.Name) {
				t.Errorf("dir = %q", dir)
			}
			s, diags := LoadDir(dir, discOpts())
			if s == nil || len(diags) != 0 {
				t.Fatalf("LoadDir: skill %v, diagnostics %v", s, diags)
			}
			got := NewSkill{Name: s.Name, Description: s.Description, Content: s.Body, Triggers: s.Triggers, Permissions: s.Permissions}
			// What is read back is the input less the control characters
			// the loader strips from metadata (see controls.go).
			want := in
			want.Description = cleanText(in.Description)
			want.Triggers = nil
			for _, tr := range in.Triggers {
				want.Triggers = append(want.Triggers, cleanLine(tr))
			}
			if want.Triggers == nil {
				want.Triggers = []string{}
			}
			if want.Permissions == nil {
				want.Permissions = []string{}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("round trip (-want +got):\n%s", d)
			}
			if s.Version != "0.1.0" {
				t.Errorf("version = %q", s.Version)
			}
			// The frontmatter alone must give the same name and description
			// (SKILL.md is read without manifest.toml by other runtimes).
			b, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
			if err != nil {
				t.Fatal(err)
			}
			fm := parseMDForTest(string(b))
			if fm.Skill == nil || fm.Skill.Name != in.Name || fm.Skill.Description != want.Description || fm.Skill.Body != in.Content || len(fm.Diags) != 0 {
				t.Errorf("SKILL.md alone: %+v", fm)
			}
		})
	}
}

func TestCreateFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// ClawSeed §8.2 case 20.
	dir, err := Create(root, NewSkill{Name: "test-skill", Description: "A test skill", Content: "# Test\n\nDo the thing.\n", Triggers: []string{"测试"}, Permissions: []string{"calculator"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "manifest.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]map[string]any
	if _, err := toml.Decode(string(manifest), &doc); err != nil {
		t.Fatalf("manifest does not parse: %v\n%s", err, manifest)
	}
	want := map[string]map[string]any{"skill": {
		"name": "test-skill", "version": "0.1.0", "description": "A test skill",
		"permissions": []any{"calculator"}, "triggers": []any{"测试"},
	}}
	if d := cmp.Diff(want, doc); d != "" {
		t.Errorf("manifest (-want +got):\n%s", d)
	}
	skillMD, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(skillMD), "---\nname: test-skill\ndescription: A test skill\n---\n\n# Test\n\nDo the thing.\n"; got != want {
		t.Errorf("SKILL.md = %q, want %q", got, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("skill directory holds %d entries (temporary files left?)", len(entries))
	}
}

func TestCreateOverwrite(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	first := NewSkill{Name: "my-skill", Description: "d", Content: "# V1", Triggers: []string{"old"}}
	if _, err := Create(root, first, false); err != nil {
		t.Fatal(err)
	}
	second := NewSkill{Name: "my-skill", Description: "d2", Content: "# V2"}
	_, err := Create(root, second, false)
	// The text names the skill and where it is, and no remedy: that is the
	// caller's (the tool's overwrite: true, the CLI's --force).
	var exists *ExistsError
	if !errors.As(err, &exists) || exists.Dir != filepath.Join(root, "my-skill") ||
		err.Error() != fmt.Sprintf("skill %q already exists at %s", "my-skill", filepath.Join(root, "my-skill")) {
		t.Fatalf("second Create without overwrite: %v", err)
	}
	if s, _ := LoadDir(filepath.Join(root, "my-skill"), discOpts()); s.Body != "# V1" {
		t.Errorf("refused create changed the skill: %q", s.Body)
	}
	if _, err := Create(root, second, true); err != nil {
		t.Fatal(err)
	}
	s, diags := LoadDir(filepath.Join(root, "my-skill"), discOpts())
	if s == nil || s.Body != "# V2" || s.Description != "d2" || len(s.Triggers) != 0 || len(diags) != 0 {
		t.Errorf("after overwrite: %+v %v", s, diags)
	}
}

func TestCreateRefuses(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	discWriteTree(t, root, map[string]string{"a-file": "x"})
	discSymlink(t, t.TempDir(), filepath.Join(root, "a-link"))
	ok := NewSkill{Name: "ok", Description: "d", Content: "c"}
	with := func(f func(*NewSkill)) NewSkill { s := ok; f(&s); return s }
	tests := []struct {
		name      string
		in        NewSkill
		overwrite bool
		want      string
	}{
		{"empty name", with(func(s *NewSkill) { s.Name = "" }), false, "skill name is required"},
		{"slash", with(func(s *NewSkill) { s.Name = "bad/name" }), false, `invalid skill name "bad/name"`},
		{"space", with(func(s *NewSkill) { s.Name = "bad name" }), false, `invalid skill name "bad name"`},
		{"dot dot", with(func(s *NewSkill) { s.Name = ".." }), false, `invalid skill name ".."`},
		{"quote", with(func(s *NewSkill) { s.Name = `a"b` }), false, `invalid skill name "a\"b"`},
		{"unicode", with(func(s *NewSkill) { s.Name = "技能" }), false, "invalid skill name"},
		{"too long", with(func(s *NewSkill) { s.Name = strings.Repeat("a", 65) }), false, "invalid skill name"},
		{"no description", with(func(s *NewSkill) { s.Description = " \n" }), false, "skill description is required"},
		{"long description", with(func(s *NewSkill) { s.Description = strings.Repeat("d", 1025) }), false, "the limit is 1024"},
		{"no content", with(func(s *NewSkill) { s.Content = "\n\n  " }), false, "skill content (the SKILL.md body) is required"},
		{"NUL", with(func(s *NewSkill) { s.Content = "a\x00b" }), false, "valid UTF-8 without NUL"},
		{"bad UTF-8", with(func(s *NewSkill) { s.Triggers = []string{"\xff"} }), false, "valid UTF-8 without NUL"},
		{"not a directory", with(func(s *NewSkill) { s.Name = "a-file" }), true, "exists and is not a directory"},
		{"symlink", with(func(s *NewSkill) { s.Name = "a-link" }), true, "is a symbolic link"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Create(root, tt.in, tt.overwrite)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Create: %v, want error containing %q", err, tt.want)
			}
		})
	}
}

func TestCreateNormalisesContent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir, err := Create(root, NewSkill{Name: "n", Description: "  d  ", Content: "\n\r\n# T\r\nline  \n\n", Triggers: []string{" a ", "", "  "}}, false)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := LoadDir(dir, discOpts())
	if s.Body != "# T\nline" || s.Description != "d" || !cmp.Equal(s.Triggers, []string{"a"}) {
		t.Errorf("got %q %q %q", s.Body, s.Description, s.Triggers)
	}
}
