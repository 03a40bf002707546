// Package openai adapts the OpenAI Chat Completions API — and every server
// that speaks it: OpenRouter, DeepSeek, Groq, Mistral, xAI, Together,
// Fireworks, Gemini's compatible endpoint, Azure, Ollama, LM Studio, vLLM — to
// [providers.Streamer], and OpenAI's Responses API beside it
// ([WireResponses]: responses_*.go).
//
// The JSON body is written here (see [Provider.EncodeRequest]) and posted
// with net/http: the bearer key, the configured extra headers and nothing
// from the environment (the SDK's NewClient would read OPENAI_API_KEY,
// OPENAI_BASE_URL and friends and send OpenAI's key to any compatible
// server). There are no retries here because [providers.Reliable] owns retry
// and fallback, and redirects are followed only within the base URL's
// origin. The event stream is split by openai-go/v3's ssestream package and
// decoded here: tool calls are accumulated by index and vendor fields
// (reasoning_content, reasoning, prompt_cache_hit_tokens) are read from the
// raw chunks.
//
// openai-go/v3 stays the library for this wire, but its root package is
// deliberately not imported (issue 13, start-up cost): the adapter only ever
// used its client as an HTTP carrier, and importing it initialises the whole
// generated API surface (responses, realtime, webhooks, …) — about 3 ms and
// 1,900 allocations at every start of clawseed, before the first request,
// and 18 MB of the release binary. Only the light ssestream subpackage is used;
// TestNoSDKRootPackage keeps it that way.
package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/internal/httppost"
)

// DefaultBaseURL is used when [Config.BaseURL] is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// A Wire is one of the two APIs a [Provider] speaks.
type Wire string

// The two APIs.
const (
	// WireChat is Chat Completions (POST {base}/chat/completions), which
	// every compatible server speaks.
	WireChat Wire = "chat"
	// WireResponses is the Responses API (POST {base}/responses), OpenAI's
	// current one: reasoning items travel between turns encrypted.
	WireResponses Wire = "responses"
)

// A Config describes one OpenAI-compatible endpoint.
type Config struct {
	// Name identifies the entry in errors (providers.Error.Provider);
	// "openai" when empty.
	Name string
	// BaseURL is the API root, e.g. "https://api.deepseek.com/v1";
	// [DefaultBaseURL] when empty. A trailing "/chat/completions" is
	// accepted and stripped.
	BaseURL string
	// APIKey is sent as a bearer token; no Authorization header when empty
	// (local servers). The OPENAI_* environment variables are never read.
	APIKey string
	// Model is used when the request names none.
	Model string
	// MaxTokens caps responses when the request sets no cap; 0 sends none.
	MaxTokens int
	// ExtraHeaders are added to every request; they replace the adapter's
	// own headers of the same name (Authorization, User-Agent), except
	// Accept and Content-Type.
	ExtraHeaders map[string]string
	// Timeout bounds every wait for the server: for the response headers and
	// then for each next piece of the stream. It is an idle timeout, so a
	// long answer that keeps streaming is never cut. 0 means no limit beyond
	// the caller's context.
	Timeout time.Duration
	// ReasoningEffort is sent as reasoning_effort when the request sets none.
	ReasoningEffort string
	// HTTPClient sends the requests; a plain &http.Client{} when nil.
	HTTPClient *http.Client
	// Wire is the API to speak; [WireChat] when empty.
	Wire Wire
}

// A Provider streams Chat Completions or Responses from one endpoint. It
// is safe for concurrent use.
type Provider struct {
	cfg      Config
	ep       *httppost.Endpoint
	isOpenAI bool
	// origin is the endpoint's scheme and host: the Responses wire echoes
	// only the reasoning items it issued.
	origin string
	// refused is what the endpoint refused of the Responses wire's
	// reasoning (responses_retry.go).
	refused refusals
}

// New returns a provider for cfg.
func New(cfg Config) *Provider {
	cfg.Name = cmp.Or(cfg.Name, "openai")
	base := strings.TrimRight(cmp.Or(cfg.BaseURL, DefaultBaseURL), "/")
	base = strings.TrimSuffix(strings.TrimSuffix(base, "/chat/completions"), "/responses")
	path := "chat/completions"
	if cfg.Wire == WireResponses {
		path = "responses"
	} else {
		cfg.Wire = WireChat
	}
	// The extra headers come last so that they can replace these (a
	// gateway's own Authorization scheme or User-Agent).
	header := [][2]string{{"User-Agent", httppost.UserAgent}}
	if cfg.APIKey != "" {
		header = append(header, [2]string{"Authorization", "Bearer " + cfg.APIKey})
	}
	header = append(header, httppost.SortedHeaders(cfg.ExtraHeaders)...)
	return &Provider{cfg: cfg, isOpenAI: isOpenAIHost(base), origin: originOf(base),
		ep: httppost.New(base, path, header, cfg.HTTPClient)}
}

// requestHeaders are set on every request after the configured ones: the
// body is JSON and the answer must be a stream.
var requestHeaders = [][2]string{{"Content-Type", "application/json"}, {"Accept", "text/event-stream"}}

// rejectStatus turns a non-2xx response into a classified
// [*providers.Error], keeping the headers (Retry-After) and the bodies that
// are not OpenAI-shaped.
func (p *Provider) rejectStatus(status int, header http.Header, body []byte) error {
	return p.httpError(status, header, body)
}

