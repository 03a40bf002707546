package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
)

func TestParseModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id                string
		family            string
		major, minor      int
		thinking          thinkingMode
		temperature       bool
		defaultMax, limit int
	}{
		{"claude-3-haiku-20240307", "haiku", 3, 0, thinkingNone, true, 4096, 0},
		{"claude-3-opus-latest", "opus", 3, 0, thinkingNone, true, 4096, 0},
		{"claude-3-5-haiku-latest", "haiku", 3, 5, thinkingNone, true, 8192, 0},
		{"claude-3-5-sonnet-20241022", "sonnet", 3, 5, thinkingNone, true, 8192, 0},
		{"claude-3-7-sonnet-20250219", "sonnet", 3, 7, thinkingBudget, true, 32000, 64000},
		{"claude-sonnet-4-20250514", "sonnet", 4, 0, thinkingBudget, true, 32000, 64000},
		{"claude-sonnet-4-0", "sonnet", 4, 0, thinkingBudget, true, 32000, 64000},
		{"claude-opus-4-0", "opus", 4, 0, thinkingBudget, true, 32000, 32000},
		{"claude-opus-4-1-20250805", "opus", 4, 1, thinkingBudget, true, 32000, 32000},
		{"claude-sonnet-4-5", "sonnet", 4, 5, thinkingBudget, true, 32000, 64000},
		{"claude-haiku-4-5-20251001", "haiku", 4, 5, thinkingBudget, true, 32000, 64000},
		{"claude-opus-4-5-20251101", "opus", 4, 5, thinkingBudget, true, 32000, 64000},
		{"claude-opus-4-6", "opus", 4, 6, thinkingAdaptive, true, 32000, 0},
		{"claude-sonnet-4-6", "sonnet", 4, 6, thinkingAdaptive, true, 32000, 0},
		{"claude-opus-4-7", "opus", 4, 7, thinkingAdaptive, false, 32000, 0},
		{"claude-opus-4-8", "opus", 4, 8, thinkingAdaptive, false, 32000, 0},
		{"claude-sonnet-5", "sonnet", 5, 0, thinkingAdaptive, false, 32000, 0},
		{"claude-opus-5-5", "opus", 5, 5, thinkingAdaptive, false, 32000, 0},
		{"claude-fable-5-1", "fable", 5, 1, thinkingAdaptive, false, 32000, 0},
		{"claude-haiku-5-5", "haiku", 5, 5, thinkingAdaptive, false, 32000, 0},
		{"claude-mythos-preview", "mythos", 0, 0, thinkingAdaptive, false, 32000, 0},
		// Other spellings: routed, Bedrock, Vertex, dotted, upper case.
		{"anthropic/claude-sonnet-4.5", "sonnet", 4, 5, thinkingBudget, true, 32000, 64000},
		{"us.anthropic.claude-haiku-4-5-20251001-v1:0", "haiku", 4, 5, thinkingBudget, true, 32000, 64000},
		{"claude-haiku-4-5@20251001", "haiku", 4, 5, thinkingBudget, true, 32000, 64000},
		{"Claude-Opus-4-7", "opus", 4, 7, thinkingAdaptive, false, 32000, 0},
		// Not Claude ids: a gateway's alias gets nothing model-specific.
		{"deepseek-chat", "", 0, 0, thinkingNone, true, 8192, 0},
		{"", "", 0, 0, thinkingNone, true, 8192, 0},
	}
	for _, tt := range tests {
		m := parseModel(tt.id)
		if m.family != tt.family || m.major != tt.major || m.minor != tt.minor {
			t.Errorf("parseModel(%q) = %+v, want %s %d.%d", tt.id, m, tt.family, tt.major, tt.minor)
		}
		if got := m.thinking(); got != tt.thinking {
			t.Errorf("%q: thinking = %v, want %v", tt.id, got, tt.thinking)
		}
		if got := m.acceptsTemperature(); got != tt.temperature {
			t.Errorf("%q: acceptsTemperature = %v, want %v", tt.id, got, tt.temperature)
		}
		if got := m.defaultMaxTokens(); got != tt.defaultMax {
			t.Errorf("%q: defaultMaxTokens = %d, want %d", tt.id, got, tt.defaultMax)
		}
		if got := m.outputLimit(); got != tt.limit {
			t.Errorf("%q: outputLimit = %d, want %d", tt.id, got, tt.limit)
		}
	}
}

func TestBudgetFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		effort            string
		maxTokens, limit  int
		budget, newTokens int
	}{
		{"low", 32000, 64000, 4000, 32000},     // fits as configured
		{"medium", 16384, 64000, 10000, 18192}, // max_tokens raised for the answer
		{"high", 16384, 64000, 32000, 40192},   // raised further
		{"high", 16384, 32000, 23808, 32000},   // Opus 4.1: capped, budget cut
		{"max", 1000, 64000, 55808, 64000},     // capped at the model's limit
		{"minimal", 4096, 64000, 1024, 9216},   // the API's minimum budget
		{"turbo", 32000, 64000, 10000, 32000},  // unknown effort: medium
		{"minimal", 4096, 8192, 0, 4096},       // no room: no thinking, cap unchanged
		{"high", 200000, 64000, 32000, 200000}, // a larger cap is kept
	}
	for _, tt := range tests {
		b, n := budgetFor(tt.effort, tt.maxTokens, tt.limit)
		if b != tt.budget || n != tt.newTokens {
			t.Errorf("budgetFor(%q, %d, %d) = %d, %d; want %d, %d", tt.effort, tt.maxTokens, tt.limit, b, n, tt.budget, tt.newTokens)
		}
		if b > 0 && b >= n {
			t.Errorf("budget %d not below max_tokens %d", b, n)
		}
	}
}

