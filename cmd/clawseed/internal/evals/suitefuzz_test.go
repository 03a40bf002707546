package evals

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzSuiteFile feeds the suite's parsers (case.yaml, prompt.md, a grader
// file and its options, a judge's answer) anything: they return a value or
// a *FileError naming the file, never panic; a grader that loads has a
// spec, a positive weight and a known arm.
func FuzzSuiteFile(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/evals/*/*.*")
	more, _ := filepath.Glob("testdata/*/evals/*/*/*.*")
	more2, _ := filepath.Glob("testdata/*/evals/*/graders/*.md")
	for _, p := range append(append(seeds, more...), more2...) {
		data, err := os.ReadFile(p)
		if err == nil {
			f.Add(filepath.Base(p), string(data))
		}
	}
	for _, s := range []string{
		"---\ntype: regex\npattern: '(?<![\\s\\S])x'\nmatch: \"count:3\"\n---\n",
		"---\ntype: tool_order\nbefore: {tool: Read, input_match: x}\nafter: Edit\n---\n",
		"---\n---\n",
		"---\ntype: llm\nfocus: {source: file, path: a.md}\n",
		`{"verdict": "PASS", "reason": "x"} PASS`,
		"schema_version: \"1.1\"\nname: x\ngraders: [{type: baseline, name: b, baseline_file: t.jsonl}]\n",
	} {
		f.Add("g.md", s)
		f.Add("case.yaml", s)
		f.Add("prompt.md", s)
	}
	f.Fuzz(func(t *testing.T, name, data string) {
		check := func(err error) {
			if err == nil {
				return
			}
			if le, ok := err.(*FileError); !ok || le.File != name {
				t.Fatalf("error %v is not a FileError of %s", err, name)
			}
		}
		if d, err := parseCaseYAML(name, []byte(data)); err == nil {
			for _, g := range d.Graders {
				checkGrader(t, name, g)
			}
		} else {
			check(err)
		}
		_, err := parsePromptMD(name, []byte(data))
		check(err)
		g, err := parseGraderMD(name, "g", []byte(data))
		check(err)
		if err == nil {
			checkGrader(t, name, g)
		}
		pass, _, err := parseVerdict(data)
		if err != nil && pass {
			t.Fatal("a verdict that could not be read passed")
		}
	})
}

// checkGrader builds g's spec and checks what a loaded grader promises.
func checkGrader(t *testing.T, name string, g Grader) {
	err := buildSpec(name, &g, func(string) (string, error) { return "", nil })
	if err != nil {
		if le, ok := err.(*FileError); !ok || le.File != name {
			t.Fatalf("error %v is not a FileError of %s", err, name)
		}
		return
	}
	if g.spec == nil || !(g.Weight > 0) || g.Arm != "" && g.Arm != "with-only" && g.Arm != "both" {
		t.Fatalf("grader %+v", g)
	}
	if g.Kind == "llm" && strings.TrimSpace(g.spec.criteria) == "" {
		t.Fatal("an llm grader without a rubric loaded")
	}
	_ = gradeLocal(&g, Run{Reply: "x", ToolCalls: []ToolCall{{Name: "Skill", Input: []byte(`{"skill":"x"}`)}}})
}
