// Package anthropic adapts the Anthropic Messages API — and gateways that
// speak it — to [providers.Streamer].
//
// The JSON body is written here (see [Provider.EncodeRequest] for its
// layout and prompt-cache breakpoints) and posted with net/http: base URL,
// x-api-key, anthropic-version and the configured extra headers, and
// nothing from the environment (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, the
// SDK's credential profiles and OpenTelemetry settings are never read, and
// no trace headers are sent). There are no retries here because
// [providers.Reliable] owns retry and fallback, and redirects are followed
// only within the base URL's origin. The event stream is decoded here:
// text and thinking deltas as they arrive, thinking signatures and redacted
// thinking for the history, tool-use input accumulated per content block,
// usage with the cache reads and writes, and error events classified like
// HTTP errors.
//
// anthropic-sdk-go is deliberately not imported (issue 13, start-up cost):
// the adapter only ever used its client as an HTTP carrier, and importing
// its root package initialises the generated API surface and OpenTelemetry
// — about 1 ms and 430 allocations at every start of clawseed, before the
// first request, and 7 MB of the release binary. TestNoSDKRootPackage keeps
// it that way.
package anthropic

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/providers/internal/httppost"
)

// DefaultBaseURL is used when [Config.BaseURL] is empty.
const DefaultBaseURL = "https://api.anthropic.com"

// A Config describes one Messages API endpoint.
type Config struct {
	// Name identifies the entry in errors (providers.Error.Provider);
	// "anthropic" when empty.
	Name string
	// BaseURL is the API root, e.g. "https://api.anthropic.com";
	// [DefaultBaseURL] when empty. A trailing "/v1" or "/v1/messages" is
	// accepted and stripped.
	BaseURL string
	// APIKey is sent as x-api-key; no key header when empty (gateways that
	// authenticate otherwise). The ANTHROPIC_* environment variables are
	// never read.
	APIKey string
	// Model is used when the request names none.
	Model string
	// MaxTokens caps responses when the request sets no cap; 0 lets the
	// adapter send a default the model accepts (max_tokens is required).
	MaxTokens int
	// ExtraHeaders are added to every request (e.g. anthropic-beta); they
	// replace the adapter's own headers of the same name, except Accept.
	ExtraHeaders map[string]string
	// Timeout bounds every wait for the server: for the response headers and
	// then for each next event of the stream. It is an idle timeout, so a
	// long answer that keeps streaming is never cut. 0 means no limit beyond
	// the caller's context.
	Timeout time.Duration
	// ReasoningEffort is used when the request sets none: a thinking budget
	// or adaptive-thinking effort on the models that think.
	ReasoningEffort string
	// HTTPClient sends the requests; a plain &http.Client{} when nil.
	HTTPClient *http.Client
}

// A Provider streams Messages API responses from one endpoint. It is safe
// for concurrent use.
type Provider struct {
	cfg Config
	ep  *httppost.Endpoint
}

// errIncomplete reports a stream that ended before message_stop, and
// errNoEvents one that ended before any event.
var (
	errIncomplete = errors.New("stream ended before the response was complete")
	errNoEvents   = errors.New("stream ended before any event")
)

// apiVersion is the Messages API version every request names.
const apiVersion = "2023-06-01"

// New returns a provider for cfg.
func New(cfg Config) *Provider {
	cfg.Name = cmp.Or(cfg.Name, "anthropic")
	base := strings.TrimRight(cmp.Or(cfg.BaseURL, DefaultBaseURL), "/")
	base = strings.TrimSuffix(base, "/messages")
	base = strings.TrimSuffix(base, "/v1")
	// The extra headers come last so that they can replace any of these
	// (a gateway's User-Agent, a pinned anthropic-version).
	header := [][2]string{
		{"Content-Type", "application/json"},
		{"User-Agent", httppost.UserAgent},
		{"Anthropic-Version", apiVersion},
	}
	if cfg.APIKey != "" {
		header = append(header, [2]string{"X-Api-Key", cfg.APIKey})
	}
	header = append(header, httppost.SortedHeaders(cfg.ExtraHeaders)...)
	return &Provider{cfg: cfg, ep: httppost.New(base+"/", "v1/messages", header, cfg.HTTPClient)}
}

// requestHeaders are set on every request after the configured ones: the
// answer must be a stream.
var requestHeaders = [][2]string{{"Accept", "text/event-stream"}}

// Stream sends req and yields its events: text and thinking deltas as they
// arrive, each thinking block's signature as it ends (redacted thinking as
// one event), then at the end one tool_call event per call in block order,
// the usage and the stop event.
//
// Errors are [*providers.Error]s, except that cancelling ctx yields
// ctx.Err(). Cancelling ctx or breaking out of the loop aborts the HTTP
// request.
func (p *Provider) Stream(ctx context.Context, req providers.Request) iter.Seq2[providers.Event, error] {
	return func(yield func(providers.Event, error) bool) {
		err := p.stream(ctx, req, yield)
		if rejectedThinking(err) {
			if bare, ok := withoutThinking(req); ok {
				err = p.stream(ctx, bare, yield)
			}
		}
		if err != nil {
			yield(providers.Event{}, err)
		}
	}
}

