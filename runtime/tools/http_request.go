package tools

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/http/httpguts"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/tools/netguard"
)

//go:embed http_request.md
var httpRequestDescription string

// HTTPRequestOptions configures [NewHTTPRequest].
type HTTPRequestOptions struct {
	// AllowedDomains are the host patterns requests may go to; required.
	AllowedDomains []string
	// MaxBytes caps what is read of a response body (0 = 2 MiB).
	MaxBytes int64
	// Timeout is the default and the longest time of one request (0 = 30 s).
	Timeout time.Duration
	// MaxOutputChars is the tools' output budget (0 = 30000).
	MaxOutputChars int
	// TrustedHosts and Resolve are as in [WebFetchOptions].
	TrustedHosts []string
	Resolve      func(ctx context.Context, host string) ([]netip.Addr, error)
}

type httpRequestArgs struct {
	Method      string            `json:"method,omitempty" jsonschema:"Default GET."`
	URL         string            `json:"url" jsonschema:"The http(s) URL."`
	Headers     map[string]string `json:"headers,omitempty"`
	Body        string            `json:"body,omitempty"`
	TimeoutSecs int               `json:"timeout_secs,omitempty"`
}

// refusedRequestHeaders may not be set by the model: Host would let one
// allowed name reach another server, the hop-by-hop headers belong to the
// connection, and Content-Length is computed from the body.
var refusedRequestHeaders = []string{
	"Host", "Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length",
}

// shownResponseHeaders are the response headers in the result, in this
// order; rate-limit headers follow them.
var shownResponseHeaders = []string{
	"Content-Type", "Content-Length", "Content-Encoding", "Location", "Retry-After", "Allow",
	"Etag", "Last-Modified", "Cache-Control", "Www-Authenticate", "Link", "X-Request-Id",
}

type httpRequest struct {
	opts  HTTPRequestOptions
	guard netguard.Guard
}

// NewHTTPRequest returns http_request, or an error when no domain is
// allowed (the tool could only fail).
func NewHTTPRequest(opts HTTPRequestOptions) (Tool, error) {
	if len(opts.AllowedDomains) == 0 {
		return nil, errors.New("[http_request].allowed_domains is empty: list the hosts the tool may call")
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = defaultNetMaxBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultNetTimeout
	}
	if opts.MaxOutputChars <= 0 {
		opts.MaxOutputChars = defaultMaxOutput
	}
	t := &httpRequest{opts: opts, guard: netguard.Guard{
		Table: "http_request", Allowed: opts.AllowedDomains, Trusted: opts.TrustedHosts, Resolve: opts.Resolve,
	}}
	limit := int(opts.Timeout / time.Second)
	desc := strings.ReplaceAll(httpRequestDescription, "{{domains}}", strings.Join(opts.AllowedDomains, ", "))
	desc = strings.ReplaceAll(desc, "{{timeout}}", fmt.Sprint(limit))
	tt := newTypedTool("http_request", permissions.ClassNetwork, desc, t.run,
		enum("method", "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"),
		minimum("timeout_secs", 0), maximum("timeout_secs", float64(max(limit, 1))))
	tt.subject = func(a httpRequestArgs) permissions.Subject { return permissions.Subject{URL: a.URL} }
	return &summaryTool[httpRequestArgs]{typedTool: tt,
		summary: func(a httpRequestArgs) string { return cmp.Or(a.Method, "GET") + " " + a.URL },
		timeout: func(a httpRequestArgs) time.Duration { return t.timeout(a) },
	}, nil
}

func (t *httpRequest) timeout(a httpRequestArgs) time.Duration {
	if a.TimeoutSecs > 0 {
		return min(time.Duration(a.TimeoutSecs)*time.Second, t.opts.Timeout)
	}
	return t.opts.Timeout
}

