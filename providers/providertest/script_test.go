package providertest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

func TestParseScript(t *testing.T) {
	t.Parallel()
	script := "\ufeff# a comment\n" +
		`{"text": "Hello", "reasoning": "think", "usage": {"input_tokens": 10, "output_tokens": 2, "cached_tokens": 4}}` + "\r\n" +
		"\n   \n" +
		`{"tool_calls": [{"name": "file_read", "args": {"path": "a.txt"}}, {"id": "x", "name": "shell", "args": "{\"command\":\"ls\"}"}, {"name": "noargs"}]}` + "\n" +
		`  # indented comment` + "\n" +
		`{"status": 429, "error": "slow down", "retry_after": "1.5"}` + "\n" +
		`{"hang": true, "hang_after_chunks": 2, "delay_ms": 5, "text": "abc", "stop_reason": "max_tokens"}` + "\n" +
		`{"reasoning": "r", "redacted_thinking": "opaque", "text": "abc", "stream_error": "Overloaded", "stream_error_status": 529, "fail_after_chunks": 2}` + "\n" +
		`{"text": "abc", "cut": true, "usage": {"input_tokens": 9, "cache_write_tokens": 4}}`
	got, err := ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	want := []Response{
		{Text: "Hello", Reasoning: "think", Usage: &providers.Usage{InputTokens: 10, OutputTokens: 2, CachedInputTokens: 4}},
		{ToolCalls: []Call{{Name: "file_read", Args: `{"path":"a.txt"}`}, {ID: "x", Name: "shell", Args: `{"command":"ls"}`}, {Name: "noargs"}}},
		{Status: 429, Error: "slow down", RetryAfter: "1.5"},
		{Hang: true, HangAfterChunks: 2, DelayMs: 5, Text: "abc", StopReason: "max_tokens"},
		{Reasoning: "r", RedactedThinking: "opaque", Text: "abc", StreamError: "Overloaded", StreamErrorStatus: 529, FailAfterChunks: 2},
		{Text: "abc", Cut: true, Usage: &providers.Usage{InputTokens: 9, CacheWriteTokens: 4}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseScript (-want +got):\n%s", diff)
	}
}

func TestParseScriptErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script, want string
	}{
		{"unknown field", `{"txt": "hi"}`, `line 1: json: unknown field "txt"`},
		{"unknown call field", "\n" + `{"tool_calls": [{"name": "a", "arguments": "{}"}]}`, `line 2: tool call: json: unknown field "arguments"`},
		{"unknown usage field", `{"usage": {"input": 1}}`, `line 1: json: unknown field "input"`},
		{"not json", `text: hi`, "line 1: invalid character"},
		{"trailing data", `{"text": "a"} {"text": "b"}`, "line 1: trailing data"},
		{"trailing brace", `{"text": "a"}}`, "line 1: trailing data"},
		{"array", `[{"text": "a"}]`, "line 1: json: cannot unmarshal array"},
		{"wrong type", `{"status": "429"}`, "line 1: json: cannot unmarshal string"},
		{"success status", `{"status": 200}`, "line 1: status 200"},
		{"error and text", `{"status": 500, "text": "x"}`, "line 1: an error response cannot also carry"},
		{"error hangs", `{"error": "x", "hang": true}`, "line 1: an error response cannot hang"},
		{"retry without error", `{"text": "x", "retry_after": "1"}`, "line 1: retry_after needs an error status"},
		{"retry not a number", `{"status": 429, "retry_after": "soon"}`, `line 1: retry_after "soon"`},
		{"bad stop", `{"stop_reason": "stop"}`, `line 1: stop_reason "stop"`},
		{"negative delay", `{"delay_ms": -1}`, "line 1: hang_after_chunks, fail_after_chunks and delay_ms cannot be negative"},
		{"nameless call", `{"tool_calls": [{"args": "{}"}]}`, "line 1: tool_calls[0]: name is required (write \"name\": \"\" for a nameless call)"},
		{"bad args", `{"tool_calls": [{"name": "a", "args": {"x": }}]}`, "line 1: invalid character"},
		{"later line", "{}\n# c\n{\"nope\": 1}", `line 3: json: unknown field "nope"`},
		{"case mismatch", `{"Text": "x"}`, `line 1: unknown field "Text" (field names are case-sensitive)`},
		{"case mismatch in usage", `{"usage": {"Input_Tokens": 1}}`, `line 1: unknown field "Input_Tokens" in usage`},
		{"case mismatch in call", `{"tool_calls": [{"Name": "a"}]}`, `line 1: unknown field "Name" in tool_calls`},
		{"invalid utf8", "{\"text\": \"\xff\"}", "line 1: not valid UTF-8"},
		{"stream error and cut", `{"stream_error": "x", "cut": true}`, "line 1: stream_error and cut exclude each other"},
		{"stream error hangs", `{"stream_error": "x", "hang": true}`, "line 1: a response that hangs cannot also fail"},
		{"cut hangs", `{"cut": true, "hang_after_chunks": 2}`, "line 1: a response that hangs cannot also fail"},
		{"fail count alone", `{"text": "x", "fail_after_chunks": 2}`, "line 1: fail_after_chunks needs stream_error or cut"},
		{"negative fail count", `{"cut": true, "fail_after_chunks": -1}`, "line 1: hang_after_chunks, fail_after_chunks and delay_ms cannot be negative"},
		{"error status alone", `{"stream_error_status": 529}`, "line 1: stream_error_status needs stream_error"},
		{"error status range", `{"stream_error": "x", "stream_error_status": 200}`, "line 1: stream_error_status 200: want 400–599"},
		{"http error with stream error", `{"status": 529, "stream_error": "x"}`, "line 1: an error response cannot hang, cut or fail mid-stream"},
		{"http error with redacted", `{"status": 500, "redacted_thinking": "x"}`, "line 1: an error response cannot also carry"},
		{"case mismatch in new field", `{"Stream_Error": "x"}`, `line 1: unknown field "Stream_Error"`},
		{"error and error body", `{"status": 501, "error": "x", "error_body": "<p>x</p>"}`, "line 1: error and error_body exclude each other"},
		{"error body and text", `{"error_body": "x", "text": "y"}`, "line 1: an error response cannot also carry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseScript([]byte(tt.script))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v, want prefix %q", err, tt.want)
			}
		})
	}
}