// stream runs one request. It returns the error to report, or nil when the
// response completed or the consumer stopped.
func (p *Provider) stream(parent context.Context, req providers.Request, yield func(providers.Event, error) bool) error {
	model := cmp.Or(req.Model, p.cfg.Model)
	body, err := p.EncodeRequest(req)
	if err != nil {
		if pe, ok := errors.AsType[*providers.Error](err); ok && pe.Provider == "" {
			pe.Provider = p.cfg.Name
		}
		return err
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	idle := httppost.NewWatchdog(p.cfg.Timeout, cancel)
	defer idle.Stop()

	// A non-2xx status becomes a classified error here, keeping the headers
	// (Retry-After) and the bodies that are not Anthropic-shaped.
	resp, err := p.ep.Post(ctx, body, requestHeaders, func(status int, h http.Header, body []byte) error {
		return p.httpError(status, h, body, model)
	})
	if err != nil {
		return p.failure(parent, ctx, err, "send request", model)
	}
	defer resp.Body.Close()
	idle.Reset()

	if httppost.IsJSON(resp.Header.Get("Content-Type")) {
		return p.whole(parent, ctx, resp.Body, model, yield)
	}
	err = p.decodeSSE(resp.Body, model, idle.Reset, func(ev providers.Event) bool { return yield(ev, nil) })
	if errors.Is(err, errIncomplete) || errors.Is(err, errNoEvents) {
		// A cut caused by the idle timeout or the caller is reported as such.
		if ferr := p.failure(parent, ctx, nil, "", model); ferr != nil {
			return ferr
		}
		msg := errIncomplete.Error()
		if errors.Is(err, errNoEvents) {
			// Typically a proxy's HTML page with a 200 status.
			msg = fmt.Sprintf("the server sent no event (Content-Type %q)", resp.Header.Get("Content-Type"))
		}
		return &providers.Error{Kind: providers.KindTransient, Provider: p.cfg.Name, Message: httppost.WithModel(msg, model)}
	}
	if err != nil {
		return p.failure(parent, ctx, err, "read stream", model)
	}
	return nil
}

// decodeSSE reads an event stream from r and yields the neutral events. It
// returns nil once message_stop arrived or yield returned false,
// errIncomplete (errNoEvents) when the stream ended before (before any
// event), a [*providers.Error] for an
// error event or a malformed event, and read errors as they are. progress,
// if not nil, is called after each event (it feeds the idle timeout).
func (p *Provider) decodeSSE(r io.Reader, model string, progress func(), yield func(providers.Event) bool) error {
	sse := newSSEReader(r)
	var d decoder
	for events := 0; !d.done; events++ {
		name, data, err := sse.next()
		if err == io.EOF && events == 0 {
			return errNoEvents
		}
		if err == io.EOF {
			return errIncomplete
		}
		if err != nil {
			return err
		}
		if progress != nil {
			progress()
		}
		if len(data) == 0 {
			continue
		}
		if index, delta, ok := fastDelta(data); ok {
			d.delta(index, &delta)
		} else {
			var ev streamEvent
			if err := json.Unmarshal(data, &ev); err != nil {
				return &providers.Error{Kind: providers.KindTransient, Provider: p.cfg.Name,
					Message: httppost.WithModel(fmt.Sprintf("malformed stream event: %v", err), model)}
			}
			if ev.Type == "" {
				ev.Type = string(name)
			}
			if ae := d.handle(&ev); ae != nil {
				return p.streamError(ae, model, false)
			}
		}
		for _, e := range d.out {
			if !yield(e) {
				return nil
			}
		}
		d.out = d.out[:0]
	}
	return nil
}

// whole handles a server that answered with one JSON message (it ignored
// stream:true) or a JSON error object with a 2xx status.
func (p *Provider) whole(parent, ctx context.Context, r io.Reader, model string, yield func(providers.Event, error) bool) error {
	data, err := io.ReadAll(io.LimitReader(r, httppost.MaxJSONBody))
	if err != nil {
		return p.failure(parent, ctx, err, "read response", model)
	}
	var ev streamEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return &providers.Error{Kind: providers.KindTransient, Provider: p.cfg.Name,
			Message: httppost.WithModel(fmt.Sprintf("malformed response: %v", err), model)}
	}
	var d decoder
	switch ev.Type {
	case "error":
		return p.streamError(parseAPIError(ev.Error), model, true)
	case "message", "":
		ev.Type = "message"
		d.handle(&ev)
	default:
		return &providers.Error{Kind: providers.KindTransient, Provider: p.cfg.Name,
			Message: httppost.WithModel(fmt.Sprintf("unexpected response of type %q", ev.Type), model)}
	}
	for _, e := range d.out {
		if !yield(e, nil) {
			return nil
		}
	}
	return nil
}

// failure classifies what ended a request early ([httppost.Failure]):
// the caller's cancellation as is, a [Config.Timeout] and transport
// trouble as transient, and the errors of a non-2xx status, already
// classified, as they are; the messages name the model.
func (p *Provider) failure(parent, ctx context.Context, err error, op, model string) error {
	return httppost.Failure(parent, ctx, err, op, httppost.Source{Provider: p.cfg.Name, Timeout: p.cfg.Timeout, Model: model})
}
