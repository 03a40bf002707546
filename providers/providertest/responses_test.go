package providertest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/openai"
	"github.com/clawseed/clawseed/providers/providertest"
)

// The field names below are those of openai-go/v3's responses package
// (which this module does not import: it pulls in a websocket client).

type rsEvent struct {
	name           string // the SSE event name
	Type           string `json:"type"`
	SequenceNumber int    `json:"sequence_number"`
	Delta          string `json:"delta"`
	Code           string `json:"code"`
	Message        string `json:"message"`
	Response       rsObj  `json:"response"`
	OutputIndex    int    `json:"output_index"`
	Item           rsOut  `json:"item"`
}

type rsObj struct {
	Status string `json:"status"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Output []rsOut `json:"output"`
	Usage  *struct {
		InputTokens        int `json:"input_tokens"`
		InputTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokens        int `json:"output_tokens"`
		OutputTokensDetails struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

type rsOut struct {
	Type             string  `json:"type"`
	ID               string  `json:"id"`
	CallID           string  `json:"call_id"`
	Name             string  `json:"name"`
	Arguments        string  `json:"arguments"`
	EncryptedContent *string `json:"encrypted_content"`
	Summary          []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
}

// rsItem is what a test compares of an output item.
type rsItem struct {
	Type, ID, Text, Encrypted, CallID, Name, Args string
}

func rsItems(r rsObj) []rsItem {
	var out []rsItem
	for _, it := range r.Output {
		item := rsItem{Type: it.Type, ID: it.ID, CallID: it.CallID, Name: it.Name, Args: it.Arguments}
		if it.EncryptedContent != nil {
			item.Encrypted = *it.EncryptedContent
		}
		switch {
		case it.Type == "reasoning" && len(it.Summary) > 0:
			item.Text = it.Summary[0].Text
		case it.Type == "message" && len(it.Content) > 0:
			item.Text = it.Content[0].Text
		}
		out = append(out, item)
	}
	return out
}

// rsBody is a request as the client sends it: store false, encrypted
// reasoning included.
func rsBody(stream bool) string {
	return `{"model":"gpt-test","input":"hi","store":false,"include":["reasoning.encrypted_content"],"stream":` +
		strconv.FormatBool(stream) + `}`
}

// rsStream posts a streamed request and decodes its events with the SSE
// decoder providers/openai uses; a non-200 answer returns its status and
// body.
func rsStream(t *testing.T, s *providertest.Server, body string) ([]rsEvent, int, string) {
	t.Helper()
	resp, err := http.Post(s.URL()+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, resp.StatusCode, string(b)
	}
	var events []rsEvent
	dec := ssestream.NewDecoder(resp)
	for dec.Next() {
		ev := rsEvent{name: dec.Event().Type}
		if err := json.Unmarshal(dec.Event().Data, &ev); err != nil {
			t.Fatalf("event %s: %v", ev.name, err)
		}
		if ev.name != ev.Type || ev.SequenceNumber != len(events) {
			t.Errorf("event %s: type %s, sequence_number %d, want %d", ev.name, ev.Type, ev.SequenceNumber, len(events))
		}
		events = append(events, ev)
	}
	if err := dec.Err(); err != nil {
		t.Fatal(err)
	}
	return events, resp.StatusCode, ""
}

// TestResponsesStream checks that the stream (its deltas and the
// response.completed object) and the whole response carry the scripted
// content, with encrypted reasoning and usage.
func TestResponsesStream(t *testing.T) {
	t.Parallel()
	script := providertest.Response{
		Reasoning: "Two files.", RedactedThinking: "opaque==", Text: "Reading.",
		ToolCalls: []providertest.Call{
			{Name: "file_read", Args: `{"path":"a.txt"}`},
			{ID: "call_custom", Name: "noargs", Args: `{}`},
		},
	}
	s := providertest.NewServer([]providertest.Response{script, script})
	defer s.Close()

	events, _, _ := rsStream(t, s, rsBody(true))
	var text, summary, args strings.Builder
	for _, ev := range events {
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
		case "response.reasoning_summary_text.delta":
			summary.WriteString(ev.Delta)
		case "response.function_call_arguments.delta":
			args.WriteString(ev.Delta)
		}
	}
	if text.String() != "Reading." || summary.String() != "Two files." || args.String() != `{"path":"a.txt"}{}` {
		t.Errorf("deltas: text %q, summary %q, arguments %q", text.String(), summary.String(), args.String())
	}
	final := events[len(events)-1]
	if final.Type != "response.completed" {
		t.Fatalf("last event %s", final.Type)
	}
	status, answer := post(t, s, rsBody(false))
	var whole rsObj
	if err := json.Unmarshal([]byte(answer), &whole); status != http.StatusOK || err != nil {
		t.Fatalf("HTTP %d %s: %v", status, answer, err)
	}
	want := func(n string, call int) []rsItem {
		rs0, rs1 := "rs_providertest_"+n+"_0", "rs_providertest_"+n+"_1"
		return []rsItem{
			{Type: "reasoning", ID: rs0, Text: "Two files.", Encrypted: providertest.EncryptedReasoning(rs0, "Two files.", false)},
			{Type: "reasoning", ID: rs1, Encrypted: providertest.EncryptedReasoning(rs1, "opaque==", true)},
			{Type: "message", ID: "msg_providertest_" + n + "_2", Text: "Reading."},
			{Type: "function_call", ID: "fc_providertest_" + n + "_3", CallID: "call_" + strconv.Itoa(call), Name: "file_read", Args: `{"path":"a.txt"}`},
			{Type: "function_call", ID: "fc_providertest_" + n + "_4", CallID: "call_custom", Name: "noargs", Args: `{}`},
		}
	}
	if diff := cmp.Diff(want("1", 1), rsItems(final.Response)); diff != "" {
		t.Errorf("streamed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want("2", 2), rsItems(whole)); diff != "" {
		t.Errorf("not streamed (-want +got):\n%s", diff)
	}
	for _, r := range []rsObj{final.Response, whole} {
		if r.Status != "completed" || r.Usage == nil || r.Usage.InputTokens == 0 || r.Usage.OutputTokens == 0 ||
			r.Usage.OutputTokensDetails.ReasoningTokens == 0 || r.Usage.TotalTokens != r.Usage.InputTokens+r.Usage.OutputTokens {
			t.Errorf("status %q, usage %+v: want completed and emulated usage", r.Status, r.Usage)
		}
	}
	for i, rec := range s.Recorded() {
		if rec.Wire != providertest.WireResponses || rec.Path != "/v1/responses" {
			t.Errorf("request %d: wire %s, path %s", i+1, rec.Wire, rec.Path)
		}
	}
}

// TestResponsesIncomplete: without include, reasoning items carry no
// encrypted content; a max_tokens stop ends with response.incomplete.
func TestResponsesIncomplete(t *testing.T) {
	t.Parallel()
	s := providertest.NewServer([]providertest.Response{{Reasoning: "r", Text: "cut", StopReason: "max_tokens"}})
	defer s.Close()
	events, _, _ := rsStream(t, s, `{"model":"m","input":"hi","stream":true}`)
	last := events[len(events)-1]
	if last.Type != "response.incomplete" || last.Response.Status != "incomplete" || last.Response.IncompleteDetails == nil ||
		last.Response.IncompleteDetails.Reason != "max_output_tokens" {
		t.Errorf("last event %s, status %s, details %+v", last.Type, last.Response.Status, last.Response.IncompleteDetails)
	}
	if enc := last.Response.Output[0].EncryptedContent; enc != nil {
		t.Errorf("encrypted_content %q without include", *enc)
	}
}

// TestResponsesErrors checks HTTP errors and the events that end a
// failing stream.
func TestResponsesErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		resp   providertest.Response
		status int    // HTTP error, or 0
		event  string // the last event of a stream
		code   string
	}{
		{"rate limited", providertest.Response{Status: 429, RetryAfter: "2"}, 429, "", "rate_limit_exceeded"},
		{"context length", providertest.Response{Status: 400, Error: "Your input exceeds the context window of this model."}, 400, "", "context_length_exceeded"},
		{"server error mid-stream", providertest.Response{Text: "partial", StreamError: "boom", FailAfterChunks: 1}, 0, "response.failed", "server_error"},
		{"rate limit mid-stream", providertest.Response{StreamError: "slow down", StreamErrorStatus: 429}, 0, "response.failed", "rate_limit_exceeded"},
		{"context mid-stream", providertest.Response{StreamError: "context length exceeded"}, 0, "response.failed", "context_length_exceeded"},
		{"client error mid-stream", providertest.Response{StreamError: "bad", StreamErrorStatus: 400}, 0, "error", "invalid_request_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := providertest.NewServer([]providertest.Response{tt.resp})
			defer s.Close()
			events, status, body := rsStream(t, s, rsBody(true))
			if tt.status != 0 {
				var e struct {
					Error struct {
						Code string `json:"code"`
					} `json:"error"`
				}
				if err := json.Unmarshal([]byte(body), &e); status != tt.status || err != nil || e.Error.Code != tt.code {
					t.Errorf("HTTP %d %s, want %d with code %s", status, body, tt.status, tt.code)
				}
				return
			}
			last := events[len(events)-1]
			code := last.Code
			if last.Type == "response.failed" && last.Response.Error != nil {
				code = last.Response.Error.Code
			}
			if last.Type != tt.event || code != tt.code {
				t.Errorf("last event %s with code %q; want %s with %s", last.Type, code, tt.event, tt.code)
			}
		})
	}
}

// post sends a raw Responses request and returns the status and body.
func post(t *testing.T, s *providertest.Server, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(s.URL()+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestResponsesReasoningEcho: a reasoning item the server sent is accepted
// back unchanged; one without its encrypted content, with altered content
// or summary, or with another item's content is refused with HTTP 400
// without taking a scripted answer, and Check reports the same.
func TestResponsesReasoningEcho(t *testing.T) {
	t.Parallel()
	id := "rs_providertest_1_0"
	enc := providertest.EncryptedReasoning(id, "Think.", false)
	item := func(id, text, enc string) string {
		m := map[string]any{"type": "reasoning", "id": id, "summary": []map[string]string{{"type": "summary_text", "text": text}}}
		if enc != "" {
			m["encrypted_content"] = enc
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	tests := []struct {
		name, item string
		refused    string // in the error message; "" = accepted
	}{
		{"unchanged", item(id, "Think.", enc), ""},
		{"no encrypted content", item(id, "Think.", ""), "not persisted when `store` is set to false"},
		{"altered content", item(id, "Think.", strings.Replace(enc, "fakeenc-e", "fakeenc-f", 1)), "could not be verified"},
		{"foreign content", item(id, "Think.", "gAAAAABo-opaque"), "could not be verified"},
		{"altered summary", item(id, "Think again.", enc), "summary altered"},
		{"another item's content", item("rs_other", "Think.", enc), "carries the encrypted content of item " + id},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := providertest.NewServer([]providertest.Response{{Text: "ok"}})
			defer s.Close()
			body := `{"model":"m","store":false,"input":[{"role":"user","content":"hi"},` + tt.item +
				`,{"type":"message","role":"assistant","content":[{"type":"output_text","text":"yes"}]},{"role":"user","content":"go on"}]}`
			status, answer := post(t, s, body)
			v, err := providertest.ReadRequest(providertest.WireResponses, []byte(body))
			if err != nil {
				t.Fatal(err)
			}
			checkErr := v.Check()
			if tt.refused == "" {
				if status != http.StatusOK || checkErr != nil {
					t.Errorf("HTTP %d %s; Check: %v", status, answer, checkErr)
				}
				return
			}
			if status != http.StatusBadRequest || !strings.Contains(answer, tt.refused) || !strings.Contains(answer, "invalid_request_error") {
				t.Errorf("HTTP %d %s: want 400 saying %q", status, answer, tt.refused)
			}
			if checkErr == nil || !strings.Contains(checkErr.Error(), strings.Split(tt.refused, " `")[0]) {
				t.Errorf("Check: %v, want %q", checkErr, tt.refused)
			}
			// The scripted answer is still there for the next request.
			if status, answer := post(t, s, `{"model":"m","input":"hi"}`); status != http.StatusOK || !strings.Contains(answer, `"ok"`) {
				t.Errorf("next request: HTTP %d %s", status, answer)
			}
		})
	}
}