func TestParseScriptEmpty(t *testing.T) {
	t.Parallel()
	got, err := ParseScript([]byte("# nothing\n\n"))
	if err != nil || len(got) != 0 {
		t.Fatalf("got %v, %v; want an empty script", got, err)
	}
}

// FuzzParseScript checks that ParseScript never panics and that whatever it
// accepts survives a round trip through JSON Lines unchanged.
func FuzzParseScript(f *testing.F) {
	f.Add([]byte(`{"text": "hi"}`))
	f.Add([]byte("# c\n{\"reasoning\":\"r\",\"text\":\"t\",\"usage\":{\"input_tokens\":1}}\n{\"status\":429,\"error\":\"e\",\"retry_after\":\"2\"}"))
	f.Add([]byte(`{"tool_calls":[{"name":"a","args":{"x":[1,2,{"y":null}]}},{"id":"c","name":"b","args":"raw"}]}`))
	f.Add([]byte(`{"hang":true,"hang_after_chunks":3,"delay_ms":1,"stop_reason":"max_tokens"}`))
	f.Add([]byte("{\"text\":\"\\u00e9\\ud83d\\ude00\"}\r\n\ufeff"))
	f.Add([]byte(`{"tool_calls":[{"name":"a","args":null}]} trailing`))
	f.Add([]byte(`{"reasoning":"r","redacted_thinking":"d","text":"t","stream_error":"Overloaded","stream_error_status":529,"fail_after_chunks":1}`))
	f.Add([]byte(`{"text":"t","cut":true,"fail_after_chunks":0,"usage":{"input_tokens":3,"cache_write_tokens":1}}`))
	f.Add([]byte(`{"stream_error":"x","cut":true,"hang":true}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := ParseScript(data)
		if err != nil {
			return
		}
		var lines []string
		for _, r := range rs {
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatalf("marshal %+v: %v", r, err)
			}
			lines = append(lines, string(b))
		}
		again, err := ParseScript([]byte(strings.Join(lines, "\n")))
		if err != nil {
			t.Fatalf("re-parse of %q: %v", lines, err)
		}
		if diff := cmp.Diff(rs, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

func TestPieces(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"{}", []string{"{", "}"}},
		{"héllo wörld", []string{"hél", "lo w", "örld"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, pieces(tt.in, textPieces)); diff != "" {
			t.Errorf("pieces(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
