package providertest_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/providertest"
)

// sdkClient is the official SDK pointed at s, as the adapter configures it
// (base URL …/v1, retries off).
func sdkClient(s *providertest.Server) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(s.URL()), option.WithAPIKey("sk-ant-test"), option.WithMaxRetries(0))
}

func sdkParams(text string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model: "claude-test", MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(text))},
	}
}

// sdkBlock is what a test compares of a content block.
type sdkBlock struct {
	Type, Text, Thinking, Signature, Data, ID, Name, Input string
}

func sdkBlocks(m anthropic.Message) []sdkBlock {
	var out []sdkBlock
	for _, b := range m.Content {
		out = append(out, sdkBlock{Type: b.Type, Text: b.Text, Thinking: b.Thinking, Signature: b.Signature,
			Data: b.Data, ID: b.ID, Name: b.Name, Input: string(b.Input)})
	}
	return out
}

// TestAnthropicSDK checks that the SDK reads both the stream (accumulated
// event by event) and the whole message to the same scripted content, on
// the path the SDK builds from a …/v1 base URL.
func TestAnthropicSDK(t *testing.T) {
	t.Parallel()
	script := providertest.Response{
		Reasoning: "Two files.", RedactedThinking: "opaque==", Text: "Reading.",
		ToolCalls: []providertest.Call{
			{Name: "file_read", Args: `{"path":"a.txt"}`},
			{Name: "glob_search", Args: `{"pattern":"**/*.go","path":"."}`},
			{ID: "toolu_x", Name: "noargs"},
		},
	}
	s := providertest.NewServer([]providertest.Response{script, script})
	defer s.Close()
	client := sdkClient(s)

	var streamed anthropic.Message
	stream := client.Messages.NewStreaming(t.Context(), sdkParams("hi"))
	for stream.Next() {
		if err := streamed.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	whole, err := client.Messages.New(t.Context(), sdkParams("hi"))
	if err != nil {
		t.Fatal(err)
	}
	want := []sdkBlock{
		{Type: "thinking", Thinking: "Two files.", Signature: providertest.ThinkingSignature("Two files.")},
		{Type: "redacted_thinking", Data: "opaque=="},
		{Type: "text", Text: "Reading."},
		{Type: "tool_use", ID: "call_1", Name: "file_read", Input: `{"path":"a.txt"}`},
		{Type: "tool_use", ID: "call_2", Name: "glob_search", Input: `{"pattern":"**/*.go","path":"."}`},
		{Type: "tool_use", ID: "toolu_x", Name: "noargs", Input: `{}`},
	}
	if diff := cmp.Diff(want, sdkBlocks(streamed)); diff != "" {
		t.Errorf("streamed (-want +got):\n%s", diff)
	}
	want[3].ID, want[4].ID = "call_3", "call_4" // ids count across the script
	if diff := cmp.Diff(want, sdkBlocks(*whole)); diff != "" {
		t.Errorf("not streamed (-want +got):\n%s", diff)
	}
	for _, m := range []anthropic.Message{streamed, *whole} {
		if m.StopReason != anthropic.StopReasonToolUse || m.Usage.OutputTokens == 0 || m.Usage.InputTokens == 0 {
			t.Errorf("stop %q, usage %+v: want tool_use and emulated usage", m.StopReason, m.Usage)
		}
	}
	for i, rec := range s.Recorded() {
		if rec.Wire != providertest.WireAnthropic || rec.Path != "/v1/v1/messages" ||
			rec.Header.Get("X-Api-Key") != "sk-ant-test" || rec.Header.Get("Anthropic-Version") == "" {
			t.Errorf("request %d: wire %s, path %s, headers %v", i+1, rec.Wire, rec.Path, rec.Header)
		}
	}
}

// TestAnthropicSDKErrors checks the SDK's view of scripted failures.
func TestAnthropicSDKErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		resp   providertest.Response
		status int
		typ    string // error type in the body, "" for none
		retry  string
		text   string // streamed text before the failure
		msg    string // part of the error text
	}{
		{"overloaded", providertest.Response{Status: 529, RetryAfter: "2"}, 529, "overloaded_error", "2", "", "Overloaded"},
		{"rate limited", providertest.Response{Status: 429, Error: "slow down", RetryAfter: "7"}, 429, "rate_limit_error", "7", "", "slow down"},
		{"context", providertest.Response{Status: 400, Error: "prompt is too long: 5000 tokens > 4096 maximum"}, 400, "invalid_request_error", "", "", "prompt is too long"},
		{"auth", providertest.Response{Status: 401}, 401, "authentication_error", "", "", "Unauthorized"},
		{"mid-stream", providertest.Response{Text: "Partial answer", StreamError: "Overloaded", FailAfterChunks: 1}, 200, "overloaded_error", "", "Part", "Overloaded"},
		{"mid-stream api_error", providertest.Response{Text: "abc", StreamError: "Internal", StreamErrorStatus: 500, FailAfterChunks: 9}, 200, "api_error", "", "abc", "Internal"},
		{"cut", providertest.Response{Text: "Partial answer", Cut: true, FailAfterChunks: 2}, 0, "", "", "Partial a", "EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := providertest.NewServer([]providertest.Response{tt.resp})
			defer s.Close()
			client := sdkClient(s)
			stream := client.Messages.NewStreaming(t.Context(), sdkParams("hi"))
			var text strings.Builder
			for stream.Next() {
				ev := stream.Current()
				if ev.Type == "content_block_delta" {
					text.WriteString(ev.Delta.Text)
				}
			}
			err := stream.Err()
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want one mentioning %q", err, tt.msg)
			}
			if text.String() != tt.text {
				t.Errorf("streamed text %q, want %q", text.String(), tt.text)
			}
			apiErr, ok := errors.AsType[*anthropic.Error](err)
			if tt.typ == "" {
				return
			}
			if !ok {
				t.Fatalf("err = %T %v, want *anthropic.Error", err, err)
			}
			var body struct {
				Type  string `json:"type"`
				Error struct {
					Type string `json:"type"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(apiErr.RawJSON()), &body); err != nil {
				t.Fatal(err)
			}
			got := []any{apiErr.StatusCode, body.Type, body.Error.Type}
			if diff := cmp.Diff([]any{tt.status, "error", tt.typ}, got); diff != "" {
				t.Errorf("status, type, error type (-want +got):\n%s", diff)
			}
			if tt.retry != "" && apiErr.Response.Header.Get("Retry-After") != tt.retry {
				t.Errorf("Retry-After = %q, want %q", apiErr.Response.Header.Get("Retry-After"), tt.retry)
			}
		})
	}
}

// TestAnthropicHangCancel cancels a stream hanging after its first text
// piece: the server sees the disconnect.
func TestAnthropicHangCancel(t *testing.T) {
	t.Parallel()
	s := providertest.NewServer([]providertest.Response{{Text: "partial answer", HangAfterChunks: 1}})
	defer s.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	client := sdkClient(s)
	stream := client.Messages.NewStreaming(ctx, sdkParams("hi"))
	var text string
	for stream.Next() {
		if ev := stream.Current(); ev.Type == "content_block_delta" {
			text += ev.Delta.Text
			cancel()
		}
	}
	if !errors.Is(stream.Err(), context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", stream.Err())
	}
	if text != "part" {
		t.Errorf("text before the hang = %q, want %q", text, "part")
	}
	if err := s.WaitDisconnects(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
}

// TestModelFailures checks that the in-process Model fails the way the
// adapters report the same script: content first, then the error.
func TestModelFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		resp providertest.Response
		want []providers.Event
		kind providers.ErrorKind
		code int
		msg  string
	}{
		{"stream error before content", providertest.Response{Text: "abc", StreamError: "Overloaded"},
			nil, providers.KindTransient, 0, "Overloaded"},
		{"stream error status", providertest.Response{Text: "abc", StreamError: "slow", StreamErrorStatus: 429, FailAfterChunks: 2},
			[]providers.Event{textEv("a"), textEv("b")}, providers.KindRateLimited, 429, "slow"},
		{"stream error context", providertest.Response{Text: "abc", StreamError: "prompt is too long: 9 > 8", FailAfterChunks: 99},
			[]providers.Event{textEv("a"), textEv("b"), textEv("c")}, providers.KindContextLength, 0, "prompt is too long: 9 > 8"},
		{"cut", providertest.Response{Reasoning: "r", RedactedThinking: "d", Text: "abc", Cut: true, FailAfterChunks: 2},
			[]providers.Event{{Type: providers.EventReasoningDelta, Text: "r"}, {Type: providers.EventReasoningDelta, Redacted: "d"}},
			providers.KindTransient, 0, "stream ended before the response was complete"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := drain(providertest.NewModel(tt.resp).Stream(t.Context(), req("x")))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			pe, ok := errors.AsType[*providers.Error](err)
			if !ok {
				t.Fatalf("err = %v, want *providers.Error", err)
			}
			if diff := cmp.Diff([]any{tt.kind, tt.code, tt.msg}, []any{pe.Kind, pe.StatusCode, pe.Message}); diff != "" {
				t.Errorf("kind, status, message (-want +got):\n%s", diff)
			}
		})
	}
}
