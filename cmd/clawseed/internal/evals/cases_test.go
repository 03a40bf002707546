package evals

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string
		data string
		want []Case
		err  string // every line of the joined error, in order
	}{
		{
			name: "yaml list",
			file: "cases.yaml",
			data: "# trigger cases\n- prompt: review my PR\n  expect: pr-review\n- prompt: what is 2+2\n  expect: null\n- id: deploy-1\n  prompt: |\n    ship it\n  expect: deploy\n- {prompt: hi, expect: ~}\n",
			want: []Case{
				{ID: "cases.yaml:2", Line: 2, Prompt: "review my PR", Expect: "pr-review", HasExpect: true, MaxTurns: 1},
				{ID: "cases.yaml:4", Line: 4, Prompt: "what is 2+2", HasExpect: true, MaxTurns: 1},
				{ID: "deploy-1", Line: 6, Prompt: "ship it\n", Expect: "deploy", HasExpect: true, MaxTurns: 1},
				{ID: "cases.yaml:10", Line: 10, Prompt: "hi", HasExpect: true, MaxTurns: 1},
			},
		},
		{
			name: "jsonl",
			file: "cases.jsonl",
			data: "{\"prompt\": \"review my PR\", \"expect\": \"pr-review\"}\n\n{\"prompt\": \"2+2\", \"expect\": null, \"id\": \"math\"}\n",
			want: []Case{
				{ID: "cases.jsonl:1", Line: 1, Prompt: "review my PR", Expect: "pr-review", HasExpect: true, MaxTurns: 1},
				{ID: "math", Line: 3, Prompt: "2+2", HasExpect: true, MaxTurns: 1},
			},
		},
		{
			name: "jsonl sniffed",
			file: "cases.txt",
			data: "  {\"prompt\": \"a\", \"expect\": null}\n",
			want: []Case{{ID: "cases.txt:1", Line: 1, Prompt: "a", HasExpect: true, MaxTurns: 1}},
		},
		{
			name: "yaml errors",
			file: "c.yaml",
			data: "- prompt: a\n  expected: x\n- prompt: ''\n  expect: ''\n- expect: [x]\n- just text\n- prompt: b\n",
			err: "c.yaml:2: expected: unknown key (want prompt, expect, id)\n" +
				"c.yaml:3: prompt: empty\n" +
				"c.yaml:4: expect: empty (write null when no skill should activate)\n" +
				"c.yaml:5: expect: must be a skill name or null\n" +
				"c.yaml:6: not a mapping (want prompt: and expect:)\n" +
				"c.yaml:7: expect: missing (the skill that should activate, or null for none)",
		},
		{
			name: "jsonl errors",
			file: "c.jsonl",
			data: "{\"prompt\": \"a\"}\nnot json\n{\"prompt\": 3, \"expect\": null}\n{\"prompt\": \"b\", \"expect\": 1}\n{\"expect\": null}\n",
			err: "c.jsonl:1: expect: missing (the skill that should activate, or null for none)\n" +
				"c.jsonl:2: not a JSON object (each line is {\"prompt\": \"...\", \"expect\": \"skill-name\" | null})\n" +
				"c.jsonl:3: prompt: must be a string\n" +
				"c.jsonl:4: expect: must be a skill name or null\n" +
				"c.jsonl:5: prompt: missing",
		},
		{
			name: "duplicate ids",
			file: "c.yaml",
			data: "- {id: x, prompt: a, expect: null}\n- {id: x, prompt: b, expect: null}\n",
			err:  `c.yaml:2: id: "x" is also the id of the case at line 1`,
		},
		{name: "not a list", file: "c.yaml", data: "prompt: a\nexpect: b\n", err: "c.yaml:1: not a list (want a list of {prompt: \"...\", expect: skill-name | null})"},
		{name: "empty", file: "c.yaml", data: "", err: "c.yaml: no cases (want a list of {\"prompt\": \"...\", \"expect\": \"skill-name\" | null})"},
		{name: "yaml syntax", file: "c.yaml", data: "- prompt: a\n  expect: [b\n", err: "c.yaml:1: did not find expected ',' or ']'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseCases(tt.file, []byte(tt.data))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error:\n%v\nwant:\n%s", err, tt.err)
				}
				var ce *FileError
				if !errors.As(err, &ce) {
					t.Errorf("the error is not a *FileError")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("cases (-want +got)\n%s", diff)
			}
		})
	}
}

func TestCheckExpected(t *testing.T) {
	t.Parallel()
	cases := []Case{{Line: 1, Expect: "a"}, {Line: 2}, {Line: 3, Expect: "ghost"}}
	err := CheckExpected("c.yaml", cases, func(n string) bool { return n == "a" })
	if err == nil || err.Error() != `c.yaml:3: expect: no skill "ghost" in the catalog (see clawseed skills list)` {
		t.Errorf("CheckExpected = %v", err)
	}
	if err := CheckExpected("c.yaml", cases[:2], func(n string) bool { return n == "a" }); err != nil {
		t.Errorf("CheckExpected = %v, want nil", err)
	}
}

// FuzzParseCases: any input parses or fails with file:line errors, never
// panics; what parses has a prompt, a unique id and a line.
func FuzzParseCases(f *testing.F) {
	for _, s := range []string{
		"- prompt: review\n  expect: pr-review\n- prompt: hi\n  expect: null\n",
		"{\"prompt\": \"a\", \"expect\": null}\n{\"prompt\": \"b\", \"expect\": \"x\", \"id\": \"y\"}\n",
		"- {prompt: a, expect: ~, id: 1}\n",
		"- prompt: |\n    multi\n    line\n  expect: s\n",
		"[[[[[[[[",
		"- &a {prompt: *a, expect: null}\n",
	} {
		f.Add("cases.yaml", s)
		f.Add("cases.jsonl", s)
	}
	f.Fuzz(func(t *testing.T, name, data string) {
		cases, err := ParseCases(name, []byte(data))
		if err != nil {
			if cases != nil {
				t.Fatal("cases with an error")
			}
			return
		}
		ids := map[string]bool{}
		for _, c := range cases {
			if strings.TrimSpace(c.Prompt) == "" || c.Line <= 0 || !c.HasExpect || ids[c.ID] {
				t.Fatalf("bad case %+v", c)
			}
			ids[c.ID] = true
		}
	})
}
