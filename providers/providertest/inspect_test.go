package providertest_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers/providertest"
)

var (
	sig = providertest.ThinkingSignature("Read both.")
	enc = providertest.EncryptedReasoning("rs_providertest_1_0", "Read both.", false)
)

// The same conversation on every wire, as the adapters encode it.
var (
	openAIConversation = `{"model":"m","messages":[
	{"role":"system","content":"You are terse.\n\n<active_skill>x</active_skill>"},
	{"role":"user","content":"read a\nand b"},
	{"role":"assistant","reasoning_content":"Read both.","content":"Reading.","tool_calls":[
		{"id":"call_1","type":"function","function":{"name":"file_read","arguments":"{\"path\":\"a.txt\"}"}},
		{"id":"call_2","type":"function","function":{"name":"file_read","arguments":"{\"path\":\"b.txt\"}"}}]},
	{"role":"tool","tool_call_id":"call_1","content":"A"},
	{"role":"tool","tool_call_id":"call_2","content":"B\nB"},
	{"role":"user","content":"thanks"},
	{"role":"assistant","content":"Done."}],
	"tools":[{"type":"function","function":{"name":"file_read","parameters":{}}},{"type":"function","function":{"name":"glob_search","parameters":{}}}]}`

	anthropicConversation = `{"model":"m","max_tokens":1024,
	"system":[{"type":"text","text":"You are terse.","cache_control":{"type":"ephemeral"}},{"type":"text","text":"<active_skill>x</active_skill>"}],
	"messages":[
	{"role":"user","content":"read a\nand b"},
	{"role":"assistant","content":[{"type":"thinking","thinking":"Read both.","signature":"` + sig + `"},{"type":"text","text":"Reading."},
		{"type":"tool_use","id":"call_1","name":"file_read","input":{"path": "a.txt"}},
		{"type":"tool_use","id":"call_2","name":"file_read","input":{"path":"b.txt"}}]},
	{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"A"},
		{"type":"tool_result","tool_use_id":"call_2","content":[{"type":"text","text":"B\nB"}]},
		{"type":"text","text":"thanks","cache_control":{"type":"ephemeral"}}]},
	{"role":"assistant","content":[{"type":"text","text":"Done."}]}],
	"tools":[{"name":"file_read","input_schema":{}},{"name":"glob_search","input_schema":{},"cache_control":{"type":"ephemeral"}}]}`

	responsesConversation = `{"model":"m","store":false,"include":["reasoning.encrypted_content"],
	"instructions":"You are terse.\n\n<active_skill>x</active_skill>",
	"input":[
	{"type":"message","role":"user","content":[{"type":"input_text","text":"read a\nand b"}]},
	{"type":"reasoning","id":"rs_providertest_1_0","summary":[{"type":"summary_text","text":"Read both."}],"encrypted_content":"` + enc + `"},
	{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Reading."}]},
	{"type":"function_call","call_id":"call_1","name":"file_read","arguments":"{\"path\":\"a.txt\"}"},
	{"type":"function_call","call_id":"call_2","name":"file_read","arguments":"{\"path\":\"b.txt\"}"},
	{"type":"function_call_output","call_id":"call_1","output":"A"},
	{"type":"function_call_output","call_id":"call_2","output":"B\nB"},
	{"role":"user","content":"thanks"},
	{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}],
	"tools":[{"type":"function","name":"file_read","parameters":{},"strict":false},{"type":"function","name":"glob_search","parameters":{}}]}`
)