// TestPlanMaxTokens: the request's cap wins over the configuration's, which
// wins over the model's default.
func TestPlanMaxTokens(t *testing.T) {
	t.Parallel()
	info := parseModel("claude-3-5-haiku-latest")
	for _, tt := range []struct{ req, cfg, want int }{{0, 0, 8192}, {0, 1000, 1000}, {500, 1000, 500}} {
		p := New(Config{MaxTokens: tt.cfg})
		if got := p.plan(providers.Request{MaxTokens: tt.req}, info, nil).maxTokens; got != tt.want {
			t.Errorf("req %d cfg %d: max_tokens %d, want %d", tt.req, tt.cfg, got, tt.want)
		}
	}
}

func TestThinkingOff(t *testing.T) {
	t.Parallel()
	p := New(Config{ReasoningEffort: "high"})
	info := parseModel("claude-sonnet-4-5")
	if pl := p.plan(providers.Request{ReasoningEffort: "none"}, info, nil); pl.budget != 0 || pl.effort != "" {
		t.Errorf(`effort "none" still thinks: %+v`, pl)
	}
	if pl := p.plan(providers.Request{}, info, nil); pl.budget == 0 {
		t.Errorf("the configured effort is not used: %+v", pl)
	}
}

func TestErrorBody(t *testing.T) {
	t.Parallel()
	tests := []struct{ body, typ, msg string }{
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "overloaded_error", "Overloaded"},
		{`{"error":{"message":"openai-style","type":"invalid_request_error"}}`, "invalid_request_error", "openai-style"},
		{`{"error":"plain"}`, "", "plain"},
		{`{"message":"top"}`, "", "top"},
		{"  upstream down \n", "", "upstream down"},
		{`[]`, "", "[]"},
	}
	for _, tt := range tests {
		e := errorBody([]byte(tt.body))
		if e.Type != tt.typ || e.Message != tt.msg {
			t.Errorf("errorBody(%s) = %+v, want %q %q", tt.body, e, tt.typ, tt.msg)
		}
	}
}

// TestAppendString checks the hand-written escaping against encoding/json:
// both decode to the same string, invalid UTF-8 included.
func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", `quote " backslash \`, "\n\r\t\x00\x1f\x7f", "<&>", "é ü 日本 🙂", "\u2028\u2029", "bad \xff\xfe utf8 \xe2\x82"} {
		checkAppendString(t, s)
	}
}

func checkAppendString(t *testing.T, s string) {
	t.Helper()
	got := appendString(nil, s)
	if !json.Valid(got) {
		t.Fatalf("appendString(%q) = %s: not valid JSON", s, got)
	}
	want, _ := json.Marshal(s)
	var a, b string
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &b); err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("appendString(%q) decodes to %q, encoding/json's to %q", s, a, b)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\n\u2028", "\xff", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkAppendString(t, s) })
}

// TestSSEReader covers the framing cases of text/event-stream.
func TestSSEReader(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("y", 40<<10) // longer than the bufio buffer
	tests := []struct {
		name, in string
		want     []string // "event|data"
	}{
		{"lf", "event: a\ndata: 1\n\nevent: b\ndata: 2\n\n", []string{"a|1", "b|2"}},
		{"crlf", "event: a\r\ndata: 1\r\n\r\n", []string{"a|1"}},
		{"multi-line data", "data: x\ndata:\ndata: y\n\n", []string{"|x\n\ny"}},
		{"comments and ids", ": keep-alive\nid: 7\nretry: 10\ndata: z\n\n", []string{"|z"}},
		{"no space after colon", "event:a\ndata:1\n\n", []string{"a|1"}},
		{"last event without blank line", "data: 1\n\ndata: 2", []string{"|1", "|2"}},
		{"blank lines between", "\n\n\ndata: 1\n\n\n", []string{"|1"}},
		{"long line", "data: " + long + "\n\n", []string{"|" + long}},
	}
	for _, tt := range tests {
		r := newSSEReader(strings.NewReader(tt.in))
		var got []string
		for {
			ev, data, err := r.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			got = append(got, string(ev)+"|"+string(data))
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestSSEReaderBounded(t *testing.T) {
	t.Parallel()
	r := newSSEReader(io.MultiReader(strings.NewReader("data: "), bytes.NewReader(bytes.Repeat([]byte("z"), maxEventSize+1))))
	if _, _, err := r.next(); !errors.Is(err, errEventTooLarge) {
		t.Fatalf("err = %v, want errEventTooLarge", err)
	}
}

// TestWireID: ids from other vendors are mapped to what the API accepts,
// the same way for a call and its result.
func TestWireID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"toolu_01A-b": "toolu_01A-b", "call:1.2": "call_1_2", "": "unnamed_call", "é": "__"} {
		if got := wireID(in); got != want {
			t.Errorf("wireID(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEncodeMinimal: without a system prompt, tools or a usable
// temperature the body has none of those keys, and it is valid JSON.
func TestEncodeMinimal(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, req := range []providers.Request{
		{Model: "claude-3-5-haiku-latest", Messages: []providers.Message{providers.UserText("hi")}, Temperature: &nan},
		{Model: "claude-3-5-haiku-latest", SystemBlocks: []string{" ", "\n"}, System: "not used", Messages: []providers.Message{providers.UserText("hi")}},
	} {
		body, err := New(Config{}).EncodeRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		for _, k := range []string{"system", "tools", "temperature", "thinking"} {
			if _, ok := v[k]; ok {
				t.Errorf("%s: unexpected %q", body, k)
			}
		}
		if v["max_tokens"] != 8192.0 || v["stream"] != true {
			t.Errorf("%s: max_tokens or stream wrong", body)
		}
	}
}
