package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/clawseed/clawseed/permissions"
	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/tools/netguard"
)

//go:embed web_search.md
var webSearchDescription string

// Result counts of web_search.
const (
	defaultWebResults = 5
	maxWebResults     = 10
)

// searchProvider is one search backend: its default endpoint, whether it
// needs a key, and how to ask and read it.
type searchProvider struct {
	name     string // shown in results and messages
	endpoint string // "" when base_url is required
	needsKey string // the environment variable named when the key is missing
	request  func(ctx context.Context, endpoint, key, query string, n int) (*http.Request, error)
	parse    func([]byte) ([]searchResult, error)
}

var searchProviders = map[string]searchProvider{
	"duckduckgo": {
		name:     "DuckDuckGo",
		endpoint: "https://html.duckduckgo.com/html/",
		request: func(ctx context.Context, endpoint, _, q string, _ int) (*http.Request, error) {
			req, err := getWithQuery(ctx, endpoint, url.Values{"q": {q}})
			if err == nil {
				req.Header.Set("Accept", "text/html")
			}
			return req, err
		},
		parse: parseDuckDuckGo,
	},
	"brave": {
		name:     "Brave Search",
		endpoint: "https://api.search.brave.com/res/v1/web/search",
		needsKey: "BRAVE_API_KEY",
		request: func(ctx context.Context, endpoint, key, q string, n int) (*http.Request, error) {
			req, err := getWithQuery(ctx, endpoint, url.Values{"q": {q}, "count": {strconv.Itoa(n)}})
			if err == nil {
				req.Header.Set("Accept", "application/json")
				req.Header.Set("X-Subscription-Token", key)
			}
			return req, err
		},
		parse: parseBrave,
	},
	"searxng": {
		name: "SearXNG",
		request: func(ctx context.Context, endpoint, _, q string, _ int) (*http.Request, error) {
			req, err := getWithQuery(ctx, endpoint, url.Values{"q": {q}, "format": {"json"}})
			if err == nil {
				req.Header.Set("Accept", "application/json")
			}
			return req, err
		},
		parse: parseSearXNG,
	},
	"tavily": {
		name:     "Tavily",
		endpoint: "https://api.tavily.com/search",
		needsKey: "TAVILY_API_KEY",
		request: func(ctx context.Context, endpoint, key, q string, n int) (*http.Request, error) {
			body, err := json.Marshal(map[string]any{"query": q, "max_results": n})
			if err != nil {
				return nil, err
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
			if err == nil {
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json")
				req.Header.Set("Authorization", "Bearer "+key)
			}
			return req, err
		},
		parse: parseTavily,
	},
}

// getWithQuery builds a GET request of endpoint with q added to its query.
func getWithQuery(ctx context.Context, endpoint string, q url.Values) (*http.Request, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	v := u.Query()
	for k, vals := range q {
		v[k] = vals
	}
	u.RawQuery = v.Encode()
	return http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
}

// WebSearchOptions configures [NewWebSearch].
type WebSearchOptions struct {
	// Provider is "duckduckgo", "brave", "searxng" or "tavily".
	Provider string
	// APIKey is the brave or tavily key.
	APIKey string
	// BaseURL is the SearXNG instance (required for searxng), or a
	// replacement of the provider's endpoint.
	BaseURL string
	// Timeout bounds one search (0 = 30 s).
	Timeout time.Duration
	// Resolve replaces the system resolver (tests).
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

type webSearchArgs struct {
	Query      string `json:"query" jsonschema:"The search query."`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"Number of results (default 5)."`
}

type webSearch struct {
	prov     searchProvider
	endpoint string
	key      string
	timeout  time.Duration
	guard    netguard.Guard
}

// NewWebSearch returns web_search for the configured provider, or an error
// saying what the provider lacks (a key, a base_url), in which case the
// tool must not be registered.
func NewWebSearch(opts WebSearchOptions) (Tool, error) {
	prov, ok := searchProviders[opts.Provider]
	if !ok {
		return nil, fmt.Errorf("unknown provider %q (want duckduckgo, brave, searxng or tavily)", opts.Provider)
	}
	if prov.needsKey != "" && opts.APIKey == "" {
		return nil, fmt.Errorf("provider %s needs an API key: set [web_search].api_key or $%s", opts.Provider, prov.needsKey)
	}
	endpoint := prov.endpoint
	if opts.BaseURL != "" {
		endpoint = opts.BaseURL
		if opts.Provider == "searxng" {
			endpoint = strings.TrimSuffix(opts.BaseURL, "/")
			if !strings.HasSuffix(endpoint, "/search") {
				endpoint += "/search"
			}
		}
	}
	if endpoint == "" {
		return nil, fmt.Errorf("provider %s needs [web_search].base_url, the URL of the instance", opts.Provider)
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base_url %q is not an http(s) URL", opts.BaseURL)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultNetTimeout
	}
	t := &webSearch{
		prov:     prov,
		endpoint: endpoint,
		key:      opts.APIKey,
		timeout:  opts.Timeout,
		// The endpoint is the user's choice, so it may be a private
		// SearXNG; redirects elsewhere are checked like any URL.
		guard: netguard.Guard{Table: "web_search", Allowed: []string{"*"}, Trusted: []string{u.Hostname()}, Resolve: opts.Resolve},
	}
	desc := strings.ReplaceAll(webSearchDescription, "{{provider}}", prov.name)
	return &summaryTool[webSearchArgs]{
		typedTool: newTypedTool("web_search", permissions.ClassNetwork, desc, t.run,
			minimum("max_results", 0), maximum("max_results", maxWebResults)),
		summary: func(a webSearchArgs) string { return "search: " + a.Query },
		timeout: func(webSearchArgs) time.Duration { return opts.Timeout },
	}, nil
}

func (t *webSearch) run(ctx context.Context, args webSearchArgs) providers.ToolResult {
	q := strings.TrimSpace(args.Query)
	if q == "" {
		return errorResult("The query is empty.")
	}
	n := args.MaxResults
	if n <= 0 {
		n = defaultWebResults
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	req, err := t.prov.request(ctx, t.endpoint, t.key, q, n)
	if err != nil {
		return errorResult("Cannot build the %s request: %v.", t.prov.name, err)
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := t.guard.Client().Do(req)
	if err != nil {
		return errorResult("%s", netguard.ErrorText(err, t.prov.name+" ("+redactQuery(req.URL)+")", t.timeout))
	}
	defer resp.Body.Close()
	body, _, err := readBodyCapped(resp.Body, defaultNetMaxBytes)
	if err != nil {
		return errorResult("%s", netguard.ErrorText(err, t.prov.name, t.timeout))
	}
	if resp.StatusCode != http.StatusOK {
		return errorResult("%s", t.statusProblem(resp, body))
	}
	results, err := t.prov.parse(body)
	if err != nil {
		return errorResult("Search failed: %v.", err)
	}
	if len(results) == 0 {
		return textResult(fmt.Sprintf("No results for %q (%s).", q, t.prov.name))
	}
	return textResult(formatResults(q, t.prov.name, results[:min(n, len(results))]))
}

// statusProblem explains a non-200 answer of the search endpoint.
func (t *webSearch) statusProblem(resp *http.Response, body []byte) string {
	detail := headerLine(string(bytes.ToValidUTF8(body[:min(len(body), 300)], []byte("\uFFFD"))))
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		if t.prov.needsKey != "" {
			return fmt.Sprintf("%s refused the API key (HTTP %d): %s", t.prov.name, resp.StatusCode, detail)
		}
		return fmt.Sprintf("%s refused the search (HTTP %d; a SearXNG instance must list json in search.formats): %s", t.prov.name, resp.StatusCode, detail)
	case resp.StatusCode == http.StatusTooManyRequests:
		return fmt.Sprintf("%s is rate-limiting searches (HTTP 429); wait before searching again.", t.prov.name)
	case resp.StatusCode == http.StatusAccepted && t.prov.name == "DuckDuckGo":
		return errDDGChallenge.Error() + "."
	}
	return fmt.Sprintf("%s answered HTTP %s: %s", t.prov.name, resp.Status, detail)
}

// formatResults renders results as a numbered list, a blank line
// between them.
func formatResults(q, provider string, rs []searchResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Results for %q (%s):", q, provider)
	for i, r := range rs {
		fmt.Fprintf(&b, "\n\n%d. %s — %s", i+1, r.Title, r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "\n   %s", r.Snippet)
		}
	}
	return b.String()
}

// redactQuery shows a request URL without its query (which may hold a key
// for some endpoints).
func redactQuery(u *url.URL) string {
	c := *u
	c.RawQuery = ""
	return c.Redacted()
}
