package skills

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeedsFrontmatter are also committed in testdata/fuzz/FuzzFrontmatter.
var fuzzSeedsFrontmatter = []string{
	"---\nname: auto-coder\ndescription: \"Autonomous code generation agent.\"\nversion: 0.1.0\ntags: [coding, official]\n---\n\n# Auto Coder\n",
	"---\nname: x\ndescription: Use when: the user asks\n---\nbody",
	"\uFEFF---\r\nname: crlf\r\n---\r\nbody\r\n",
	"---\nname: x\nmetadata:\n  openclaw:\n    requires: {bins: [git], anyBins: [a, b], env: [E]}\n    os: [darwin]\n---\nb",
	"---\na: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n---\nb",
	"---\nshell: {command: make, args: [a, b], timeout: 2m}\ntriggers:\n  - one\n  - 'two'\n---\n",
	"---\nname: [unclosed\n---\nbody",
	"no frontmatter at all",
	"---\nname: x\n",
	"---\n- a\n- b\n---\nlist frontmatter",
	"---\ndisable-model-invocation: yes\nuser_invocable: off\nallowed-tools: Read Bash(git add:*)\n---\nb",
}

// FuzzFrontmatter feeds arbitrary bytes to the SKILL.md pipeline. It must
// never panic, every skill it accepts must respect the name and length
// rules, and the fast frontmatter parser must agree with the YAML parser.
func FuzzFrontmatter(f *testing.F) {
	for _, s := range fuzzSeedsFrontmatter {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, diags := buildSkill(skillSource{dir: "/r/fuzz-dir", dirName: "fuzz-dir", skillPath: "/r/fuzz-dir/SKILL.md", skillData: data, diagPath: "/r/fuzz-dir"})
		checkFuzzResult(t, s, diags)
		// CRLF pairs are normalised; only a lone CR in the input (as in
		// "\r\r\n") may leave a CR in the body.
		if s != nil && !strings.Contains(strings.ReplaceAll(string(data), "\r\n", ""), "\r") && strings.Contains(s.Body, "\r") {
			t.Fatalf("body not normalised: %q", s.Body)
		}
		if utf8.Valid(data) {
			if fm, _, ok := splitFrontmatter(normaliseText(string(data))); ok {
				checkFastFrontmatter(t, fm)
			}
		}
	})
}

// fuzzSeedsManifest are also committed in testdata/fuzz/FuzzManifest.
var fuzzSeedsManifest = []string{
	"[skill]\nname = \"auto-coder\"\nversion = \"0.3.0\"\ndescription = \"d\"\npermissions = [\"file_read\"]\ntriggers = [\"write code\"]\ntags = [\"coding\"]\n",
	"[skill]\nname = 3\n",
	"[skill]\nname = \"x\"\n\n[[tools]]\nname = \"t\"\n",
	"skill.name = \"dotted\"\nskill.requires.bins = [\"git\"]\n",
	"[skill]\nshell = { command = \"make\", args = [\"x\"], timeout = 30 }\n[skill.metadata.openclaw]\nalways = true\nos = [\"linux\"]\n",
	"[skill\nname = \"broken\"\n",
	"[skill]\nname = \"a\"\nname = \"b\"\n",
	"skill = \"not a table\"\n",
	"[skill]\ndescription = \"\"\"\nmulti\nline\"\"\"\ntriggers = [\n  \"a\",\n  \"b\",\n]\n",
	"[skill]\nrequires = { binz = [\"x\"] }\nunknown = 1\n[other]\nx = 2020-01-01\n",
}

// FuzzManifest feeds arbitrary bytes to the manifest.toml pipeline (with a
// valid SKILL.md beside it). It must never panic, and a manifest that does
// not parse must make the skill invalid.
func FuzzManifest(f *testing.F) {
	for _, s := range fuzzSeedsManifest {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src := skillSource{
			dir: "/r/fuzz-dir", dirName: "fuzz-dir", diagPath: "/r/fuzz-dir",
			skillPath: "/r/fuzz-dir/SKILL.md", skillData: []byte("---\nname: from-md\n---\nbody"),
			manifestPath: "/r/fuzz-dir/manifest.toml", manifestData: data,
		}
		s, diags := buildSkill(src)
		checkFuzzResult(t, s, diags)
		if s != nil && checkText("manifest.toml", data) == "" {
			if res := parseManifest(string(data), src.manifestPath); len(res.errs) > 0 {
				t.Fatalf("skill accepted although the manifest has errors: %v", res.errs)
			}
		}
	})
}

func checkFuzzResult(t *testing.T, s *Skill, diags []Diagnostic) {
	t.Helper()
	for _, d := range diags {
		if d.Message == "" || d.Severity == "" {
			t.Fatalf("empty diagnostic %+v", d)
		}
		if !utf8.ValidString(d.Message) {
			t.Fatalf("diagnostic is not UTF-8: %q", d.Message)
		}
	}
	if s == nil {
		for _, d := range diags {
			if d.Severity == SeverityError {
				return
			}
		}
		t.Fatalf("invalid skill without an error diagnostic: %v", diags)
	}
	if !ValidName(s.Name) {
		t.Fatalf("accepted invalid name %q", s.Name)
	}
	if utf8.RuneCountInString(s.Description) > maxDescriptionLen {
		t.Fatalf("description of %d characters", utf8.RuneCountInString(s.Description))
	}
	if strings.TrimSpace(s.Body) == "" && s.Shell == nil {
		t.Fatal("accepted a skill without body or shell")
	}
	if !utf8.ValidString(s.Body) {
		t.Fatalf("body is not UTF-8: %q", s.Body)
	}
}