// TestReadRequestParity checks that every wire reads to the same system
// prompt, tools and transcript.
func TestReadRequestParity(t *testing.T) {
	t.Parallel()
	want := `user: read a\nand b
thinking: Read both.
assistant: Reading.
call call_1 file_read {"path":"a.txt"}
call call_2 file_read {"path":"b.txt"}
tool call_1: A
tool call_2: B\nB
user: thanks
assistant: Done.
`
	for wire, body := range map[providertest.Wire]string{providertest.WireOpenAI: openAIConversation,
		providertest.WireAnthropic: anthropicConversation, providertest.WireResponses: responsesConversation} {
		v, err := providertest.ReadRequest(wire, []byte(body))
		if err != nil {
			t.Fatalf("%s: %v", wire, err)
		}
		if diff := cmp.Diff(want, v.Transcript()); diff != "" {
			t.Errorf("%s transcript (-want +got):\n%s", wire, diff)
		}
		got := []any{v.System, v.HasSystem, v.Tools, v.Check()}
		if diff := cmp.Diff([]any{"You are terse.\n\n<active_skill>x</active_skill>", true, []string{"file_read", "glob_search"}, nil}, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
			t.Errorf("%s system, tools, check (-want +got):\n%s", wire, diff)
		}
	}
	v, _ := providertest.ReadRequest(providertest.WireAnthropic, []byte(anthropicConversation))
	if v.Breakpoints != 3 || len(v.SystemBlocks) != 2 {
		t.Errorf("breakpoints %d, system blocks %q", v.Breakpoints, v.SystemBlocks)
	}
}