func (t *httpRequest) run(ctx context.Context, args httpRequestArgs) providers.ToolResult {
	method := cmp.Or(args.Method, http.MethodGet)
	u, msg := parseToolURL(args.URL)
	if msg != "" {
		return errorResult("%s", msg)
	}
	if err := t.guard.CheckURL(u); err != nil {
		return errorResult("%s", err)
	}
	header, msg := requestHeaders(args.Headers)
	if msg != "" {
		return errorResult("%s", msg)
	}
	limit := t.timeout(args)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var body io.Reader
	if args.Body != "" {
		body = strings.NewReader(args.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return errorResult("Invalid request: %v.", err)
	}
	req.Header = header
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", userAgent)
	}
	resp, err := t.guard.Client().Do(req)
	if err != nil {
		return errorResult("%s", netguard.ErrorText(err, u.Redacted(), limit))
	}
	defer resp.Body.Close()
	data, cut, err := readBodyCapped(resp.Body, t.opts.MaxBytes)
	if err != nil {
		return errorResult("%s", netguard.ErrorText(err, u.Redacted(), limit))
	}
	return textResult(t.render(resp, u.String(), data, cut))
}

// requestHeaders checks and canonicalises the model's headers; msg says
// which one is refused and why.
func requestHeaders(in map[string]string) (h http.Header, msg string) {
	h = make(http.Header, len(in))
	names := make([]string, 0, len(in))
	for k := range in {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		v := in[k]
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, fmt.Sprintf("Header name %q is not valid.", k)
		}
		canon := http.CanonicalHeaderKey(k)
		if slices.Contains(refusedRequestHeaders, canon) || strings.HasPrefix(canon, "Proxy-") {
			return nil, fmt.Sprintf("Header %s cannot be set: http_request sets the host and connection headers itself.", canon)
		}
		if !httpguts.ValidHeaderFieldValue(v) {
			return nil, fmt.Sprintf("The value of header %s is not valid (it contains a line break or control character).", canon)
		}
		h.Set(canon, v)
	}
	return h, ""
}

// render shows the status, the selected headers and the body.
func (t *httpRequest) render(resp *http.Response, asked string, data []byte, cut bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", resp.Proto, resp.Status)
	if final := resp.Request.URL.String(); final != asked {
		fmt.Fprintf(&b, "URL: %s\n", resp.Request.URL.Redacted())
	}
	for _, name := range shownResponseHeaders {
		for _, v := range resp.Header.Values(name) {
			fmt.Fprintf(&b, "%s: %s\n", strings.ToLower(name), headerLine(v))
		}
	}
	var rate []string
	for name := range resp.Header {
		l := strings.ToLower(name)
		if strings.HasPrefix(l, "x-ratelimit-") || strings.HasPrefix(l, "ratelimit") {
			rate = append(rate, name)
		}
	}
	slices.Sort(rate)
	for _, name := range rate {
		fmt.Fprintf(&b, "%s: %s\n", strings.ToLower(name), headerLine(resp.Header.Get(name)))
	}
	if cut {
		fmt.Fprintf(&b, "[Only the first %d bytes of the body were read ([http_request].max_bytes).]\n", t.opts.MaxBytes)
	}
	if len(data) == 0 {
		b.WriteString("\n(empty body)")
		return b.String()
	}
	b.WriteString("\n")
	if !textBody(resp.Header.Get("Content-Type"), data) {
		fmt.Fprintf(&b, "(binary body of %d bytes, not shown)", len(data))
		return b.String()
	}
	return clipBody(b.String(), strings.ToValidUTF8(string(data), "\uFFFD"), t.opts.MaxOutputChars)
}

// textBody reports whether a body can be shown as text.
func textBody(ctype string, data []byte) bool {
	if isBinary(data) {
		return false
	}
	mt, _, _ := mime.ParseMediaType(ctype)
	switch kind := contentKind(ctype, data); {
	case kind == kindText || kind == kindHTML:
		return true
	case mt == "" || mt == "application/octet-stream":
		return utf8.Valid(data)
	}
	return false
}

// clipBody appends body to head within budget characters, noting a cut.
func clipBody(head, body string, budget int) string {
	room := max(budget-utf8.RuneCountInString(head)-100, 500)
	n := utf8.RuneCountInString(body)
	if n <= room {
		return head + body
	}
	return fmt.Sprintf("%s%s\n\n[Body cut: the first %d of %d characters are shown.]", head, body[:runeOffsetOf(body, room)], room, n)
}
