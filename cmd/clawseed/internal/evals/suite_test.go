package evals

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// graderNames lists a case's graders as "name:type".
func graderNames(c Case) []string {
	var out []string
	for _, g := range c.Graders {
		out = append(out, g.Name+":"+g.Kind)
	}
	return out
}

func TestLoadSuitePromptLayout(t *testing.T) {
	// DIR as the plugin folder and as its evals/ folder read the same.
	for _, dir := range []string{"testdata/commit-plugin", "testdata/commit-plugin/evals", "testdata/commit-plugin/evals/"} {
		t.Run(dir, func(t *testing.T) {
			cases, err := LoadSuite(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(cases) != 2 {
				t.Fatalf("got %d cases, want 2 (results/ is not a case)", len(cases))
			}
			first, neg := cases[0], cases[1]
			if first.Name != "first-case" || first.ID != "first-case" || neg.Name != "ignores-unrelated-request" {
				t.Fatalf("names %q %q", first.Name, neg.Name)
			}
			if !strings.HasPrefix(first.Prompt, "Write me a commit message") {
				t.Errorf("prompt %q", first.Prompt)
			}
			if diff := cmp.Diff([]string{"Read", "Glob", "Grep", "Skill"}, first.AllowedTools); diff != "" {
				t.Errorf("allowed_tools: %s", diff)
			}
			if first.MaxTurns != 10 || first.TimeoutSeconds != 300 || first.Runs != 0 {
				t.Errorf("max_turns %d timeout %d runs %d", first.MaxTurns, first.TimeoutSeconds, first.Runs)
			}
			if diff := cmp.Diff([]string{"area-prefix:regex", "criteria:llm", "skill-fired:tool_used"}, graderNames(first)); diff != "" {
				t.Errorf("graders (sorted by file name): %s", diff)
			}
			if first.Graders[0].Weight != 2 || first.Graders[1].Weight != 1 {
				t.Errorf("weights %v %v", first.Graders[0].Weight, first.Graders[1].Weight)
			}
			if !strings.Contains(first.Graders[1].spec.criteria, "PASS if the reply gives a commit message") {
				t.Errorf("llm criteria from the body: %q", first.Graders[1].spec.criteria)
			}
			if diff := cmp.Diff([]string{"commit-message"}, first.Skills); diff != "" {
				t.Errorf("skills under test: %s", diff)
			}
			if first.Skip != "" || len(first.Notes) != 0 {
				t.Errorf("skip %q notes %q", first.Skip, first.Notes)
			}
			if neg.Runs != 2 || neg.MaxTurns != 4 || neg.Graders[1].Arm != "both" {
				t.Errorf("negative case: runs %d max_turns %d arm %q", neg.Runs, neg.MaxTurns, neg.Graders[1].Arm)
			}
		})
	}
}

func TestLoadSuiteCaseYAMLLayout(t *testing.T) {
	cases, err := LoadSuite("testdata/incident-triage")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cases {
		ids = append(ids, c.ID)
	}
	if diff := cmp.Diff([]string{"status-from-notes", "triggers/negative-01", "triggers/positive-01"}, ids); diff != "" {
		t.Fatalf("cases: %s", diff)
	}
	status, neg, pos := cases[0], cases[1], cases[2]
	if pos.Name != "incident-triage-trigger-positive-01" || pos.Runs != 3 || pos.MaxTurns != 4 || pos.TimeoutSeconds != 180 {
		t.Errorf("positive: %q runs %d max_turns %d timeout %d", pos.Name, pos.Runs, pos.MaxTurns, pos.TimeoutSeconds)
	}
	if diff := cmp.Diff([]string{"selected-incident-triage:tool_used", "workflow-outcome:llm", "names-every-alert:regex"}, graderNames(pos)); diff != "" {
		t.Errorf("graders (case.yaml order): %s", diff)
	}
	// The skill folder holding the suite is the skill under test.
	if diff := cmp.Diff([]string{"incident-triage"}, pos.Skills); diff != "" {
		t.Errorf("skills: %s", diff)
	}
	if neg.Skip != "" || pos.Skip != "" {
		t.Errorf("skips %q %q", neg.Skip, pos.Skip)
	}
	// prompt.md's frontmatter wins over case.yaml, its body is the prompt,
	// graders/*.md are the case's; what clawseed cannot run skips the case.
	if status.MaxTurns != 20 || !strings.HasPrefix(status.Prompt, "Read the incident notes") {
		t.Errorf("merged case: max_turns %d prompt %q", status.MaxTurns, status.Prompt)
	}
	for _, want := range []string{"context.scaffold_script", "context.add_dirs", "grader status-written"} {
		if !strings.Contains(status.Skip, want) {
			t.Errorf("skip reason %q lacks %q", status.Skip, want)
		}
	}
	// A case grants only tools that read: Write is named, not granted.
	if len(status.Notes) != 2 || !strings.Contains(status.Notes[0], "allowed_tools Write not granted") || !strings.Contains(status.Notes[1], "claude-sonnet-5") {
		t.Errorf("notes %q", status.Notes)
	}
	if strings.Join(status.AllowedTools, ",") != "Read,Skill" {
		t.Errorf("allowed tools %q", status.AllowedTools)
	}
}

// TestLoadSuiteErrors: a malformed suite is refused with the file and line
// of the fault, as Claude Code refuses it.
func TestLoadSuiteErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no cases", map[string]string{"evals/README.md": "x"}, "no eval cases found"},
		{"no grader", map[string]string{"evals/c/prompt.md": "hello\n"}, "evals/c/prompt.md: the case has no grader"},
		{"unknown frontmatter key", map[string]string{
			"evals/c/prompt.md":    "---\nmax_turns: 3\nscaffold_script: x.sh\n---\nhi\n",
			"evals/c/graders/g.md": "---\ntype: llm\n---\nPASS if ok\n",
		}, "evals/c/prompt.md:3: scaffold_script: unknown key"},
		{"case.yaml needs schema_version", map[string]string{
			"evals/c/case.yaml": "name: c\nexecution:\n  prompt: hi\ngraders:\n  - {type: regex, name: g, pattern: hi}\n",
		}, "evals/c/case.yaml:1: schema_version: required"},
		{"unknown grader type", map[string]string{
			"evals/c/case.yaml": "schema_version: \"1.1\"\nname: c\nexecution:\n  prompt: hi\ngraders:\n  - type: exact\n    name: g\n",
		}, "evals/c/case.yaml:6: graders[0].type: unknown grader type \"exact\""},
		{"grader key of another type", map[string]string{
			"evals/c/case.yaml": "schema_version: \"1.1\"\nname: c\nexecution:\n  prompt: hi\ngraders:\n  - type: regex\n    name: g\n    pattern: hi\n    tool: Bash\n",
		}, "evals/c/case.yaml:9: graders[0].tool: unknown key"},
		{"grader without name", map[string]string{
			"evals/c/case.yaml": "schema_version: \"1.1\"\nname: c\nexecution:\n  prompt: hi\ngraders:\n  - type: regex\n    pattern: hi\n",
		}, "evals/c/case.yaml:6: graders[0].name: required"},
		{"duplicate grader names", map[string]string{
			"evals/c/case.yaml":    "schema_version: \"1.1\"\nname: c\nexecution:\n  prompt: hi\ngraders:\n  - {type: regex, name: g, pattern: hi}\n",
			"evals/c/graders/g.md": "---\ntype: llm\n---\nPASS if ok\n",
		}, "\"g\" is also the name of the grader at"},
		{"bad weight", map[string]string{
			"evals/c/prompt.md":    "hi\n",
			"evals/c/graders/g.md": "---\ntype: llm\nweight: 0\n---\nPASS if ok\n",
		}, "evals/c/graders/g.md:3: weight: must be a positive number"},
		{"bad arm", map[string]string{
			"evals/c/prompt.md":    "hi\n",
			"evals/c/graders/g.md": "---\ntype: tool_used\ntool: Skill\narm: with_only\n---\n",
		}, "evals/c/graders/g.md:4: arm: \"with_only\" is neither with-only nor both"},
		{"inline regex flag", map[string]string{
			"evals/c/prompt.md":    "hi\n",
			"evals/c/graders/g.md": "---\ntype: regex\npattern: '(?i)done'\n---\n",
		}, "evals/c/graders/g.md:3: pattern: inline flags"},
		{"bad regex", map[string]string{
			"evals/c/prompt.md":    "hi\n",
			"evals/c/graders/g.md": "---\ntype: regex\n---\n(unclosed\n",
		}, "pattern: invalid pattern"},
		{"empty rubric", map[string]string{
			"evals/c/prompt.md":    "hi\n",
			"evals/c/graders/g.md": "---\ntype: llm\n---\n",
		}, "evals/c/graders/g.md:2: criteria: the rubric is empty"},
		{"wrong type of value", map[string]string{
			"evals/c/prompt.md":    "---\nmax_turns: many\n---\nhi\n",
			"evals/c/graders/g.md": "---\ntype: llm\n---\nPASS\n",
		}, "evals/c/prompt.md:2: max_turns: cannot unmarshal"},
		{"unclosed frontmatter", map[string]string{
			"evals/c/prompt.md":    "---\nmax_turns: 3\nhi\n",
			"evals/c/graders/g.md": "---\ntype: llm\n---\nPASS\n",
		}, "evals/c/prompt.md:1: frontmatter opened with --- is never closed"},
		{"bad yaml", map[string]string{
			"evals/c/case.yaml": "schema_version: \"1.1\"\nname: [c\n",
		}, "evals/c/case.yaml:"},
		{"env key", map[string]string{
			"evals/c/prompt.md":    "---\nenv: {HOME: /tmp}\n---\nhi\n",
			"evals/c/graders/g.md": "---\ntype: llm\n---\nPASS\n",
		}, "evals/c/prompt.md:2: env.HOME: keys must match EVAL_"},
		{"no prompt", map[string]string{
			"evals/c/case.yaml": "schema_version: \"1.1\"\nname: c\ngraders:\n  - {type: regex, name: g, pattern: hi}\n",
		}, "evals/c/case.yaml:1: prompt: the case has no prompt"},
		{"tool_used needs tool", map[string]string{
			"evals/c/prompt.md":    "hi\n",
			"evals/c/graders/g.md": "---\ntype: tool_used\nmin: 1\n---\n",
		}, "evals/c/graders/g.md:2: tool: required"},
		{"min above max", map[string]string{
			"evals/c/prompt.md":    "hi\n",
			"evals/c/graders/g.md": "---\ntype: tool_used\ntool: Bash\nmin: 2\nmax: 1\n---\n",
		}, "evals/c/graders/g.md:4: min: min 2 is above max 1"},
		{"bad target", map[string]string{
			"evals/c/prompt.md":    "hi\n",
			"evals/c/graders/g.md": "---\ntype: regex\npattern: x\ntarget: reply\n---\n",
		}, "evals/c/graders/g.md:4: target: must be last_message"},
		{"bad match", map[string]string{
			"evals/c/prompt.md":    "hi\n",
			"evals/c/graders/g.md": "---\ntype: regex\npattern: x\nmatch: \"count:x\"\n---\n",
		}, "evals/c/graders/g.md:4: match:"},
		{"baseline file outside the case", map[string]string{
			"evals/c/prompt.md":    "hi\n",
			"evals/c/graders/g.md": "---\ntype: baseline\nbaseline_file: ../../secret.jsonl\n---\nPASS if as good\n",
			"secret.jsonl":         "{}",
		}, "evals/c/graders/g.md:3: baseline_file: \"../../secret.jsonl\" is not a file of the case folder"},
		{"two cases of one name", map[string]string{
			"evals/a/prompt.md":    "---\nname: same\n---\nhi\n",
			"evals/a/graders/g.md": "---\ntype: llm\n---\nPASS\n",
			"evals/b/prompt.md":    "---\nname: same\n---\nhi\n",
			"evals/b/graders/g.md": "---\ntype: llm\n---\nPASS\n",
		}, "two cases are named \"same\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tt.files {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(`{"name":"p"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadSuite(dir)
			if err == nil {
				t.Fatalf("loaded; want an error with %q", tt.want)
			}
			if got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""); !strings.Contains(got, tt.want) {
				t.Fatalf("error %q\nwant it to contain %q", got, tt.want)
			}
		})
	}
}

