// Package httppost sends the providers' requests: clawseed encodes every
// body itself, so what is left of an SDK client is a URL, fixed headers, a
// POST, error statuses handed back, and redirects kept to the base URL's
// origin. The provider packages use it instead of the SDKs' root packages,
// whose initialisation cost milliseconds at every start (issue 13).
//
// It also holds what the adapters share of a request's life, so that each
// rule is written once: the idle timeout ([Watchdog]), what a JSON answer
// is ([IsJSON], [MaxJSONBody]), how what ended a request early is
// classified ([Failure]), and the server's requested delay
// ([RetryAfter]).
package httppost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/clawseed/clawseed/internal/origin"
)

// UserAgent names the client. The SDKs sent "OpenAI/Go <version>" or
// "Anthropic/Go <version>" and X-Stainless-* telemetry headers, which
// describe SDK clients clawseed no longer runs; a User-Agent of its own
// keeps requests from looking like Go's anonymous default, which some
// gateways refuse.
const UserAgent = "clawseed"

// An Endpoint posts request bodies to one URL with a fixed set of headers.
// It is immutable after [New] and safe for concurrent use.
type Endpoint struct {
	url    string // empty when the base URL did not parse
	urlErr error  // why url is empty
	header http.Header
	client *http.Client
}

// New resolves path against base the way the SDKs' WithBaseURL did: a
// base path gets a trailing "/" so that "…/v1" + "chat/completions" is
// "…/v1/chat/completions", and a query in the base is dropped.
//
// header holds the headers in the order they are applied; a later one
// replaces an earlier one of the same name, so extra headers may override
// the defaults.
func New(base, path string, header [][2]string, hc *http.Client) *Endpoint {
	e := &Endpoint{header: http.Header{}}
	for _, kv := range header {
		e.header.Set(kv[0], kv[1])
	}
	u, err := url.Parse(base)
	if err == nil && u.Path != "" && !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	if err == nil {
		u, err = u.Parse(path)
	}
	if err == nil && (u.Scheme != "http" && u.Scheme != "https" || u.Host == "") {
		// Without this, http.Client fails each request with "unsupported
		// protocol scheme", which reads as transport trouble and is retried.
		err = errNotHTTP
	}
	if err != nil {
		e.urlErr = err
		return e
	}
	e.url = u.String()
	e.client = sameOriginClient(hc, u)
	return e
}

// SortedHeaders returns extra as name/value pairs in name order, so that
// two spellings of one header ("x-a", "X-A") resolve the same way on
// every run.
func SortedHeaders(extra map[string]string) [][2]string {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([][2]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, [2]string{k, extra[k]})
	}
	return out
}

// ErrBadURL marks a request that could not be built: sending it again
// cannot help.
var ErrBadURL = errors.New("invalid base URL")

// errNotHTTP is why a base URL that parses cannot be posted to. The URL
// itself is not repeated: it may hold a token.
var errNotHTTP = errors.New("not an http:// or https:// URL with a host")

// Post sends body with the endpoint's headers and then perRequest's. The
// caller owns the response body. A status of 400 or more is returned as
// the error reject builds from its status, headers and body (at most
// MaxErrorBody bytes).
func (e *Endpoint) Post(ctx context.Context, body []byte, perRequest [][2]string,
	reject func(status int, h http.Header, body []byte) error) (*http.Response, error) {
	if e.urlErr != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadURL, e.urlErr)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadURL, err)
	}
	req.Header = e.header.Clone()
	for _, kv := range perRequest {
		req.Header.Set(kv[0], kv[1])
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 400 {
		return resp, nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
	return nil, reject(resp.StatusCode, resp.Header, data)
}

// MaxErrorBody bounds how much of an error response is read: the message
// is near the start, and a misbehaving proxy may send megabytes of HTML.
const MaxErrorBody = 64 << 10

// errOtherOrigin refuses a redirect that would carry the API key to
// another scheme, host or port.
var errOtherOrigin = errors.New("the server redirected to another origin, where the API key is not sent; set base_url to the final address")

// transport is the connection pool of the model requests: a copy of
// http.DefaultTransport made on first use, so that nothing else in the
// process that closes DefaultTransport's idle connections (every
// httptest.Server.Close does, in tests) can break a model request about to
// reuse one: "connection broken: CloseIdleConnections called" failed
// TestRedirects under CI's load.
var transport = sync.OnceValue(func() http.RoundTripper {
	return http.DefaultTransport.(*http.Transport).Clone()
})

// sameOriginClient returns a copy of hc (a plain client on transport when
// nil or without a transport) that
// follows redirects only within base's origin. net/http drops
// Authorization on a redirect to another host but forwards x-api-key and
// any other credential header, and a proxy's redirect is no reason to hand
// a key to a third party (openai-go refused such redirects;
// anthropic-sdk-go followed them). The caller's own CheckRedirect, if any,
// still decides within the origin.
func sameOriginClient(hc *http.Client, base *url.URL) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	}
	if c.Transport == nil {
		c.Transport = transport()
	}
	check := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !origin.Same(req.URL, base) {
			return errOtherOrigin
		}
		if check != nil {
			return check(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects") // net/http's default
		}
		return nil
	}
	return &c
}
