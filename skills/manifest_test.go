package skills

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// buildForTest builds a skill from an optional manifest and SKILL.md in a
// directory named dir-name; nil text means the file is absent.
func buildForTest(manifest, skillMD *string) (*Skill, []string) {
	src := skillSource{dir: "/r/dir-name", dirName: "dir-name", diagPath: "/r/dir-name"}
	if manifest != nil {
		src.manifestPath, src.manifestData = "/r/dir-name/manifest.toml", []byte(*manifest)
	}
	if skillMD != nil {
		src.skillPath, src.skillData = "/r/dir-name/SKILL.md", []byte(*skillMD)
	}
	s, diags := buildSkill(src)
	var msgs []string
	for _, d := range diags {
		msgs = append(msgs, string(d.Severity)+": "+d.Message)
	}
	return s, msgs
}

func ptr(s string) *string { return &s }

func TestManifestClawSeedConformance(t *testing.T) {
	t.Parallel()
	// ClawSeed §8.2 case 1.
	m := `[skill]
name = "auto-coder"
version = "0.3.0"
description = "Autonomous code generation agent."
permissions = ["file_read", "file_write", "shell_exec"]
triggers = ["write code", "implement feature"]
tags = ["coding"]
`
	s, diags := buildForTest(ptr(m), ptr("# Auto Coder\n\nFollow these steps."))
	if s == nil || len(diags) != 0 {
		t.Fatalf("skill %v, diagnostics %v", s, diags)
	}
	want := fieldsOf(&Skill{
		Name: "auto-coder", Version: "0.3.0", Description: "Autonomous code generation agent.",
		Permissions: []string{"file_read", "file_write", "shell_exec"},
		Triggers:    []string{"write code", "implement feature"}, Tags: []string{"coding"},
	})
	if d := cmp.Diff(want, fieldsOf(s)); d != "" {
		t.Error(d)
	}
	// ClawSeed §8.2 case 9: the body comes from SKILL.md.
	if s.Body != "# Auto Coder\n\nFollow these steps." {
		t.Errorf("body = %q", s.Body)
	}
	if s.ManifestPath != "/r/dir-name/manifest.toml" || s.SkillPath != "/r/dir-name/SKILL.md" {
		t.Errorf("paths = %q, %q", s.ManifestPath, s.SkillPath)
	}
}

func TestManifestRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		manifest string
		skillMD  *string
		check    func(t *testing.T, s *Skill)
		diags    []string
	}{
		{
			// SPEC §4.3 differs from ClawSeed here: ClawSeed's serde made a
			// manifest without `name` a parse error; clawseed uses the
			// directory name.
			name:     "no name takes the directory name",
			manifest: "[skill]\ndescription = \"d\"\n",
			skillMD:  ptr("body"),
			check: func(t *testing.T, s *Skill) {
				if s.Name != "dir-name" || s.Description != "d" {
					t.Errorf("got %q %q", s.Name, s.Description)
				}
			},
		},
		{
			name:     "no [skill] table at all",
			manifest: "# nothing\n",
			skillMD:  ptr("body"),
			check: func(t *testing.T, s *Skill) {
				if s.Name != "dir-name" {
					t.Errorf("name = %q", s.Name)
				}
			},
		},
		{
			name:     "tools section is deprecated",
			manifest: "[skill]\nname = \"x\"\n\n[[tools]]\nname = \"t\"\ncommand = \"echo\"\n",
			skillMD:  ptr("body"),
			check:    func(t *testing.T, s *Skill) {},
			diags:    []string{"warning: manifest.toml at /r/dir-name/manifest.toml contains [[tools]] section which is deprecated and ignored. Skills should declare permissions instead of defining tools."},
		},
		{
			name:     "unknown keys warn",
			manifest: "[skill]\nname = \"x\"\ncolour = \"red\"\n\n[extra]\na = 1\n",
			skillMD:  ptr("body"),
			check:    func(t *testing.T, s *Skill) {},
			diags: []string{
				`warning: manifest.toml:3: unknown key "colour" in [skill]; ignored`,
				`warning: manifest.toml:5: unknown key "extra"; ignored`,
			},
		},
		{
			name: "extension fields in both spellings",
			manifest: `[skill]
name = "ext"
when_to_use = "when asked"
argument-hint = "[issue]"
disable_model_invocation = true
user-invocable = false
allowed_tools = ["Read", "Grep"]
execution_context = "fork"
arguments = "issue branch"
always = "yes"
os = ["linux"]

[skill.shell]
command = "make"
args = ["test"]
timeout = 30

[skill.requires]
bins = ["go"]
anyBins = ["rg", "grep"]
env = ["HOME"]

[skill.metadata.openclaw]
requires = { env = ["TOKEN"] }
`,
			check: func(t *testing.T, s *Skill) {
				want := fieldsOf(&Skill{
					Name: "ext", WhenToUse: "when asked", ArgumentHint: "[issue]", DisableModelInvocation: true,
					AllowedTools: []string{"Read", "Grep"}, Context: "fork", Arguments: []string{"issue", "branch"},
					Always: true, OS: []string{"linux"},
					Shell:    &ShellSpec{Command: "make", Args: []string{"test"}, TimeoutSecs: 30},
					Requires: Requires{Bins: []string{"go"}, AnyBins: []string{"rg", "grep"}, Env: []string{"HOME", "TOKEN"}},
					Metadata: map[string]any{"openclaw": map[string]any{"requires": map[string]any{"env": []any{"TOKEN"}}}},
				})
				if d := cmp.Diff(want, fieldsOf(s)); d != "" {
					t.Error(d)
				}
				if s.UserInvocable {
					t.Error("UserInvocable = true")
				}
			},
		},
		{
			name:     "dotted keys",
			manifest: "skill.name = \"dotted\"\nskill.triggers = [\"a, b\"]\n",
			skillMD:  ptr("body"),
			check: func(t *testing.T, s *Skill) {
				if s.Name != "dotted" || !cmp.Equal(s.Triggers, []string{"a, b"}) {
					t.Errorf("got %q %q", s.Name, s.Triggers)
				}
			},
		},
		{
			name:     "manifest wins field by field, body from SKILL.md",
			manifest: "[skill]\nname = \"from-manifest\"\ndescription = \"manifest description\"\n",
			skillMD:  ptr("---\nname: from-frontmatter\ndescription: fm description\nversion: 2.0.0\ntriggers: [fm trigger]\n---\nthe body"),
			check: func(t *testing.T, s *Skill) {
				want := fieldsOf(&Skill{Name: "from-manifest", Description: "manifest description", Version: "2.0.0", Triggers: []string{"fm trigger"}})
				if d := cmp.Diff(want, fieldsOf(s)); d != "" {
					t.Error(d)
				}
				if s.Body != "the body" {
					t.Errorf("body = %q", s.Body)
				}
			},
		},
		{
			// ClawSeed treated a manifest without version as "" and let it
			// override the frontmatter version; an absent key sets nothing.
			name:     "absent manifest keys do not override",
			manifest: "[skill]\nname = \"x\"\n",
			skillMD:  ptr("---\nversion: 1.2.3\nuser-invocable: false\n---\nbody"),
			check: func(t *testing.T, s *Skill) {
				if s.Version != "1.2.3" || s.UserInvocable {
					t.Errorf("version %q user-invocable %v", s.Version, s.UserInvocable)
				}
			},
		},
		{
			name:     "manifest requires replaces frontmatter requires, metadata is unioned",
			manifest: "[skill]\nrequires = { bins = [\"a\"] }\n",
			skillMD:  ptr("---\nrequires: {bins: [b]}\nmetadata: {openclaw: {requires: {bins: [c]}}}\n---\nbody"),
			check: func(t *testing.T, s *Skill) {
				if d := cmp.Diff([]string{"a", "c"}, s.Requires.Bins); d != "" {
					t.Error(d)
				}
			},
		},
		{
			name:     "requires keeps the keys it understands",
			manifest: "[skill]\nname = \"x\"\n\n[skill.requires]\nbins = [\"gh\"]\noptional = [\"jq\"]\nenv = 3\n\n[skill.metadata.openclaw]\nrequires = { anyBins = [\"rg\"], optionalEnv = [\"X\"] }\n",
			skillMD:  ptr("body"),
			check: func(t *testing.T, s *Skill) {
				if d := cmp.Diff(Requires{Bins: []string{"gh"}, AnyBins: []string{"rg"}}, s.Requires); d != "" {
					t.Error(d)
				}
			},
			diags: []string{
				`warning: manifest.toml:6: unknown key "optional" in "requires"; ignored`,
				`warning: manifest.toml:7: expected list of strings for "requires.env", got number; ignored`,
				`warning: manifest.toml:10: unknown key "optionalEnv" in "metadata.openclaw.requires"; ignored`,
			},
		},
		{
			name:     "shell in manifest only is a valid skill",
			manifest: "[skill]\nname = \"lint\"\nshell = \"make lint\"\n",
			check: func(t *testing.T, s *Skill) {
				if s.Shell == nil || s.Shell.Command != "make lint" || s.SkillPath != "" {
					t.Errorf("shell %+v, SkillPath %q", s.Shell, s.SkillPath)
				}
			},
		},
		{
			name:     "invalid manifest name falls back to directory name",
			manifest: "[skill]\nname = \"no spaces allowed\"\n",
			skillMD:  ptr("body"),
			check: func(t *testing.T, s *Skill) {
				if s.Name != "dir-name" {
					t.Errorf("name = %q", s.Name)
				}
			},
			diags: []string{`warning: invalid name "no spaces allowed" (want letters, digits, '.', '_', ':' or '-', at most 64 characters); using directory name "dir-name"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, diags := buildForTest(ptr(tt.manifest), tt.skillMD)
			if s == nil {
				t.Fatalf("skill invalid: %v", diags)
			}
			if d := cmp.Diff(tt.diags, diags); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
			tt.check(t, s)
		})
	}
}

func TestManifestInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, manifest string
		diags          []string
	}{
		{"wrong type for name", "[skill]\n\nname = 3\n", []string{`error: manifest.toml:3: expected string for "name", got number`}},
		{"wrong type for triggers", "[skill]\nname = \"x\"\ntriggers = [1, 2]\n", []string{`error: manifest.toml:3: expected list of strings for "triggers", got list`}},
		{"wrong type for boolean", "[skill]\nalways = 2\n", []string{`error: manifest.toml:2: expected boolean for "always", got number`}},
		{"nested wrong type", "[skill]\nname = \"x\"\n\n[skill.shell]\ncommand = 3\n", []string{`error: manifest.toml:5: expected string for "shell.command", got number`}},
		{"skill is not a table", "skill = \"x\"\n", []string{`error: manifest.toml:1: expected table for "skill", got string`}},
		{"syntax error", "[skill]\nname = \"x\ndescription = \"y\"\n", []string{"error: manifest.toml:2: strings cannot contain newlines"}},
		// The parser's own line counts the newline it stopped at: the error
		// is on line 2, not 3.
		{"unterminated table header", "\n[skill\n", []string{`error: manifest.toml:2: expected '.' or ']' to end table name, but got '\n' instead`}},
		{"duplicate key", "[skill]\nname = \"a\"\nname = \"b\"\n", []string{"error: manifest.toml:3: Key 'skill.name' has already been defined."}},
		{"binary", "[skill]\x00", []string{"error: manifest.toml is binary (contains NUL bytes)"}},
		{"not UTF-8", "[skill]\nname = \"\xff\"", []string{"error: manifest.toml is not valid UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, diags := buildForTest(ptr(tt.manifest), ptr("---\nname: from-md\n---\nbody"))
			if s != nil {
				t.Fatalf("got skill %q, want invalid (a broken manifest must not fall back to SKILL.md)", s.Name)
			}
			if d := cmp.Diff(tt.diags, diags); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
		})
	}
}

func TestTOMLKeyLine(t *testing.T) {
	t.Parallel()
	src := "# c\n[skill]\nname = 1\n\"quoted\" = 2\n[skill.requires]\nbins = 3\n[other]\nname = 4\n"
	for key, want := range map[string]int{
		"skill.name": 3, "skill.quoted": 4, "skill.requires.bins": 6, "skill.requires": 5, "skill": 2, "skill.missing": 2, "nothing": 0,
	} {
		if got := tomlKeyLine(src, strings.Split(key, ".")); got != want {
			t.Errorf("tomlKeyLine(%q) = %d, want %d", key, got, want)
		}
	}
}

func TestDiagnosticsPerFileAreCapped(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("[skill]\nname = \"many\"\n")
	for i := range 30 {
		b.WriteString("unknown" + strings.Repeat("x", i) + " = 1\n")
	}
	s, diags := buildForTest(ptr(b.String()), ptr("body"))
	if s == nil {
		t.Fatalf("skill invalid: %v", diags)
	}
	if len(diags) != maxFileDiagnostics || diags[len(diags)-1] != "warning: too many problems; the rest are not shown" {
		t.Errorf("got %d diagnostics, last %q", len(diags), diags[len(diags)-1])
	}
	if diags[1] != `warning: manifest.toml:4: unknown key "unknownx" in [skill]; ignored` {
		t.Errorf("second diagnostic = %q", diags[1])
	}
}

func TestErrorsAreNotHiddenByWarnings(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("[skill]\n")
	for i := range 30 {
		b.WriteString("unknown" + strings.Repeat("x", i) + " = 1\n")
	}
	b.WriteString("name = 1\n")
	s, diags := buildForTest(ptr(b.String()), ptr("body"))
	if s != nil {
		t.Fatal("want invalid skill")
	}
	if last := diags[len(diags)-1]; last != `error: manifest.toml:32: expected string for "name", got number` {
		t.Errorf("last diagnostic = %q", last)
	}
}

// TestDeepNestingIsRefused covers item 2 of issue 8: text nested deeper than
// nesting.Limit becomes a diagnostic naming the line, before a parser
// decodes it (8,000 levels used to take the TOML decoder 30 s and 2.9 GB).
func TestDeepNestingIsRefused(t *testing.T) {
	t.Parallel()
	const deep = 8000
	const msg = "nesting deeper than 64 levels (tables, arrays or mappings inside each other)"
	var block strings.Builder
	for i := range 70 {
		block.WriteString(strings.Repeat("  ", i) + "a:\n")
	}
	tests := []struct {
		name     string
		manifest *string
		skillMD  string
		valid    bool
		diags    []string
	}{
		{
			name:     "inline tables in manifest.toml",
			manifest: ptr("[skill]\nname = \"x\"\nx = " + strings.Repeat("{a=", deep) + "1" + strings.Repeat("}", deep) + "\n"),
			diags:    []string{"error: manifest.toml:3: " + msg},
		},
		{
			name:     "arrays in manifest.toml",
			manifest: ptr("[skill]\nx = " + strings.Repeat("[", deep) + strings.Repeat("]", deep) + "\n"),
			diags:    []string{"error: manifest.toml:2: " + msg},
		},
		{
			name:     "dotted keys in manifest.toml",
			manifest: ptr("\n" + strings.Repeat("a.", deep) + "b = 1\n"),
			diags:    []string{"error: manifest.toml:2: " + msg},
		},
		{
			name:    "flow collections in SKILL.md",
			skillMD: "---\nname: x\nx: " + strings.Repeat("{a: ", deep) + "1" + strings.Repeat("}", deep) + "\n---\nbody",
			valid:   true,
			diags:   []string{"warning: SKILL.md:3: invalid YAML frontmatter ignored: " + msg},
		},
		{
			name:    "64 levels are fine",
			skillMD: "---\nname: x\nx: " + strings.Repeat("[", 63) + "1" + strings.Repeat("]", 63) + "\nm: " + strings.Repeat("{a: ", 63) + "1" + strings.Repeat("}", 63) + "\n---\nbody",
			valid:   true,
			diags:   []string{`warning: SKILL.md:3: unknown key "x"; ignored`, `warning: SKILL.md:4: unknown key "m"; ignored`},
		},
		{
			name:    "block mappings in SKILL.md",
			skillMD: "---\nname: x\n" + block.String() + "---\nbody",
			valid:   true,
			diags:   []string{"warning: SKILL.md:67: invalid YAML frontmatter ignored: " + msg},
		},
		{
			name:    "metadata given as a JSON string",
			skillMD: "---\nname: x\nmetadata: '" + strings.Repeat("{\"a\":", deep) + "1" + strings.Repeat("}", deep) + "'\n---\nbody",
			valid:   true,
			diags:   []string{`warning: SKILL.md:3: invalid mapping for "metadata": ` + msg + "; ignored"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			md := tt.skillMD
			if md == "" {
				md = "---\nname: from-md\n---\nbody"
			}
			s, diags := buildForTest(tt.manifest, &md)
			if (s != nil) != tt.valid {
				t.Errorf("skill valid = %v, want %v", s != nil, tt.valid)
			}
			if d := cmp.Diff(tt.diags, diags); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
		})
	}
}