// Stream sends req with stream:true and yields its events: text and
// reasoning deltas as they arrive, then at the end one tool_call event per
// call in index order, the usage and the stop event.
//
// Errors are [*providers.Error]s, except that cancelling ctx yields
// ctx.Err(). Cancelling ctx or breaking out of the loop aborts the HTTP
// request.
func (p *Provider) Stream(ctx context.Context, req providers.Request) iter.Seq2[providers.Event, error] {
	return func(yield func(providers.Event, error) bool) {
		yielded := false
		err := p.stream(ctx, req, func(ev providers.Event, err error) bool {
			yielded = true
			return yield(ev, err)
		})
		if p.cfg.Wire == WireResponses && !yielded && p.refuseReasoning(req, err) {
			// Refused before any event: sent again without what the
			// endpoint refused (responses_retry.go).
			err = p.stream(ctx, req, yield)
		}
		if err != nil {
			yield(providers.Event{}, err)
		}
	}
}

// stream runs one request. It returns the error to report, or nil when the
// response completed or the consumer stopped.
func (p *Provider) stream(parent context.Context, req providers.Request, yield func(providers.Event, error) bool) error {
	body, err := p.EncodeRequest(req)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	idle := httppost.NewWatchdog(p.cfg.Timeout, cancel)
	defer idle.Stop()

	resp, err := p.ep.Post(ctx, body, requestHeaders, p.rejectStatus)
	if err != nil {
		return p.failure(parent, ctx, err, "send request")
	}
	defer resp.Body.Close()
	idle.Reset()

	if p.cfg.Wire == WireResponses {
		if httppost.IsJSON(resp.Header.Get("Content-Type")) {
			return p.wholeResponse(parent, ctx, resp.Body, yield)
		}
		return p.sseResponses(parent, ctx, resp, idle, yield)
	}

	if httppost.IsJSON(resp.Header.Get("Content-Type")) {
		return p.whole(parent, ctx, resp.Body, yield)
	}
	return p.sse(parent, ctx, resp, idle, yield)
}

// sse decodes an event stream into events.
func (p *Provider) sse(parent, ctx context.Context, resp *http.Response, idle *httppost.Watchdog, yield func(providers.Event, error) bool) error {
	var acc accumulator
	dec := ssestream.NewDecoder(resp)
	complete := false
	for !complete && dec.Next() {
		idle.Reset()
		ev := dec.Event()
		data := bytes.TrimSpace(ev.Data)
		switch {
		case len(data) == 0:
			continue
		case string(data) == "[DONE]":
			complete = true
			continue
		}
		var c chunk
		if err := json.Unmarshal(data, &c); err != nil {
			return &providers.Error{Kind: providers.KindTransient, Provider: p.cfg.Name,
				Message: fmt.Sprintf("malformed stream chunk: %v", err)}
		}
		switch {
		case len(c.Error) > 0 && string(c.Error) != "null":
			return p.streamError(c.Error)
		case ev.Type == "error": // "event: error" with the bare error object
			return p.streamError(json.RawMessage(data))
		}
		for _, e := range acc.add(&c) {
			if !yield(e, nil) {
				return nil
			}
		}
	}
	if err := dec.Err(); err != nil {
		return p.failure(parent, ctx, err, "read stream")
	}
	// A server that closes after finish_reason without [DONE] is tolerated;
	// one that stops before either was cut off.
	if !complete && acc.finish == "" {
		return p.endedEarly(parent, ctx)
	}
	for _, e := range acc.finishEvents() {
		if !yield(e, nil) {
			return nil
		}
	}
	return nil
}

// whole handles a server that answered stream:true with one chat.completion
// object.
func (p *Provider) whole(parent, ctx context.Context, r io.Reader, yield func(providers.Event, error) bool) error {
	var c chunk
	if err := p.decodeWhole(parent, ctx, r, &c); err != nil {
		return err
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return p.streamError(c.Error)
	}
	var acc accumulator
	for _, e := range slices.Concat(acc.add(&c), acc.finishEvents()) {
		if !yield(e, nil) {
			return nil
		}
	}
	return nil
}

// failure classifies what ended a request early ([httppost.Failure]):
// the caller's cancellation as is, a [Config.Timeout] and transport
// trouble as transient, and the errors [Provider.rejectStatus] already
// classified as they are.
func (p *Provider) failure(parent, ctx context.Context, err error, op string) error {
	return httppost.Failure(parent, ctx, err, op, httppost.Source{Provider: p.cfg.Name, Timeout: p.cfg.Timeout})
}

// endedEarly is the error of a stream that stopped before its answer was
// complete: what ended the request, or a transient error to retry.
func (p *Provider) endedEarly(parent, ctx context.Context) error {
	if err := p.failure(parent, ctx, nil, ""); err != nil {
		return err
	}
	return &providers.Error{Kind: providers.KindTransient, Provider: p.cfg.Name,
		Message: "stream ended before the response was complete"}
}

// decodeWhole reads an answer sent as one JSON object (a server that
// ignored stream: true) into v.
func (p *Provider) decodeWhole(parent, ctx context.Context, r io.Reader, v any) error {
	data, err := io.ReadAll(io.LimitReader(r, httppost.MaxJSONBody))
	if err != nil {
		return p.failure(parent, ctx, err, "read response")
	}
	if err := json.Unmarshal(data, v); err != nil {
		return &providers.Error{Kind: providers.KindTransient, Provider: p.cfg.Name,
			Message: fmt.Sprintf("malformed response: %v", err)}
	}
	return nil
}
