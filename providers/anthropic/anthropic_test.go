package anthropic_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/anthropic"
	"github.com/clawseed/clawseed/providers/internal/adaptertest"
)

func userReq(text string) providers.Request {
	return providers.Request{Model: "claude-sonnet-4-5", Messages: []providers.Message{providers.UserText(text)}}
}

// SSE fragments of a small text answer.
const (
	sseStart = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
	sseBlock = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
	sseText  = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n"
	sseEnd   = "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	sseAnswer = sseStart + sseBlock + sseText + sseEnd
)

// wire describes the Messages API adapter to the shared tests.
var wire = adaptertest.Wire{
	// anthropic.Config has adaptertest.Config's fields.
	New:        func(c adaptertest.Config) adaptertest.Adapter { return anthropic.New(anthropic.Config(c)) },
	Model:      "claude-sonnet-4-5",
	NamesModel: true,
	Endpoint:   "/v1/messages",
	KeyHeader:  "X-Api-Key",
	Start:      sseStart + sseBlock,
	Text:       sseText,
	End:        sseEnd,
	Ping:       "event: ping\ndata: {\"type\": \"ping\"}\n\n",
	Forbidden: []string{"github.com/anthropics/anthropic-sdk-go", "github.com/anthropics/anthropic-sdk-go/option",
		"go.opentelemetry.io/otel", "github.com/openai/openai-go/v3"},
	GeneratedID: regexp.MustCompile(`toolu_[A-Z2-7]{16}`),
	Placeholder: "toolu_<generated>",
}

func TestTransport(t *testing.T) {
	t.Parallel()
	adaptertest.RunTransportTests(t, wire)
}

// TestHeadersAndEnvironment checks x-api-key, anthropic-version, the extra
// headers, the SSE Accept header, the User-Agent and the path for the base
// URL spellings users write, that no SDK telemetry header is sent, and that
// the ANTHROPIC_* variables the SDK's NewClient would read never reach a
// configured provider.
func TestHeadersAndEnvironment(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "token-from-env")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1/wrong")
	t.Setenv("ANTHROPIC_PROFILE", "missing-profile")

	tests := []struct {
		name   string
		apiKey string
		suffix string // appended to the server URL as base_url
		path   string // path the server must see
		want   map[string]string
	}{
		{"key", "sk-ant-cfg", "", "/v1/messages", map[string]string{"X-Api-Key": "sk-ant-cfg", "Anthropic-Version": "2023-06-01",
			"Anthropic-Beta": "b1", "Accept": "text/event-stream", "Authorization": "", "Traceparent": "", "Content-Type": "application/json",
			"User-Agent": "clawseed", "X-Stainless-Lang": "", "X-Stainless-Retry-Count": ""}},
		{"no key", "", "/", "/v1/messages", map[string]string{"X-Api-Key": "", "Authorization": "", "Anthropic-Beta": "b1"}},
		{"v1 suffix", "k", "/v1", "/v1/messages", map[string]string{"X-Api-Key": "k"}},
		{"full endpoint", "k", "/v1/messages", "/v1/messages", map[string]string{"X-Api-Key": "k"}},
		{"gateway prefix", "k", "/gw/anthropic/", "/gw/anthropic/v1/messages", map[string]string{"X-Api-Key": "k"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, got := adaptertest.RecordingServer(t, sseAnswer)
			p := anthropic.New(anthropic.Config{BaseURL: url + tt.suffix, APIKey: tt.apiKey,
				ExtraHeaders: map[string]string{"anthropic-beta": "b1"}})
			if _, err := adaptertest.Collect(p.Stream(t.Context(), userReq("hi"))); err != nil {
				t.Fatal(err)
			}
			s := <-got
			if s.Path != tt.path {
				t.Errorf("path = %q, want %q", s.Path, tt.path)
			}
			for k, want := range tt.want {
				if s.Header.Get(k) != want {
					t.Errorf("header %s = %q, want %q", k, s.Header.Get(k), want)
				}
			}
		})
	}
}

// TestEncodeErrorNamesProvider: a request that cannot be encoded fails
// before it is sent, with an error naming the provider entry.
func TestEncodeErrorNamesProvider(t *testing.T) {
	t.Parallel()
	p := anthropic.New(anthropic.Config{BaseURL: "http://127.0.0.1:1"})
	req := userReq("hi")
	req.Tools = []providers.ToolSpec{{Name: "bad", Schema: []byte(`{"type":`)}}
	_, err := adaptertest.Collect(p.Stream(t.Context(), req))
	pe, ok := errors.AsType[*providers.Error](err)
	if !ok || pe.Kind != providers.KindBadRequest || pe.Provider != "anthropic" || !strings.Contains(err.Error(), `"bad"`) {
		t.Fatalf("err = %v, want bad_request from anthropic naming the tool", err)
	}
}
