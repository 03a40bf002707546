package memory

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseDistillAnswer: the strict JSON answer, a code fence around it,
// and each way an answer is refused, with a message the model can act on.
func TestParseDistillAnswer(t *testing.T) {
	item := `{"name": "editor", "type": "user", "description": "Edits code with Helix", "content": "Helix."}`
	for _, tc := range []struct {
		name, text string
		want       []string // names, when accepted
		err        string
	}{
		{name: "one", text: `{"memories": [` + item + `]}`, want: []string{"editor"}},
		{name: "none", text: ` {"memories": []} `, want: []string{}},
		{name: "fenced", text: "```json\n{\"memories\": [" + item + "]}\n```", want: []string{"editor"}},
		{name: "bare fence", text: "```\n{\"memories\": []}\n```", want: []string{}},
		{name: "trimmed", text: `{"memories": [{"name": " editor ", "type": "user", "description": " d ", "content": "\n c \n"}]}`, want: []string{"editor"}},
		{name: "empty", text: "  ", err: "the answer is empty"},
		{name: "prose", text: "Here are the memories.", err: "not the JSON object asked for"},
		{name: "prose after", text: `{"memories": []} Done!`, err: "text follows the JSON object"},
		{name: "two objects", text: `{"memories": []}{"memories": []}`, err: "text follows the JSON object"},
		{name: "no memories", text: `{}`, err: `no "memories" array`},
		{name: "null memories", text: `{"memories": null}`, err: `no "memories" array`},
		{name: "unknown key", text: `{"memories": [], "index": "x"}`, err: `unknown field "index"`},
		{name: "unknown item key", text: `{"memories": [{"name": "a", "type": "user", "description": "d", "content": "c", "scope": "user"}]}`, err: `unknown field "scope"`},
		{name: "array", text: `[` + item + `]`, err: "not the JSON object asked for"},
		{name: "bad type", text: `{"memories": [{"name": "a", "type": "note", "description": "d", "content": "c"}]}`, err: `memories[0] ("a"): type: "note" is not one of`},
		{name: "no name", text: `{"memories": [{"name": "", "type": "user", "description": "d", "content": "c"}]}`, err: "memories[0]: name: must not be empty"},
		{name: "two-line description", text: `{"memories": [{"name": "a", "type": "user", "description": "d\nmore", "content": "c"}]}`, err: "description: must be one line"},
		{name: "empty content", text: `{"memories": [{"name": "a", "type": "user", "description": "d", "content": " "}]}`, err: "content must not be empty"},
		{name: "twice", text: `{"memories": [` + item + `, ` + item + `]}`, err: `memories[1] ("editor"): the name is given twice`},
		{name: "too many", text: `{"memories": [` + strings.TrimSuffix(strings.Repeat(item+",", MaxDistillMemories+1), ",") + `]}`, err: "at most 100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := ParseDistillAnswer(tc.text)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			names := []string{}
			for _, m := range ms {
				names = append(names, m.Name)
			}
			if strings.Join(names, ",") != strings.Join(tc.want, ",") {
				t.Errorf("names %v, want %v", names, tc.want)
			}
		})
	}
}

// FuzzParseDistillAnswer checks that no answer panics the parser, that
// every memory it accepts passes Save's validation, and that an accepted
// answer written back as JSON parses to the same memories.
func FuzzParseDistillAnswer(f *testing.F) {
	f.Add(`{"memories": [{"name": "editor", "type": "user", "description": "Edits code with Helix", "content": "Helix."}]}`)
	f.Add("```json\n{\"memories\": []}\n```")
	f.Add(`{"memories": [{"name": "a", "type": "reference", "description": "d", "content": "c"}, {"name": "a"}]}`)
	f.Add(`{"memories": null}`)
	f.Add("```{\"memories\": []}```")
	f.Fuzz(func(t *testing.T, text string) {
		ms, err := ParseDistillAnswer(text)
		if err != nil {
			return
		}
		items := []distillItem{}
		for _, m := range ms {
			if err := validate(m); err != nil || m.Body == "" {
				t.Fatalf("accepted an invalid memory %+v: %v", m, err)
			}
			items = append(items, distillItem{Name: m.Name, Type: m.Type, Description: m.Description, Content: m.Body})
		}
		out, err := json.Marshal(distillAnswer{Memories: &items})
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseDistillAnswer(string(out))
		if err != nil || len(again) != len(ms) {
			t.Fatalf("re-parse of %s: %v", out, err)
		}
		for i := range ms {
			if again[i] != ms[i] {
				t.Fatalf("round trip changed %+v to %+v", ms[i], again[i])
			}
		}
	})
}
