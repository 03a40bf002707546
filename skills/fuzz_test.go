package skills

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
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
	"---\ndescription: Commit.\nargument-hint: [title] [message]\n---\nCommit $0 with \\$1 and \\$$X.",
	"---\nmetadata: {\"moltbot\":{\"always\":true,\"requires\":{\"bins\":[\"gh\"],\"optionalEnv\":[\"X\"]}}}\n---\nb",
	"---\nx: [[[[[[[[{a: [[[[b]]]]}]]]]]]]]\n---\ndeep",
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

// fuzzSeedsLenient are also committed in testdata/fuzz/FuzzLenientFrontmatter.
var fuzzSeedsLenient = []string{
	"name: x\ndescription: Use when: the user asks\n",
	"argument-hint: [title] [message]\ndescription: d\n",
	"argument-hint: {file} to open  # shown in /help\ntags: [a, b] # c\n",
	"metadata:\n  hint: [a] [b]\n  list:\n    - [x] done\n    - [y, z]\n",
	"d: |\n  key: a: b\n  hint: [a] b\n  - [x] y\nn: x\n",
	"d: >2\n      deep\n  key: a: b\ne: 'it''s\n  k: a: b'\n",
	"tags: [a,\n  b]\nhint: [x] y\n",
	"x: \"a\n  k: [b] c\"\ny: plain\n  - [z] w\n",
	"? [a] b\n: {c} d\n- k: [e] f\n",
	"a: &x [b]\nc: !t [d] e\nf: *x\n",
	"\"quoted key\": [a] b\n'q': Use: x\n",
	"h: [unclosed\nnext: x\n",
}

// FuzzLenientFrontmatter checks the lenient retry's rewrite: it never
// panics, keeps every line where it was, and never changes how a document
// strict YAML accepts is read, so that only what strict YAML refuses is
// repaired.
func FuzzLenientFrontmatter(f *testing.F) {
	for _, s := range fuzzSeedsLenient {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, fm string) {
		fixed, notes := repairFrontmatter(fm)
		if strings.Count(fixed, "\n") != strings.Count(fm, "\n") {
			t.Fatalf("lines moved: %q -> %q", fm, fixed)
		}
		for _, n := range notes {
			if n.line < 1+fmLineOffset || n.line > strings.Count(fm, "\n")+1+fmLineOffset || n.msg == "" {
				t.Fatalf("bad note %+v for %q", n, fm)
			}
		}
		strict, err := decodeYAMLMapping(fm)
		if err != nil {
			return
		}
		got, err := decodeYAMLMapping(fixed)
		if err != nil {
			t.Fatalf("the rewrite of valid %q does not parse: %v\n%q", fm, err, fixed)
		}
		if d := cmp.Diff(strict, got, cmp.AllowUnexported(kv{}, yamlScalar{})); d != "" {
			t.Fatalf("the rewrite changed valid %q into %q (-strict +rewritten):\n%s", fm, fixed, d)
		}
	})
}