// TestResponsesReadRequest reads a Responses request wire-neutrally.
func TestResponsesReadRequest(t *testing.T) {
	t.Parallel()
	enc := providertest.EncryptedReasoning("rs_1", "Plan.", false)
	body := `{"model":"gpt-test","instructions":"You are helpful.","tools":[{"type":"function","name":"file_read","parameters":{},"strict":false},{"type":"function","name":"glob"}],
"input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"Skill: x"}]},
{"role":"user","content":"hi"},
{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Plan."}],"encrypted_content":"` + enc + `"},
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Reading."}]},
{"type":"function_call","call_id":"call_1","name":"file_read","arguments":"{\"path\":\"a\"}"},
{"type":"function_call_output","call_id":"call_1","output":"line1\nline2"},
{"type":"message","role":"user","content":[{"type":"input_text","text":"more"},{"type":"input_image","image_url":"data:"}]}]}`
	v, err := providertest.ReadRequest(providertest.WireResponses, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if v.System != "You are helpful.\n\nSkill: x" || !v.HasSystem || len(v.SystemBlocks) != 2 {
		t.Errorf("system %q (%d blocks)", v.System, len(v.SystemBlocks))
	}
	if diff := cmp.Diff([]string{"file_read", "glob"}, v.Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	want := "user: hi\nthinking: Plan.\nassistant: Reading.\ncall call_1 file_read {\"path\":\"a\"}\ntool call_1: line1\\nline2\nuser: more\nuser: [input_image]\n"
	if diff := cmp.Diff(want, v.Transcript()); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if err := v.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
}

// TestCheckResponses lists what Check rejects on the Responses wire.
func TestCheckResponses(t *testing.T) {
	t.Parallel()
	call := func(id string) string {
		return `{"type":"function_call","call_id":"` + id + `","name":"f","arguments":"{}"}`
	}
	output := func(id string) string { return `{"type":"function_call_output","call_id":"` + id + `","output":"ok"}` }
	tests := map[string]struct {
		items []string
		want  string
	}{
		"output without call":   {[]string{output("call_1")}, "no function_call found for function_call_output with call_id call_1"},
		"output before call":    {[]string{output("call_1"), call("call_1")}, "no function_call found"},
		"call without output":   {[]string{call("call_1"), call("call_2"), output("call_2")}, "no function_call_output found for function calls [call_1]"},
		"answered twice":        {[]string{call("call_1"), output("call_1"), output("call_1")}, "answered twice"},
		"duplicate call id":     {[]string{call("call_1"), output("call_1"), call("call_1"), output("call_1")}, "duplicate function_call call_id call_1"},
		"nameless call":         {[]string{`{"type":"function_call","call_id":"c","arguments":"{}"}`, output("c")}, "without a name"},
		"unverifiable":          {[]string{`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"x"}`}, "could not be verified"},
		"parallel calls, later": {[]string{call("a"), call("b"), output("b"), output("a")}, ""},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			b.WriteString(`{"model":"m","input":[{"role":"user","content":"hi"}`)
			for _, it := range tt.items {
				b.WriteString("," + it)
			}
			b.WriteString("]}")
			v, err := providertest.ReadRequest(providertest.WireResponses, b.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			err = v.Check()
			if tt.want == "" {
				if err != nil {
					t.Errorf("Check: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check: %v, want %q", err, tt.want)
			}
		})
	}
}

// TestResponsesChunks checks the chunk rule on this wire: reasoning summary
// deltas, the redacted reasoning item, text deltas, and per function call
// its output_item.added and argument deltas are the chunks that
// fail_after_chunks counts.
func TestResponsesChunks(t *testing.T) {
	t.Parallel()
	base := providertest.Response{Reasoning: "abc", RedactedThinking: "zz", Text: "xyz",
		ToolCalls: []providertest.Call{{Name: "f", Args: `{"a":1}`}}, StreamError: "boom"}
	const total = 3 + 1 + 3 + 1 + 3
	for k := 0; k <= total+1; k++ {
		resp := base
		resp.FailAfterChunks = k
		s := providertest.NewServer([]providertest.Response{resp})
		events, _, _ := rsStream(t, s, rsBody(true))
		s.Close()
		chunks := 0
		for _, ev := range events {
			// The redacted reasoning (output 1) has no deltas: its
			// opening is its chunk.
			opening := ev.Type == "response.output_item.added" &&
				(ev.Item.Type == "function_call" || ev.Item.Type == "reasoning" && ev.OutputIndex == 1)
			if strings.HasSuffix(ev.Type, ".delta") || opening {
				chunks++
			}
		}
		if want := min(k, total); chunks != want || events[len(events)-1].Type != "response.failed" {
			t.Errorf("fail_after_chunks %d: %d chunks then %s, want %d then response.failed", k, chunks, events[len(events)-1].Type, want)
		}
	}
}

// TestResponsesMatchesModel checks the wire end to end: for the same
// scripted response, the Server on the Responses wire decoded by
// providers/openai yields the events the in-process Model yields (the
// reasoning items the adapter attaches aside).
func TestResponsesMatchesModel(t *testing.T) {
	t.Parallel()
	usage := &providers.Usage{InputTokens: 100, OutputTokens: 20, CachedInputTokens: 64, ReasoningTokens: 5}
	tests := map[string]providertest.Response{
		"text":      {Text: "Hello, wörld! How are you?", Usage: usage},
		"reasoning": {Reasoning: "Let me think about it.", Text: "42", Usage: usage},
		"parallel split tool calls": {Text: "Reading.", Usage: usage, ToolCalls: []providertest.Call{
			{Name: "file_read", Args: `{"path":"a.txt"}`},
			{Name: "glob_search", Args: `{"pattern":"**/*.go","path":"."}`},
			{ID: "call_custom", Name: "calculator", Args: `{}`},
		}},
		"max tokens": {Text: "cut", StopReason: "max_tokens", Usage: usage},
		"empty":      {Usage: usage},
	}
	for name, resp := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, err := drain(providertest.NewModel(resp).Stream(t.Context(), req("x")))
			if err != nil {
				t.Fatal(err)
			}
			s := providertest.NewServer([]providertest.Response{resp})
			defer s.Close()
			p := openai.New(openai.Config{Name: "fake", BaseURL: s.URL(), APIKey: "sk-test", Model: "gpt-5", Wire: openai.WireResponses})
			r := req("x")
			r.Model = "gpt-5" // a reasoning model: encrypted reasoning is asked for
			got, err := drain(p.Stream(t.Context(), r))
			if err != nil {
				t.Fatal(err)
			}
			// The item that closes a reasoning part is the wire's own (the
			// Model, like the Anthropic signature, has none).
			var items []providers.ReasoningItem
			var events []providers.Event
			for _, ev := range got {
				if ev.Item != nil {
					items = append(items, *ev.Item)
					if ev.Text == "" {
						continue
					}
				}
				events = append(events, ev)
			}
			if diff := cmp.Diff(want, events, cmpopts.IgnoreFields(providers.Event{}, "Item")); diff != "" {
				t.Errorf("server+adapter vs model (-model +server):\n%s", diff)
			}
			if rec := s.Recorded(); len(rec) != 1 || rec[0].Wire != providertest.WireResponses {
				t.Errorf("requests %+v", rec)
			}
			if resp.Reasoning != "" {
				id := "rs_providertest_1_0"
				if len(items) != 1 || items[0].ID != id || items[0].Encrypted != providertest.EncryptedReasoning(id, resp.Reasoning, false) {
					t.Errorf("reasoning items %+v: want %s with its encrypted content", items, id)
				}
			}
		})
	}
}