// TestLoadSuiteConfined: a case file that links out of the plugin folder
// is refused rather than read.
func TestLoadSuiteConfined(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "prompt.md")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "evals", "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "evals", "c", "prompt.md")); err != nil {
		t.Skip(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadSuite(dir)
	if err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("err %v, want a refusal", err)
	}
}

// TestLoadSuiteManifestEvalDir: plugin.json's experimental.evals names the
// eval folder.
func TestLoadSuiteManifestEvalDir(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		".claude-plugin/plugin.json":   `{"name":"p","experimental":{"evals":"quality/evals"}}`,
		"quality/evals/c/prompt.md":    "hi\n",
		"quality/evals/c/graders/g.md": "---\ntype: llm\n---\nPASS\n",
		"skills/s/SKILL.md":            "---\nname: s\ndescription: d\n---\nbody\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases, err := LoadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 || cases[0].Name != "c" || len(cases[0].Skills) != 1 || cases[0].Skills[0] != "s" {
		t.Fatalf("cases %+v", cases)
	}
}

// TestLoadSuiteOneCase: DIR may be one case's folder; its plugin is the
// nearest one above.
func TestLoadSuiteOneCase(t *testing.T) {
	cases, err := LoadSuite("testdata/commit-plugin/evals/ignores-unrelated-request")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 || cases[0].Name != "ignores-unrelated-request" || cases[0].ID != "ignores-unrelated-request" || strings.Join(cases[0].Skills, ",") != "commit-message" {
		t.Fatalf("cases %+v", cases)
	}
}