// TestReadRequestOther covers what the parity conversation does not.
func TestReadRequestOther(t *testing.T) {
	t.Parallel()
	v, err := providertest.ReadRequest(providertest.WireAnthropic, []byte(`{"messages":[
		{"role":"user","content":[{"type":"image","source":{}},{"type":"text","text":"what is it?"}]},
		{"role":"assistant","content":[{"type":"redacted_thinking","data":"xyz"},{"type":"text","text":"A cat."}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "user: [image]\nuser: what is it?\nthinking: [redacted]\nassistant: A cat.\n"
	if diff := cmp.Diff(want, v.Transcript()); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if v.HasSystem || v.Check() != nil {
		t.Errorf("has system %v, check %v", v.HasSystem, v.Check())
	}
	for _, bad := range []struct {
		wire providertest.Wire
		body string
	}{
		{providertest.WireAnthropic, `{"messages":[{"role":"user","content":3}]}`},
		{providertest.WireAnthropic, `{"system":{"x":1}}`},
		{providertest.WireOpenAI, `[]`},
		{"gemini", `{}`},
	} {
		if _, err := providertest.ReadRequest(bad.wire, []byte(bad.body)); err == nil {
			t.Errorf("%s %s: no error", bad.wire, bad.body)
		}
	}
}

// TestCheckAnthropic lists what the Messages API would reject.
func TestCheckAnthropic(t *testing.T) {
	t.Parallel()
	call := `{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"a","input":{}}]}`
	result := `{"type":"tool_result","tool_use_id":"c1","content":"ok"}`
	tests := []struct {
		name, messages, system, want string
	}{
		{"valid call", call + `,{"role":"user","content":[` + result + `]}`, "", ""},
		{"final assistant prefill may be empty", `{"role":"user","content":"hi"},{"role":"assistant","content":""}`, "", ""},
		{"foreign signature", `{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"EqQBCkgI"}]}`, "", ""},
		{"empty text", `{"role":"user","content":[{"type":"text","text":""}]}`, "", "message 0 (user) block 0: empty text block"},
		{"blank text", `{"role":"user","content":[{"type":"text","text":"hi"},{"type":"text","text":" \n"}]}`, "", "message 0 (user) block 1: empty text block"},
		{"empty content", `{"role":"user","content":[]},{"role":"assistant","content":"x"}`, "", "message 0 (user): empty content"},
		{"empty string content", `{"role":"user","content":""}`, "", "message 0 (user): empty content"},
		{"empty system block", `{"role":"user","content":"hi"}`, `[{"type":"text","text":"a"},{"type":"text","text":""}]`, "system block 1: empty text"},
		{"unsigned thinking", `{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":""},{"type":"text","text":"x"}]}`, "", "message 0 (assistant) block 0: thinking block without signature"},
		{"altered thinking", `{"role":"assistant","content":[{"type":"thinking","thinking":"changed","signature":"` + sig + `"}]}`, "", "thinking block altered"},
		{"thinking from the user", `{"role":"user","content":[{"type":"thinking","thinking":"t","signature":"s"}]}`, "", "thinking block outside an assistant message"},
		{"unanswered", call + `,{"role":"user","content":"next"}`, "", "message 1: calls [c1] of the previous message have no result"},
		{"unanswered at the end", call, "", "calls [c1] have no result"},
		{"answered late", call + `,{"role":"user","content":"wait"},{"role":"user","content":[` + result + `]}`, "", "message 1: calls [c1] of the previous message have no result\nmessage 2: tool result c1 answers no pending call"},
		{"result not first", call + `,{"role":"user","content":[{"type":"text","text":"x"},` + result + `]}`, "", "message 1: tool result c1 follows other content"},
		{"result twice", call + `,{"role":"user","content":[` + result + `,` + result + `]}`, "", "message 1: tool result c1 answers no pending call"},
		{"result from the assistant", `{"role":"assistant","content":[` + result + `]}`, "", "tool result c1 outside a user message"},
		{"input not an object", `{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"a","input":"{"}]},{"role":"user","content":[` + result + `]}`, "", "tool_use c1 input is not a JSON object"},
		{"nameless call", `{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"","input":{}}]},{"role":"user","content":[` + result + `]}`, "", "tool_use c1 without a name"},
		{"five breakpoints", `{"role":"user","content":[` + strings.Repeat(`{"type":"text","text":"x","cache_control":{"type":"ephemeral"}},`, 4) + `{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}]}`, "", "5 blocks carry cache_control; the API allows 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := `{"model":"m","messages":[` + tt.messages + `]`
			if tt.system != "" {
				body += `,"system":` + tt.system
			}
			v, err := providertest.ReadRequest(providertest.WireAnthropic, []byte(body+"}"))
			if err != nil {
				t.Fatal(err)
			}
			err = v.Check()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Check = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Check = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestCheckOpenAI(t *testing.T) {
	t.Parallel()
	call := `{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"a","arguments":"{}"}},{"id":"c2","function":{"name":"b","arguments":"{}"}}]}`
	tests := []struct{ name, messages, want string }{
		{"valid", call + `,{"role":"tool","tool_call_id":"c2","content":"x"},{"role":"tool","tool_call_id":"c1","content":"y"}`, ""},
		{"missing", call + `,{"role":"tool","tool_call_id":"c1","content":"y"},{"role":"user","content":"z"}`, "message 2: calls [c2] have no result"},
		{"stray", `{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c9","content":"y"}`, "message 1: tool result c9 answers no pending call"},
		{"at the end", call, "calls [c1 c2] have no result"},
	}
	for _, tt := range tests {
		v, err := providertest.ReadRequest(providertest.WireOpenAI, []byte(`{"messages":[{"role":"system","content":"s"},`+tt.messages+`]}`))
		if err != nil {
			t.Fatal(err)
		}
		err = v.Check()
		if (tt.want == "") != (err == nil) || err != nil && err.Error() != tt.want {
			t.Errorf("%s: Check = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// FuzzRequestBody feeds arbitrary bodies to the readers of request
// bodies: ReadRequest (then Transcript and Check) and the cache emulator,
// whose usage must stay consistent: cached and written parts of the input.
func FuzzRequestBody(f *testing.F) {
	f.Add([]byte(openAIConversation))
	f.Add([]byte(anthropicConversation))
	f.Add([]byte(responsesConversation))
	f.Add([]byte(`{"input":"hi","instructions":null,"tools":[{"type":"web_search"}]}`))
	f.Add([]byte(`{"input":[{"type":"reasoning","summary":[],"encrypted_content":null},{"type":"function_call_output","output":[{"type":"input_text","text":"x"}]},{"role":"developer","content":7}]}`))
	f.Add([]byte(`{"system":"s","messages":[{"role":"user","content":[{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"n","input":"{"}]},{"role":"user","content":null}]}`))
	f.Add([]byte(`{"tools":[{"name":"t","cache_control":null}],"messages":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		e := providertest.NewCacheEmulator()
		for _, wire := range []providertest.Wire{providertest.WireOpenAI, providertest.WireAnthropic, providertest.WireResponses} {
			if v, err := providertest.ReadRequest(wire, body); err == nil {
				_ = v.Transcript()
				_ = v.Check()
			}
			for range 2 {
				u, err := e.Observe(wire, body, 0)
				if err != nil {
					continue
				}
				if u.CachedInputTokens < 0 || u.CacheWriteTokens < 0 || u.CachedInputTokens+u.CacheWriteTokens > u.InputTokens {
					t.Fatalf("%s: inconsistent usage %+v", wire, u)
				}
			}
		}
	})
}
