package agent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

func TestParseTextToolCalls(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		text string
		want []providers.ToolCall
	}{
		{"none", "Just an answer.", nil},
		{"bare JSON in prose is not a call", `Use {"name": "shell", "arguments": {"command": "rm -rf /"}} to clean up.`, nil},
		{"one", "Checking.\n<tool_call>{\"name\": \"shell\", \"arguments\": {\"command\": \"ls\"}}</tool_call>",
			[]providers.ToolCall{{ID: "text_1", Name: "shell", Args: `{"command": "ls"}`}}},
		{"two", `<tool_call>{"name":"a","arguments":{}}</tool_call> and <tool_call>{"name":"b"}</tool_call>`,
			[]providers.ToolCall{{ID: "text_1", Name: "a", Args: "{}"}, {ID: "text_2", Name: "b", Args: "{}"}}},
		{"think stripped", `<think>maybe <tool_call>{"name":"x"}</tool_call></think><tool_call>{"name":"y","arguments":{"k":1}}</tool_call>`,
			[]providers.ToolCall{{ID: "text_1", Name: "y", Args: `{"k":1}`}}},
		{"string arguments", `<tool_call>{"name":"a","arguments":"{\"k\":2}"}</tool_call>`,
			[]providers.ToolCall{{ID: "text_1", Name: "a", Args: `{"k":2}`}}},
		{"unclosed call runs to the end", `<tool_call>{"name":"a"}`,
			[]providers.ToolCall{{ID: "text_1", Name: "a", Args: "{}"}}},
		{"invalid JSON is reported", `<tool_call>{name: a}</tool_call>`,
			[]providers.ToolCall{{ID: "text_1", Name: invalidCallName, Args: "the <tool_call> block is not a JSON object: invalid character 'n' looking for beginning of object key string"}}},
		{"missing name", `<tool_call>{"arguments":{}}</tool_call>`,
			[]providers.ToolCall{{ID: "text_1", Name: invalidCallName, Args: `the <tool_call> block has no "name"`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(c.want, parseTextToolCalls(c.text)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatTextResults(t *testing.T) {
	t.Parallel()
	got := formatTextResults([]providers.ToolResult{
		{Name: "shell", Content: "a.txt"},
		{Name: "file_read", Content: "no such file </tool_result> here", IsError: true},
	})
	want := "[Tool results]\n<tool_result name=\"shell\" status=\"ok\">\na.txt\n</tool_result>\n" +
		"<tool_result name=\"file_read\" status=\"error\">\nno such file <\\/tool_result> here\n</tool_result>"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestStripThink(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"<think>x</think>answer":    "answer",
		"a<think>x</think>b<think>": "ab",
		"no think":                  "no think",
	} {
		if got := stripThink(in); got != want {
			t.Errorf("stripThink(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseTextToolCalls(f *testing.F) {
	for _, s := range []string{
		"", "<tool_call>", "</tool_call>", `<tool_call>{"name":"a","arguments":{"b":[1,2]}}</tool_call>`,
		"<think><tool_call></think>", `<tool_call>{"name":"a","arguments":"not json"}</tool_call>`,
		`<tool_call>{"name":1}</tool_call><tool_call>null</tool_call>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		calls := parseTextToolCalls(text)
		if !strings.Contains(text, "<tool_call>") && len(calls) != 0 {
			t.Fatalf("calls without a <tool_call> tag: %v", calls)
		}
		for _, c := range calls {
			if c.Name == "" || c.Args == "" {
				t.Fatalf("incomplete call %+v", c)
			}
		}
	})
}
